package hash

import (
	"math"
	"testing"
)

// Vectors from Kafka's UtilsTest.testMurmur2 (see docs/kafka-facts.md section 1).
var murmurVectors = []struct {
	in   string
	want int32
}{
	{"21", -973932308},
	{"foobar", -790332482},
	{"a-little-bit-long-string", -985981536},
	{"a-little-bit-longer-string", -1486304829},
	{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
	{"abc", 479470107},
}

func TestMurmur2KafkaVectors(t *testing.T) {
	for _, v := range murmurVectors {
		if got := Murmur2([]byte(v.in)); got != v.want {
			t.Errorf("Murmur2(%q) = %d, want %d", v.in, got, v.want)
		}
		if got := Murmur2String(v.in); got != v.want {
			t.Errorf("Murmur2String(%q) = %d, want %d", v.in, got, v.want)
		}
	}
}

// javaVectors were produced on this machine by /tmp/kv/Vectors.java under
// OpenJDK 17.0.15: String.hashCode(), Utils.abs(hashCode) % 50 (Utils.abs
// copied from Kafka: MIN_VALUE -> 0 else Math.abs), and a verbatim copy of
// Kafka's Utils.murmur2 over getBytes(UTF_8) with (h & 0x7fffffff) % 6.
var javaVectors = []struct {
	in       string
	hashCode int32
	coord50  int
	murmur   int32
	key6     int
}{
	{"my-group", -1906497762, 12, -1626987699, 5},
	{"console-consumer-12345", 158455506, 6, -519576848, 0},
	{"组", 32452, 2, -8893714, 4},
	{"g😀", 1871882, 32, -51257406, 2},
	{"été", 227742, 42, -2101193575, 1},
	{"", 0, 0, 275646681, 3},
	{"polygenelubricants", math.MinInt32, 0, 342343466, 2},
	{"GydZG_", math.MinInt32, 0, -2144987184, 2},
	{"DESIGNING WORKHOUSES", math.MinInt32, 0, 961938196, 4},
	{"\uffff\U00010000", 64749631, 31, 333132919, 1},
}

func TestJavaVectors(t *testing.T) {
	for _, v := range javaVectors {
		if got := JavaStringHashCode(v.in); got != v.hashCode {
			t.Errorf("JavaStringHashCode(%q) = %d, want %d", v.in, got, v.hashCode)
		}
		if got := CoordinatorPartition(v.in, 50); got != v.coord50 {
			t.Errorf("CoordinatorPartition(%q, 50) = %d, want %d", v.in, got, v.coord50)
		}
		if got := Murmur2String(v.in); got != v.murmur {
			t.Errorf("Murmur2String(%q) = %d, want %d", v.in, got, v.murmur)
		}
		if got := KeyPartition(v.in, 6); got != v.key6 {
			t.Errorf("KeyPartition(%q, 6) = %d, want %d", v.in, got, v.key6)
		}
	}
}

func TestKeyPartitionFactSheet(t *testing.T) {
	if got := KeyPartition("abc", 6); got != 3 {
		t.Errorf(`KeyPartition("abc", 6) = %d, want 3`, got)
	}
	if got := KeyPartition("a-little-bit-longer-string", 6); got != 5 {
		t.Errorf(`KeyPartition("a-little-bit-longer-string", 6) = %d, want 5`, got)
	}
}

func TestCoordinatorPartitionFactSheet(t *testing.T) {
	if got := CoordinatorPartition("my-group", 50); got != 12 {
		t.Errorf(`CoordinatorPartition("my-group", 50) = %d, want 12`, got)
	}
	if got := CoordinatorPartition("console-consumer-12345", 50); got != 6 {
		t.Errorf(`CoordinatorPartition("console-consumer-12345", 50) = %d, want 6`, got)
	}
	// "my-group" hashes negative: the mask would give a different partition.
	if masked := int(ToPositive(JavaStringHashCode("my-group"))) % 50; masked == 12 {
		t.Errorf("mask and Utils.abs agree on my-group; test vector no longer discriminates")
	}
}

func TestAbsAndToPositive(t *testing.T) {
	cases := []struct{ in, abs, pos int32 }{
		{0, 0, 0},
		{5, 5, 5},
		{-5, 5, 2147483643},
		{-1, 1, math.MaxInt32},
		{math.MaxInt32, math.MaxInt32, math.MaxInt32},
		{math.MinInt32, 0, 0},
	}
	for _, c := range cases {
		if got := Abs(c.in); got != c.abs {
			t.Errorf("Abs(%d) = %d, want %d", c.in, got, c.abs)
		}
		if got := ToPositive(c.in); got != c.pos {
			t.Errorf("ToPositive(%d) = %d, want %d", c.in, got, c.pos)
		}
	}
}

func TestMurmur2StringDoesNotAllocate(t *testing.T) {
	s := "a-little-bit-longer-string"
	if n := testing.AllocsPerRun(100, func() { _ = Murmur2String(s) }); n != 0 {
		t.Errorf("Murmur2String allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = KeyPartition(s, 6) }); n != 0 {
		t.Errorf("KeyPartition allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = CoordinatorPartition("g😀", 50) }); n != 0 {
		t.Errorf("CoordinatorPartition allocates %v times per call", n)
	}
}

func BenchmarkMurmur2String(b *testing.B) {
	s := "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Murmur2String(s)
	}
}
