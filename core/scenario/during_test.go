package scenario

import (
	"encoding/json"
	"strings"
	"testing"
)

// duringScript has commands applied in the middle of a blocking poll:
// its `during` lines.
const duringScript = `cluster brokers=3 seed=7 version=3.9 metadata=kraft
topic create orders partitions=1 rf=3 assign=1,2,3
consumer c1 group=g topics=orders poll=manual
producer p1 acks=all
wait 3s
poll c1 timeout=2s
during +20ms produce p1 orders value=a
during +300ms crash broker 2
during +300ms outside {"type":"conn_open","conn":"k1","host":"kcat","broker":3}
wait 1s
expect acked p1 == a
`

// TestDuring: a `during` line is applied at its instant of the operation
// in progress, by Run, by a Player whatever its increments, and its
// mistakes are failures, not panics.
func TestDuring(t *testing.T) {
	sc, err := Parse(duringScript)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %+v\n%s", res.Failures, res.Trace)
	}
	if !strings.Contains(res.Trace, "3.300s") || !strings.Contains(res.Trace, "during +20ms produce") {
		t.Fatalf("trace:\n%s", res.Trace)
	}
	want, _ := json.Marshal(res.Cluster.Snapshot())
	for _, inc := range []int64{1, 7, 250, 5000} {
		p := NewPlayer(sc, RunOptions{})
		for !p.Done() {
			if p.InProgress() != nil {
				if _, err := p.Advance(inc); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
		}
		pr := p.Finish()
		got, _ := json.Marshal(pr.Cluster.Snapshot())
		if string(got) != string(want) || pr.Trace != res.Trace {
			a, b := strings.Split(pr.Trace, "\n"), strings.Split(res.Trace, "\n")
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("player by %d ms: differs from Run at line %d:\n%s\nvs\n%s", inc, i, strings.Join(a[max(0, i-3):min(len(a), i+3)], "\n"), strings.Join(b[max(0, i-3):min(len(b), i+3)], "\n"))
				}
			}
			t.Fatalf("player by %d ms: differs from Run (%d lines, %d)", inc, len(a), len(b))
		}
	}
	for _, tc := range []struct{ script, want string }{
		{"crash broker 2\nduring +0 crash broker 1\n", "no settle, poll or commit is in progress"},
		{"poll c1 timeout=1s\nduring +5s crash broker 1\n", "the operation completed at"},
	} {
		sc, err := Parse("cluster brokers=3 seed=7\ntopic create orders partitions=1 rf=3\nconsumer c1 group=g topics=orders poll=manual\nwait 3s\n" + tc.script)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(sc, RunOptions{})
		if err != nil || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Msg, tc.want) {
			t.Errorf("%q: %v %+v", tc.script, err, res.Failures)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{"during", "missing +D"},
		{"during 5ms crash broker 1", "want +D"},
		{"during +5ms", "missing the command"},
		{"during +5ms settle", "blocks"},
		{"during +5ms expect lost == a", "needs a command"},
		{"during +5ms during +1ms crash broker 1", "during inside during"},
		{"during +x crash broker 1", "bad"},
	} {
		if _, err := ParseLine(tc.line, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.line, err, tc.want)
		}
	}
	st, err := ParseLine(`during +1s outside {"type":"conn_open","conn":"#k","host":"kcat","broker":3} `, 1)
	if err != nil || *st.During != 1000 || !strings.Contains(st.Text, `"#k"`) {
		t.Fatalf("%+v %v", st, err)
	}
}
