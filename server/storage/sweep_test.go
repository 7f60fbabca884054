package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestScenariosFilesMatch runs every worked scenario of the core
// (unclean elections, KIP-101 divergence, power losses, retention,
// segment rolls, groups...) with the store following, and checks every
// replica's files against its log every 50 observations and at the end:
// whatever the simulation does to a log, the disk holds it exactly.
func TestScenariosFilesMatch(t *testing.T) {
	files, _ := filepath.Glob("../../core/scenario/testdata/*.ksim")
	if len(files) < 20 {
		t.Fatalf("only %d scenarios found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".ksim")
		if strings.HasPrefix(name, "group-") && name != "group-coordinator-failover" {
			continue // 50 __consumer_offsets partitions each: slow, and alike
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
