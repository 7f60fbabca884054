package lessons

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestIndexAndGet(t *testing.T) {
	for _, lang := range Langs {
		ix, err := Index(lang)
		if err != nil || len(ix) < 12 || ix[0].ID != "architecture" {
			t.Fatalf("%s: %v %v", lang, err, ix)
		}
		l, err := Get(lang, ix[2].ID)
		if err != nil || l.Lang != lang || len(l.Steps) != ix[2].Steps {
			t.Fatalf("%s: %v", lang, err)
		}
	}
	if _, err := Get("en", "nope"); err == nil {
		t.Error("unknown lesson found")
	}
	if _, err := Index("fr"); err == nil {
		t.Error("unknown language found")
	}
}

func TestParseJSON(t *testing.T) {
	if got := ParseJSON("no front matter", "en"); !strings.Contains(got, `"line":1`) || !strings.Contains(got, `"error"`) {
		t.Errorf("a bad file: %s", got)
	}
	src, err := bundled.ReadFile("en/01-architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var ok struct {
		OK *Lesson `json:"ok"`
	}
	if err := json.Unmarshal([]byte(ParseJSON(string(src), "en")), &ok); err != nil || ok.OK == nil || ok.OK.ID != "architecture" || len(ok.OK.Steps) == 0 {
		t.Errorf("a good file: %v %+v", err, ok.OK)
	}
}
