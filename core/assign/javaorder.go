package assign

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core/hash"
)

// javaCompare orders strings like java.lang.String.compareTo, by UTF-16 code
// units. It differs from Go's byte order only when a rune above U+FFFF (a
// surrogate pair, 0xD800-0xDFFF) meets a rune in U+E000..U+FFFF.
func javaCompare(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(utf16Key(ra), utf16Key(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Key maps a rune to the value of its first UTF-16 code unit, scaled so
// that runes sharing a high surrogate still order by code point.
func utf16Key(r rune) int64 {
	if r <= 0xFFFF {
		return int64(r) << 10
	}
	hi := 0xD800 + (r-0x10000)>>10
	return int64(hi)<<10 | int64((r-0x10000)&0x3FF)
}

// compareTP orders partitions by topic (Java order) then partition number.
func compareTP(a, b TopicPartition) int {
	if c := javaCompare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// hashMapOrder returns ids in the iteration order of a java.util.HashMap
// holding them as keys, which Kafka's sticky assignor leaks into its results
// (AbstractStickyAssignor iterates HashMaps of member ids). A HashMap built
// by put() alone has capacity 16, doubled whenever size exceeds 3/4 of it,
// and iterates bucket by bucket, bucket = (h ^ h>>>16) & (capacity-1) with
// h = String.hashCode. Keys sharing a bucket iterate in insertion order,
// which Kafka inherits from the JoinGroup member list; we use Java String
// order instead, so the result depends only on the set of ids. Buckets of 9+
// colliding keys (treeified in Java) are not modelled.
func hashMapOrder(ids []string) []string {
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, javaCompare)
	return hashMapOrderInserted(sorted)
}

// hashMapOrderInserted is hashMapOrder with an explicit insertion order.
func hashMapOrderInserted(ids []string) []string {
	capacity := 16
	for len(ids) > capacity*3/4 {
		capacity *= 2
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Compare(javaBucket(a, capacity), javaBucket(b, capacity))
	})
	return out
}

// javaBucket is HashMap's bucket index for key s in a table of the given
// power-of-two capacity.
func javaBucket(s string, capacity int) int {
	h := uint32(hash.JavaStringHashCode(s))
	return int((h ^ h>>16) & uint32(capacity-1))
}
