package lessons

import (
	"strings"
	"testing"
)

const good = "---\nid: t\ntitle: T\norder: 1\nsummary: s\nsources:\n  - \"[Doc](https://kafka.apache.org/documentation/)\"\n---\n\nIntro *text*.\n\n" +
	"```ksim run\ncluster brokers=3 seed=1 version=3.9 metadata=kraft\ntopic create t partitions=1 rf=3 assign=1,2,3\nproducer p1 acks=all\nhighlight: broker 1, hw t-0\npanel: story m1\n```\n\n" +
	"Then.\n\n```ksim predict\nask: What?\nchoice*: acked\n  expect acked p1 == m1\nchoice: not\n  expect acked p1 == none\nproduce p1 t value=m1\nwait 1s\nwhy: Because.\npoint: record m1\n```\n\n" +
	"Do it.\n\n```ksim act\ntask: Crash broker 1.\nhint: `crash broker 1`\ncrash broker 1\nwait 30s\nexpect leader t-0 == 2\n```\n\n## What you saw\n\n- things\n"

func TestParseGood(t *testing.T) {
	l, err := Parse([]byte(good), "en")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Steps) != 3 || l.Steps[1].Kind != Predict || !l.Steps[1].Choices[0].Correct || l.Steps[2].Checks[0].Text != "expect leader t-0 == 2" {
		t.Fatalf("bad parse: %+v", l.Steps)
	}
	if !strings.Contains(l.Steps[0].Narration, "<em>text</em>") || l.Steps[2].Hint != "<code>crash broker 1</code>" {
		t.Errorf("narration/hint not rendered: %q %q", l.Steps[0].Narration, l.Steps[2].Hint)
	}
	if l.Steps[1].Commands[0].Line != 28 || l.Steps[1].Line != 22 {
		t.Errorf("line numbers: command %d, block %d", l.Steps[1].Commands[0].Line, l.Steps[1].Line)
	}
	if err := Verify(l); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCatchesWrongText: a lesson whose marked answer, other choice,
// task or assertion is not what the cluster does fails Verify.
func TestVerifyCatchesWrongText(t *testing.T) {
	for name, edit := range map[string][2]string{
		"wrong answer marked": {"choice*: acked\n  expect acked p1 == m1\nchoice: not", "choice: acked\n  expect acked p1 == m1\nchoice*: not"},
		"two choices hold":    {"expect acked p1 == none", "expect acked p1 contains m1"},
		"show me fails":       {"crash broker 1\nwait 30s", "crash broker 3\nwait 30s"},
		"done before acting":  {"expect leader t-0 == 2", "expect leader t-0 == 1"},
		"assertion false":     {"producer p1 acks=all\n", "producer p1 acks=all\nexpect hw t-0 == 5\n"},
		"command fails":       {"producer p1 acks=all\n", "producer p1 acks=all\ntopic create t partitions=1 rf=3\n"},
	} {
		src := strings.Replace(good, edit[0], edit[1], 1)
		if src == good {
			t.Fatalf("%s: edit did not apply", name)
		}
		l, err := Parse([]byte(src), "en")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Verify(l); err == nil {
			t.Errorf("%s: Verify passed", name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, c := range map[string][2]string{
		"no front matter":     {"---\nid: t\n", "no closing"},
		"unknown key":         {strings.Replace(good, "order: 1", "order: 1\ncolour: red", 1), "unknown key"},
		"bad info string":     {strings.Replace(good, "ksim act", "ksim quiz", 1), "info string"},
		"bad scenario line":   {strings.Replace(good, "wait 30s", "wait forever", 1), "line 40"},
		"no correct choice":   {strings.Replace(good, "choice*:", "choice:", 1), "exactly one"},
		"choice without test": {strings.Replace(good, "  expect acked p1 == none\n", "", 1), "indented"},
		"bad highlight":       {strings.Replace(good, "hw t-0", "rainbow 7", 1), "unknown element"},
		"bad panel":           {strings.Replace(good, "panel: story m1", "panel: logs", 1), "panel:"},
		"cluster later":       {strings.Replace(good, "crash broker 1\nwait", "crash broker 1\ncluster brokers=1\nwait", 1), "first line of a step"},
		"act without hint":    {strings.Replace(good, "hint: `crash broker 1`\n", "", 1), "hint"},
		"nested block":        {strings.Replace(good, "Do it.\n\n```ksim act", "- item\n\n  ```ksim act", 1), "top level"},
		"no steps":            {"---\nid: t\ntitle: T\norder: 1\nsummary: s\n---\nhello\n", "at least one"},
		"not utf8":            {"---\nid: t\xff\n", "UTF-8"},
	} {
		_, err := Parse([]byte(c[0]), "en")
		if err == nil || !strings.Contains(err.Error(), c[1]) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c[1])
		}
	}
	if _, err := Parse([]byte(good), "english!"); err == nil {
		t.Error("bad language accepted")
	}
}

// TestRawHTMLNotRendered: a lesson opened from a URL cannot inject script.
func TestRawHTMLNotRendered(t *testing.T) {
	src := strings.Replace(good, "Intro *text*.", "Intro <script>alert(1)</script> [x](javascript:alert(1)).", 1)
	src = strings.Replace(src, "ask: What?", "ask: <img src=x onerror=alert(1)>", 1)
	l, err := Parse([]byte(src), "en")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{l.Steps[0].Narration, l.Steps[1].Ask} {
		if strings.Contains(h, "<script") || strings.Contains(h, "javascript:") || strings.Contains(h, "<img") {
			t.Errorf("unsafe HTML passed through: %q", h)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("---\nid: x\n---\n```ksim\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := Parse(src, "en")
		if err == nil && len(l.Steps) == 0 {
			t.Fatal("a lesson without steps parsed")
		}
	})
}

// TestChineseLineBreaks: a source line break between Chinese characters
// renders as nothing (Chinese has no spaces between words); next to a
// Latin word it stays a space.
func TestChineseLineBreaks(t *testing.T) {
	src := strings.Replace(good, "Intro *text*.", "段内的位移索引是稀疏\n的：它的字节\n位置，写了 offset\n之后", 1)
	l, err := Parse([]byte(src), "zh")
	if err != nil {
		t.Fatal(err)
	}
	n := l.Steps[0].Narration
	if !strings.Contains(n, "稀疏的") || !strings.Contains(n, "字节位置") || !strings.Contains(n, "offset\n之后") && !strings.Contains(n, "offset 之后") {
		t.Errorf("line breaks: %q", n)
	}
}
