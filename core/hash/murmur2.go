// Package hash holds Kafka's hash functions, bit-exact: the producer's murmur2
// key partitioner and the Java String.hashCode used to map a group.id to its
// __consumer_offsets partition. Every function is pure and allocation-free.
package hash

// Murmur2 constants from org.apache.kafka.common.utils.Utils.murmur2.
const (
	murmurSeed = 0x9747b28c
	murmurM    = 0x5bd1e995
	murmurR    = 24
)

// Murmur2 returns Kafka's 32-bit murmur2 hash of b, byte-identical to
// org.apache.kafka.common.utils.Utils.murmur2 (unchanged from 0.8.2 to trunk).
// Java's signed int arithmetic wraps like Go's uint32 arithmetic, and Java's
// >>> on int equals Go's >> on uint32, so the result is the same int32.
func Murmur2(b []byte) int32 {
	return murmur2(b)
}

// Murmur2String returns Murmur2 of the bytes of s without copying them. For
// valid UTF-8 this equals Kafka's StringSerializer (String.getBytes(UTF_8))
// followed by Utils.murmur2; invalid UTF-8 is hashed byte for byte.
func Murmur2String(s string) int32 {
	return murmur2(s)
}

// murmur2 is the shared body of Murmur2 and Murmur2String.
func murmur2[T string | []byte](data T) int32 {
	n := len(data)
	h := uint32(murmurSeed) ^ uint32(n)
	for i := 0; i+4 <= n; i += 4 {
		// Little-endian, unsigned bytes (Java masks each byte with 0xff).
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= murmurM
		k ^= k >> murmurR
		k *= murmurM
		h *= murmurM
		h ^= k
	}
	t := n &^ 3
	switch n % 4 { // Java's switch falls through: case 3 runs 2 and 1 too.
	case 3:
		h ^= uint32(data[t+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[t+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[t])
		h *= murmurM
	}
	h ^= h >> 13
	h *= murmurM
	h ^= h >> 15
	return int32(h)
}
