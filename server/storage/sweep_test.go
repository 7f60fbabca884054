package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestScenariosFilesMatch runs the core's worked scenarios that do the
// most to logs (unclean elections, KIP-101 divergence with and without
// epochs, truncations, power losses, retention, segment rolls, follower
// catch-up, restarts, a coordinator failover) with the store following, and checks every
// replica's files against its log every 50 observations and at the end:
// whatever the simulation does to a log, the disk holds it exactly.
func TestScenariosFilesMatch(t *testing.T) {
	files, _ := filepath.Glob("../../core/scenario/testdata/*.ksim")
	if len(files) < 40 {
		t.Fatalf("only %d scenarios found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".ksim")
		if !diskHeavy(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Parse(string(src))
			if err != nil {
				t.Skip(err)
			}
			m := newSimAt(t, t.TempDir(), sc.Steps[0].Text, nil)
			m.lenient, m.every = true, 250
			m.t.Logf("%s", name)
			m.run(sc.Steps[1:])
			m.checkFiles()
		})
	}
}

// diskHeavy picks the scenarios that truncate, lose, roll, delete or
// re-fetch logs; the others only append, which the rest cover.
func diskHeavy(name string) bool {
	for _, p := range []string{"acks", "epoch-below", "follower-", "kip101-", "poweroff", "retention", "segments", "unclean",
		"paused-follower", "restarted-broker", "zk-fast-bounce", "isr-lag", "group-coordinator-failover", "consumer-leader-epoch", "preferred-leader", "topic-delete", "log-compaction"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
