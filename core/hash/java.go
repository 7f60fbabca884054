package hash

import (
	"math"
	"unicode/utf16"
)

// JavaStringHashCode returns java.lang.String.hashCode of s: h = 31*h + c over
// the UTF-16 code units of s, wrapping as int32. Runes above U+FFFF count as
// their surrogate pair. Invalid UTF-8 bytes count as U+FFFD each, as Go's range
// decodes them (Java's UTF-8 decoder also substitutes U+FFFD).
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + int32(hi)
			h = 31*h + int32(lo)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// Abs is Kafka's Utils.abs: the absolute value of x, except that
// math.MinInt32 (whose absolute value does not fit) maps to 0.
// It differs from ToPositive for every negative x other than MinInt32.
func Abs(x int32) int32 {
	if x == math.MinInt32 {
		return 0
	}
	if x < 0 {
		return -x
	}
	return x
}

// ToPositive is Kafka's Utils.toPositive: x with its sign bit cleared
// (x & 0x7fffffff). It is not the absolute value: ToPositive(-1) = MaxInt32.
func ToPositive(x int32) int32 {
	return x & 0x7fffffff
}
