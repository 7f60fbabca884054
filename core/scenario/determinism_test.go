package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

var (
	rehash  = flag.Bool("rehash", false, "rewrite testdata/long/*.sha256 from the current output")
	longOut = flag.String("longout", "", "write the hashed output of the long scenarios to FILE.NAME.out (to diff two versions)")
)

// TestDeterminism runs each long scenario in testdata/long twice (once
// under wasm), requires byte-identical output, and compares the output's sha256 with the golden
// hash beside the scenario (NAME.sha256; rewrite with -rehash, only for an
// intended behaviour change). The output is the verbose trace (every
// message), then every record the clients sent and received, then every
// replica's final log. `make test` runs this natively and under
// GOOS=js GOARCH=wasm, so one golden hash shows both give the same run.
func TestDeterminism(t *testing.T) {
	files, err := filepath.Glob("testdata/long/*.ksim")
	if err != nil || len(files) == 0 {
		t.Fatalf("no long scenarios: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ksim")
		t.Run(name, func(t *testing.T) {
			first := runLong(t, f)
			// Under wasm one run is enough (and takes a while): a difference
			// between runs there would show as a hash mismatch.
			if runtime.GOOS != "js" {
				if second := runLong(t, f); second != first {
					t.Fatalf("two runs of %s differ:\n%s", f, firstDiff(first, second))
				}
			}
			if *longOut != "" {
				if err := os.WriteFile(*longOut+"."+name+".out", []byte(first), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum := sha256.Sum256([]byte(first))
			got := hex.EncodeToString(sum[:])
			golden := strings.TrimSuffix(f, ".ksim") + ".sha256"
			if *rehash {
				if err := os.WriteFile(golden, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./core/scenario -run Determinism -rehash)", err)
			}
			if w := strings.TrimSpace(string(want)); w != got {
				t.Errorf("%s: output hash %s, golden %s: the run changed (a behaviour change, or a "+
					"platform difference if only one of native and wasm fails). Compare outputs with "+
					"-longout=FILE before and after the change; if the change is intended, rerun with -rehash.", f, got, w)
			}
		})
	}
}

// runLong runs one scenario verbosely and renders what is hashed.
func runLong(t *testing.T, file string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(string(src))
	if err != nil {
		t.Fatalf("%s:%v", file, err)
	}
	res, err := Run(s, RunOptions{Verbose: true})
	if err != nil {
		t.Fatalf("%s:%v", file, err)
	}
	for _, fl := range res.Failures {
		t.Errorf("%s:%d: %s", file, fl.Line, fl.Msg)
	}
	var b strings.Builder
	b.WriteString(res.Trace)
	writeHistory(&b, res.Cluster.History())
	writeLogs(&b, res.Cluster)
	return b.String()
}

// writeHistory renders every record sent and every delivery in full (trace
// lines abbreviate long lists of records).
func writeHistory(b *strings.Builder, h *core.History) {
	fmt.Fprintf(b, "history: %d sent, %d consumed, truncated %t\n", len(h.Sent), len(h.Consumed), h.Truncated)
	for _, s := range h.Sent {
		fmt.Fprintf(b, "sent %d %s %q %s acks=%d idem=%t acked=%t offset=%d at=%d err=%s\n",
			s.ID, s.Producer, s.Value, s.Partition, s.Acks, s.Idem, s.Acked, s.Offset, s.AckedAt, s.Err)
	}
	for _, d := range h.Consumed {
		fmt.Fprintf(b, "consumed %s %s %s %d %q at=%d session=%d\n", d.Consumer, d.Group, d.Partition, d.Offset, d.Value, d.At, d.Session)
	}
}

// writeLogs renders every replica's final state and records.
func writeLogs(b *strings.Builder, c *core.Cluster) {
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			for _, br := range c.Brokers() {
				r := br.Replica(p)
				if r == nil {
					continue
				}
				l := r.Log()
				fmt.Fprintf(b, "replica %s@%d start=%d leo=%d hw=%d flushed=%d epochs=%v:", p.Name, br.ID, l.StartOffset(), l.LEO(), r.HW(), l.DurableOffset(), r.Epochs())
				for _, bt := range l.Batches(l.StartOffset()) {
					fmt.Fprintf(b, " [%d e%d pid%d seq%d", bt.BaseOffset, bt.Epoch, bt.ProducerID, bt.BaseSequence)
					for _, rec := range bt.Records {
						if rec.HasKey {
							fmt.Fprintf(b, " %s=%s", rec.Key, rec.Value)
						} else {
							b.WriteString(" " + rec.Value)
						}
					}
					b.WriteString("]")
				}
				b.WriteString("\n")
			}
		}
	}
}
