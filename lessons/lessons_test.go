package lessons

import (
	"strings"
	"testing"
)

// TestBundledLessonsRun runs every step of every bundled lesson in every
// language on the core (Verify): run expectations hold, each prediction's
// marked answer is what happens and no other choice is, each act step's
// show-me satisfies its own check (which did not hold before).
func TestBundledLessonsRun(t *testing.T) {
	for _, lang := range Langs {
		ls, err := Bundled(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			t.Run(lang+"/"+l.ID, func(t *testing.T) {
				if err := Verify(l); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTranslationsMatch: every language has the same lessons, in the same
// order, with the same steps, choices, checks, highlights and panels.
func TestTranslationsMatch(t *testing.T) {
	en, err := Bundled("en")
	if err != nil {
		t.Fatal(err)
	}
	if len(en) < 12 {
		t.Errorf("%d English lessons, want at least 12", len(en))
	}
	for _, lang := range Langs[1:] {
		other, err := Bundled(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(other) != len(en) {
			t.Fatalf("%d lessons in en, %d in %s", len(en), len(other), lang)
		}
		for i := range en {
			if err := Same(en[i], other[i]); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestBundledLessonsComplete: each lesson has sources, a "what you saw"
// outro, unique ids and orders, known prerequisites, and text in every
// step; the predict steps' choices are distinct.
func TestBundledLessonsComplete(t *testing.T) {
	for _, lang := range Langs {
		ls, _ := Bundled(lang)
		ids, orders := map[string]bool{}, map[int]bool{}
		for _, l := range ls {
			if ids[l.ID] || orders[l.Order] {
				t.Errorf("%s: duplicate id %s or order %d", lang, l.ID, l.Order)
			}
			ids[l.ID], orders[l.Order] = true, true
			for _, p := range l.Prerequisites {
				if !ids[p] {
					t.Errorf("%s/%s: prerequisite %s is not an earlier lesson", lang, l.ID, p)
				}
			}
			if len(l.Sources) == 0 || !strings.Contains(l.Outro, "<h2") {
				t.Errorf("%s/%s: needs sources and a closing \"what you saw\" section (## heading)", lang, l.ID)
			}
			for i, s := range l.Steps {
				if strings.TrimSpace(s.Narration) == "" {
					t.Errorf("%s/%s step %d: no narration above the block", lang, l.ID, i+1)
				}
				seen := map[string]bool{}
				for _, c := range s.Choices {
					if seen[c.Label] {
						t.Errorf("%s/%s step %d: two choices read %q", lang, l.ID, i+1, c.Label)
					}
					seen[c.Label] = true
				}
			}
		}
	}
}
