package log

import (
	"reflect"
	"testing"
)

func cache(es ...EpochEntry) *EpochCache {
	c := &EpochCache{}
	for _, e := range es {
		c.Assign(e.Epoch, e.StartOffset)
	}
	return c
}

func TestEpochAssign(t *testing.T) {
	tests := []struct {
		name string
		in   []EpochEntry
		want []EpochEntry
	}{
		{"monotonic", []EpochEntry{{0, 0}, {1, 5}, {3, 9}}, []EpochEntry{{0, 0}, {1, 5}, {3, 9}}},
		{"same epoch later offset ignored", []EpochEntry{{0, 0}, {0, 4}, {1, 5}, {1, 7}}, []EpochEntry{{0, 0}, {1, 5}}},
		// New epoch at an offset not above the latest start: entries with start >= it go.
		{"new epoch lower start", []EpochEntry{{0, 0}, {1, 5}, {2, 5}}, []EpochEntry{{0, 0}, {2, 5}}},
		{"new epoch much lower start", []EpochEntry{{0, 0}, {1, 5}, {2, 9}, {3, 3}}, []EpochEntry{{0, 0}, {3, 3}}},
		// Same epoch, lower start offset: the start offset moves down (isUpdateNeeded).
		{"same epoch lower start", []EpochEntry{{0, 0}, {1, 5}, {1, 3}}, []EpochEntry{{0, 0}, {1, 3}}},
		// Lower epoch: higher epochs are removed (maybeTruncateNonMonotonicEntries).
		{"lower epoch", []EpochEntry{{0, 0}, {2, 5}, {1, 7}}, []EpochEntry{{0, 0}, {1, 7}}},
		{"negative ignored", []EpochEntry{{-1, 0}, {0, -1}, {0, 0}}, []EpochEntry{{0, 0}}},
	}
	for _, tc := range tests {
		if got := cache(tc.in...).Entries(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	var empty EpochCache
	if _, ok := empty.Latest(); ok {
		t.Error("empty cache has no latest epoch")
	}
	if e, ok := cache(EpochEntry{0, 0}, EpochEntry{4, 10}).Latest(); !ok || e != 4 {
		t.Errorf("latest %d %v", e, ok)
	}
}

func TestEpochEndOffsetFor(t *testing.T) {
	c := cache(EpochEntry{0, 0}, EpochEntry{2, 10}, EpochEntry{4, 20})
	tests := []struct {
		req       int32
		wantEpoch int32
		wantEnd   int64
	}{
		{4, 4, 30},   // latest: LEO
		{3, 2, 20},   // largest <= 3 is 2; ends where 4 starts
		{2, 2, 20},   // exact
		{1, 0, 10},   // KIP-279: largest <= 1 is 0, ends at 10
		{0, 0, 10},   // first
		{5, -1, -1},  // above every epoch
		{-1, -1, -1}, // undefined request
	}
	for _, tc := range tests {
		e, o := c.EndOffsetFor(tc.req, 30)
		if e != tc.wantEpoch || o != tc.wantEnd {
			t.Errorf("EndOffsetFor(%d) = (%d,%d), want (%d,%d)", tc.req, e, o, tc.wantEpoch, tc.wantEnd)
		}
	}
	// Below the earliest cached epoch: UNDEFINED (2.0 semantics).
	c2 := cache(EpochEntry{2, 10}, EpochEntry{4, 20})
	if e, o := c2.EndOffsetFor(1, 30); e != -1 || o != -1 {
		t.Errorf("below earliest = (%d,%d)", e, o)
	}
	var empty EpochCache
	if e, o := empty.EndOffsetFor(0, 30); e != -1 || o != -1 {
		t.Errorf("empty = (%d,%d)", e, o)
	}
}

// KIP-101 scenario 2 (fact sheet §6.5): A has m1 (offset 0) and m2 (offset 1)
// in epoch 0. B lost m2, led epoch 1 and wrote m3 at offset 1. A asks B for
// the end of epoch 0 and truncates there, dropping its stale m2.
func TestEpochKIP101Divergence(t *testing.T) {
	a := New(DefaultConfig(), 0)
	ac := &EpochCache{}
	for i := 0; i < 2; i++ {
		b := &Batch{BaseOffset: int64(i), Epoch: 0, Records: []Record{{Value: "m"}}}
		if err := a.Append(b, 0); err != nil {
			t.Fatal(err)
		}
		ac.Assign(b.Epoch, b.BaseOffset)
	}
	bc := cache(EpochEntry{0, 0}, EpochEntry{1, 1})
	latest, _ := ac.Latest()
	epoch, end := bc.EndOffsetFor(latest, 2)
	if epoch != 0 || end != 1 {
		t.Fatalf("leader answer (%d,%d)", epoch, end)
	}
	a.TruncateTo(min(end, a.LEO()))
	ac.TruncateFromEnd(end)
	if a.LEO() != 1 || !reflect.DeepEqual(ac.Entries(), []EpochEntry{{0, 0}}) {
		t.Fatalf("A after truncation: LEO %d epochs %v", a.LEO(), ac.Entries())
	}
}

// KIP-279 (fact sheet §6.6): the follower's latest epoch 1 is unknown to the
// new leader, which answers with its largest epoch <= 1 and where it ends.
func TestEpochKIP279UnknownEpoch(t *testing.T) {
	leader := cache(EpochEntry{0, 0}, EpochEntry{2, 5})
	e, o := leader.EndOffsetFor(1, 9)
	if e != 0 || o != 5 {
		t.Fatalf("(%d,%d), want (0,5)", e, o)
	}
}

func TestEpochTruncate(t *testing.T) {
	base := []EpochEntry{{0, 0}, {1, 5}, {3, 9}}
	tests := []struct {
		name string
		f    func(*EpochCache)
		want []EpochEntry
	}{
		{"end at start of epoch", func(c *EpochCache) { c.TruncateFromEnd(9) }, []EpochEntry{{0, 0}, {1, 5}}},
		{"end mid epoch keeps it", func(c *EpochCache) { c.TruncateFromEnd(8) }, []EpochEntry{{0, 0}, {1, 5}}},
		{"end 0 clears", func(c *EpochCache) { c.TruncateFromEnd(0) }, nil},
		{"end beyond", func(c *EpochCache) { c.TruncateFromEnd(100) }, base},
		{"start mid epoch rewrites", func(c *EpochCache) { c.TruncateFromStart(7) }, []EpochEntry{{1, 7}, {3, 9}}},
		{"start exactly at an epoch", func(c *EpochCache) { c.TruncateFromStart(5) }, []EpochEntry{{1, 5}, {3, 9}}},
		{"start beyond last", func(c *EpochCache) { c.TruncateFromStart(12) }, []EpochEntry{{3, 12}}},
		{"start 0", func(c *EpochCache) { c.TruncateFromStart(0) }, base},
		{"clear", func(c *EpochCache) { c.Clear() }, nil},
	}
	for _, tc := range tests {
		c := cache(base...)
		tc.f(c)
		got := c.Entries()
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEpochCloneIndependent(t *testing.T) {
	c := cache(EpochEntry{0, 0}, EpochEntry{1, 5})
	d := c.Clone()
	d.Assign(2, 8)
	c.TruncateFromEnd(5)
	if !reflect.DeepEqual(d.Entries(), []EpochEntry{{0, 0}, {1, 5}, {2, 8}}) || len(c.Entries()) != 1 {
		t.Fatalf("clone shared state: %v %v", c.Entries(), d.Entries())
	}
}

// TestEpochEndOffsetForSince21: below the earliest epoch, 2.1+ answers the
// requested epoch and the earliest start offset (KAFKA-7415); otherwise
// as EndOffsetFor.
func TestEpochEndOffsetForSince21(t *testing.T) {
	c := cache(EpochEntry{2, 10}, EpochEntry{4, 20})
	tests := []struct {
		req       int32
		wantEpoch int32
		wantEnd   int64
	}{
		{1, 1, 10},   // below the earliest: its start
		{0, 0, 10},   // likewise
		{2, 2, 20},   // as EndOffsetFor
		{3, 2, 20},   // largest <= 3
		{4, 4, 30},   // latest: LEO
		{5, -1, -1},  // above every epoch
		{-1, -1, -1}, // undefined request
	}
	for _, tc := range tests {
		e, end := c.EndOffsetForSince21(tc.req, 30)
		if e != tc.wantEpoch || end != tc.wantEnd {
			t.Errorf("EndOffsetForSince21(%d) = (%d, %d), want (%d, %d)", tc.req, e, end, tc.wantEpoch, tc.wantEnd)
		}
	}
	var empty EpochCache
	if e, end := empty.EndOffsetForSince21(3, 0); e != -1 || end != -1 {
		t.Errorf("empty cache: (%d, %d)", e, end)
	}
}
