package core

import (
	"bytes"
	"github.com/kafkasim/kafkasim/core/internal/strictjson"
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
	maxWaitMs    = MaxWait // Apply's limit for Wait
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
		_ = c.Exec(fuzzBudget(cmd))
		_, _ = c.Advance(1000)
		for _, e := range c.Events() {
			_ = e.Text()
		}
	})
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
	if _, err := c.Advance(100); err != nil {
		t.Fatalf("setup: %v", err)
	}
	return c
}

// fuzzBudget clamps a command to fuzzMaxMs of virtual time, fuzzMaxCount
// records and fuzzMaxParts partitions, so each fuzz input runs fast. Values
// Apply rejects as out of range are left alone, so those checks are fuzzed
// too. Settle's default (5 minutes) becomes fuzzMaxMs.
func fuzzBudget(cmd Command) Command {
	switch x := cmd.(type) {
	case Wait:
		x.Duration = clampIn(x.Duration, fuzzMaxMs, maxWaitMs)
		return x
	case Poll:
		x.Timeout = clampIn(x.Timeout, fuzzMaxMs, MaxPollTimeout)
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

// FuzzCommandProgram complements FuzzApplyCommand, whose mutations mostly
// break the JSON and so mostly explore the decoder: here every input is a
// program of up to fuzzMaxSteps commands, built from the bytes (see
// progReader), applied to FuzzApplyCommand's cluster with the same budget.
// Nothing may panic; errors are fine; each command must also survive an
// Encode/Decode round trip. Seeds are in
// testdata/fuzz/FuzzCommandProgram.
func FuzzCommandProgram(f *testing.F) {
	f.Fuzz(func(t *testing.T, prog []byte) {
		c := fuzzCluster(t)
		r := &progReader{b: prog}
		for step := 0; step < fuzzMaxSteps && len(r.b) > 0; step++ {
			cmd := r.command()
			checkRoundTrip(t, cmd)
			_ = c.Exec(fuzzBudget(cmd))
		}
		_, _ = c.Advance(1000)
		for _, e := range c.Events() {
			_ = e.Text()
		}
	})
}

const fuzzMaxSteps = 8

// Pools FuzzCommandProgram picks strings, integers and configs from.
var (
	fuzzStrings = []string{"t", "p1", "c1", "1", "2", "3", "t-0", "t-1", "t-2",
		"t-3", "g", "controller", "zk", "p2", "c2", "", "m", "0", "x-0",
		"__consumer_offsets", "t-0@1", "4", "-1"}
	fuzzInts = []int64{0, 1, 2, 3, 4, -1, 5, 10, 100, 1000, 3000, 10000,
		30000, 60000, 1<<31 - 1, -1 << 63, 1<<63 - 1, MaxCount + 1}
	fuzzKeys = []string{"acks", "retries", "enable.idempotence",
		"max.in.flight.requests.per.connection", "linger.ms", "partitioner",
		"min.insync.replicas", "unclean.leader.election.enable",
		"replica.lag.time.max.ms", "replica.lag.max.messages",
		"replica.fetch.wait.max.ms", "net.latency.ms", "net.jitter.ms",
		"segment.bytes", "log.segment.bytes", "retention.ms", "flush.messages",
		"partition.assignment.strategy", "enable.auto.commit",
		"auto.offset.reset", "session.timeout.ms", "heartbeat.interval.ms",
		"group.instance.id", "poll", "os.dirty.expire.ms", "no.such.key",
		"net.client.latency.ms"}
	fuzzValues = []string{"0", "1", "2", "3", "-1", "all", "true", "false",
		"100", "1000", "earliest", "latest", "manual", "auto", "roundrobin",
		"sticky", "cooperative-sticky", "range", "14", "x", ""}
)

// progReader turns fuzz bytes into commands: one byte picks the kind, then
// each field takes bytes as it needs them (see fill). Past the end of the
// input every byte reads as zero.
type progReader struct{ b []byte }

// next returns the next byte, or 0 past the end.
func (r *progReader) next() int {
	if len(r.b) == 0 {
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return int(x)
}

// command reads one command.
func (r *progReader) command() Command {
	proto := commandKinds[r.next()%len(commandKinds)]
	v := reflect.New(reflect.TypeOf(proto)).Elem()
	for _, f := range schemaByType[v.Type()].fields {
		r.fill(v.Field(f.Index))
	}
	return v.Interface().(Command)
}

// fill sets v, a command field or part of one, from the pools.
func (r *progReader) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fuzzStrings[r.next()%len(fuzzStrings)])
	case reflect.Int, reflect.Int64:
		v.SetInt(fuzzInts[r.next()%len(fuzzInts)])
	case reflect.Int8, reflect.Int16, reflect.Int32:
		n := fuzzInts[r.next()%len(fuzzInts)]
		if v.OverflowInt(n) {
			n = int64(r.next()) - 2
		}
		v.SetInt(n)
	case reflect.Bool:
		v.SetBool(r.next()%2 == 1)
	case reflect.Struct:
		for _, f := range strictjson.Fields(v.Type()) {
			r.fill(v.Field(f.Index))
		}
	case reflect.Pointer:
		if r.next()%2 == 1 {
			v.Set(reflect.New(v.Type().Elem()))
			r.fill(v.Elem())
		}
	case reflect.Slice:
		r.fillSlice(v)
	case reflect.Map:
		if v.Type().Elem().Kind() == reflect.String {
			r.fillConfigs(v)
		} else {
			r.fillMap(v)
		}
	}
}

// fillMap sets v, a map of non-string values, to 0 to 2 entries (0: nil).
func (r *progReader) fillMap(v reflect.Value) {
	n := r.next() % 3
	if n == 0 {
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), n)
	for i := 0; i < n; i++ {
		val := reflect.New(v.Type().Elem()).Elem()
		r.fill(val)
		m.SetMapIndex(reflect.ValueOf(fuzzKeys[r.next()%len(fuzzKeys)]), val)
	}
	v.Set(m)
}

// fillSlice sets v to a list of 0 to 4 items (0 items: nil).
func (r *progReader) fillSlice(v reflect.Value) {
	n := r.next() % 5
	if n == 0 {
		return // nil, as DecodeCommand returns an empty list
	}
	v.Set(reflect.MakeSlice(v.Type(), n, n))
	for i := 0; i < n; i++ {
		r.fill(v.Index(i))
	}
}

// fillConfigs sets v to 0 to 3 configs from the pools (0: nil).
func (r *progReader) fillConfigs(v reflect.Value) {
	n := r.next() % 4
	if n == 0 {
		return // nil, as DecodeCommand returns an empty object
	}
	m := make(map[string]string, n)
	for i := 0; i < n; i++ {
		k := fuzzKeys[r.next()%len(fuzzKeys)]
		m[k] = fuzzValues[r.next()%len(fuzzValues)]
	}
	v.Set(reflect.ValueOf(m))
}
