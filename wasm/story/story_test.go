package story

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// played runs a bundled scenario to its end in the browser engine's driver.
func played(t *testing.T, name string) *session.Driver {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return playedText(t, string(b))
}

func playedText(t *testing.T, text string) *session.Driver {
	t.Helper()
	sc, err := scenario.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	d, err := session.NewDriver(sc.Steps, session.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; !d.Done(); i++ {
		if i > 100_000 {
			t.Fatal("never done")
		}
		if err := d.RunTo(d.Now() + 500); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func story(d *session.Driver, value string) *Story {
	return Build(d.Cluster(), d.Events().Trace(), value, false)
}

func kinds(s *Story) string {
	var k []string
	for _, l := range s.Lines {
		if l.Cause {
			k = append(k, l.Kind+"!")
		} else {
			k = append(k, l.Kind)
		}
	}
	return strings.Join(k, " ")
}

func TestLostRecordStory(t *testing.T) {
	d := played(t, "acks1-leader-death.ksim")
	s := story(d, "m3")
	if len(s.Fates) == 0 || s.Fates[0] != FateLost {
		t.Fatalf("m3 fates %v, want lost first\n%s", s.Fates, kinds(s))
	}
	want := "attempt append ack broker election! truncate! fate"
	if got := kinds(s); !strings.Contains(got, "attempt append ack") || !strings.Contains(got, "election!") || !strings.Contains(got, "truncate!") {
		t.Errorf("m3 story kinds %q, want like %q", got, want)
	}
	for _, w := range []string{"never reached brokers 2 or 3", "broker 2 became leader (epoch 1", "broker 1 truncated its log to offset 2"} {
		if !strings.Contains(s.Summary, w) {
			t.Errorf("summary lacks %q:\n%s", w, s.Summary)
		}
	}
	if got := kinds(s); !strings.HasPrefix(got, "net! attempt") || len(s.Causes) != 3 {
		t.Errorf("causes %v (%s), want the split, the election and the truncation", s.Causes, got)
	}
	m1 := story(d, "m1")
	if m1.Fates[0] != FateCommitted || !strings.Contains(kinds(m1), "replicate replicate") || !strings.Contains(kinds(m1), "commit") {
		t.Errorf("m1: %v %s\n%s", m1.Fates, kinds(m1), m1.Summary)
	}
	if u := story(d, "nope"); u.Fates[0] != FateUnknown {
		t.Errorf("unknown value: %v", u.Fates)
	}
}

func TestDuplicateAndReorderStories(t *testing.T) {
	for _, tc := range []struct{ file, fate string }{
		{"reorder-inflight.ksim", FateReordered},
		{dupScript, FateDuplicated},
		{"group-autocommit-duplicates.ksim", FateRedeliver},
	} {
		var d *session.Driver
		if strings.HasSuffix(tc.file, ".ksim") {
			d = played(t, tc.file)
		} else {
			d = playedText(t, tc.file)
		}
		found := false
		for _, e := range d.Events().Trace() {
			for _, r := range e.Records {
				s := story(d, r.Value)
				for _, f := range s.Fates {
					if f == tc.fate {
						found = true
						if tc.fate != FateRedeliver && len(s.Causes) == 0 {
							t.Errorf("%s: %s is %s but no cause is marked:\n%s", tc.file, r.Value, f, kinds(s))
						}
					}
				}
				if found {
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			t.Errorf("%s: no record's story says %s", tc.file, tc.fate)
		}
	}
}

// dupScript loses one produce response: the producer retries and, without
// idempotence, d1 is stored twice.
const dupScript = `cluster brokers=3 seed=1 version=3.9
topic create t partitions=1 rf=3 assign=1,2,3
producer p1 acks=all idempotence=false request.timeout.ms=1000
wait 1s
net drop 1 p1 count=1
produce p1 t value=d1
wait 5s
`

func TestDuplicateStoryNamesTheRetry(t *testing.T) {
	s := story(playedText(t, dupScript), "d1")
	if s.Fates[0] != FateDuplicated {
		t.Fatalf("fates %v", s.Fates)
	}
	if got := kinds(s); !strings.Contains(got, "append attempt retry! attempt append") && !strings.Contains(got, "retry!") {
		t.Errorf("kinds %q", got)
	}
	if !strings.Contains(s.Summary, "offsets 0 and 1") {
		t.Errorf("summary: %s", s.Summary)
	}
}
