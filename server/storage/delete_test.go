package storage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deleteDirs lists the deleted logs' directories (<topic>-<n>.<id>-delete)
// in broker id's directory.
func deleteDirs(t *testing.T, m *sim, id int) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(m.dir, brokerDir(id)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && isDeleteDir(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestDeletedTopicDirectory: a deleted topic's replica directories are
// renamed <topic>-<n>.<32 hex>-delete, their files kept, as
// LogManager.asyncDelete does, and removed once file.delete.delay.ms
// (60 s) has passed on the wall clock; a topic created again with the
// name gets a fresh directory with its new topic id; a recovery removes
// a -delete directory left behind instead of loading it.
func TestDeletedTopicDirectory(t *testing.T) {
	m := newSim(t, `cluster brokers=3 seed=5 version=3.9 metadata=kraft
topic create t partitions=1 rf=3
producer p acks=all linger.ms=0
produce p t value=a count=3
wait 2s
`)
	m.checkFiles()
	oldMeta, err := os.ReadFile(filepath.Join(m.dir, "broker-1", "t-0", "partition.metadata"))
	if err != nil {
		t.Fatal(err)
	}
	m.script("topic delete t\nwait 1s\n")
	m.checkFiles()
	for id := 1; id <= 3; id++ {
		dd := deleteDirs(t, m, id)
		if len(dd) != 1 || !strings.HasPrefix(dd[0], "t-0.") {
			t.Fatalf("broker %d: deleted directories %v, want one t-0.<id>-delete", id, dd)
		}
		if _, err := os.Stat(filepath.Join(m.dir, brokerDir(id), "t-0")); !os.IsNotExist(err) {
			t.Fatalf("broker %d: t-0 still there after the deletion: %v", id, err)
		}
		if _, err := os.Stat(filepath.Join(m.dir, brokerDir(id), dd[0], segmentName(0)+".log")); err != nil {
			t.Fatalf("broker %d: the renamed log should keep its files until the delay: %v", id, err)
		}
	}
	m.script("topic create t partitions=1 rf=3\nwait 1s\n")
	m.checkFiles()
	newMeta, err := os.ReadFile(filepath.Join(m.dir, "broker-1", "t-0", "partition.metadata"))
	if err != nil || slices.Equal(newMeta, oldMeta) {
		t.Fatalf("t created again: partition.metadata %q (%v), the deleted topic's was %q", newMeta, err, oldMeta)
	}
	m.clock.Add(59_000)
	m.s.Sync()
	if dd := deleteDirs(t, m, 1); len(dd) != 1 {
		t.Fatalf("removed before file.delete.delay.ms: %v", dd)
	}
	m.clock.Add(2_000)
	m.s.Sync()
	for id := 1; id <= 3; id++ {
		if dd := deleteDirs(t, m, id); len(dd) != 0 {
			t.Fatalf("broker %d: %v still there after file.delete.delay.ms", id, dd)
		}
	}

	// A shutdown before the delay leaves the renamed directory; the next
	// start removes it.
	left := filepath.Join(m.dir, "broker-2", "t-0.0123456789abcdef0123456789abcdef-delete")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, segmentName(0)+".log"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.s.Close()
	var logs []string
	m2 := restartSim(t, m.dir, &logs)
	m2.checkFiles()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("recovery left %s: %v", left, err)
	}
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "deleted partition's log: removed") }) {
		t.Fatalf("recovery did not say it removed the deleted log: %q", logs)
	}
}
