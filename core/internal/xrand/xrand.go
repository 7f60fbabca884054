// Package xrand is the simulator's PRNG: xoshiro256** seeded by
// splitmix64, written out so that a seed gives the same numbers on every
// platform and Go version (math/rand promises neither). The core's
// cluster draws every random choice from one Rand; the simulation tester
// generates its scripts from another.
package xrand

// Rand is a xoshiro256** generator. Its zero value is not seeded; use New.
type Rand struct{ s [4]uint64 }

// New returns a generator whose state is four splitmix64 outputs of seed.
func New(seed uint64) *Rand {
	r := &Rand{}
	for i := range r.s {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		r.s[i] = z ^ (z >> 31)
	}
	return r
}

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	s := &r.s
	result := rotl(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = rotl(s[3], 45)
	return result
}

// Intn returns a uniform int in [0, n); 0 when n <= 1.
func (r *Rand) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	bound := uint64(n)
	limit := -bound % bound // 2^64 mod n: reject values below it for uniformity
	for {
		if v := r.Uint64(); v >= limit {
			return int(v % bound)
		}
	}
}

// Int63n returns a uniform int64 in [0, n); 0 when n <= 1.
func (r *Rand) Int63n(n int64) int64 {
	if n <= 1 {
		return 0
	}
	bound := uint64(n)
	limit := -bound % bound
	for {
		if v := r.Uint64(); v >= limit {
			return int64(v % bound)
		}
	}
}

// Between returns a uniform int in [lo, hi].
func (r *Rand) Between(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// Chance reports true with probability p percent.
func (r *Rand) Chance(p int) bool { return r.Intn(100) < p }

// Weighted returns an index into w chosen with probability w[i]/sum(w).
func (r *Rand) Weighted(w []int) int {
	sum := 0
	for _, x := range w {
		sum += x
	}
	n := r.Intn(sum)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// Pick returns a uniform element of v, which must not be empty.
func Pick[T any](r *Rand, v []T) T { return v[r.Intn(len(v))] }
