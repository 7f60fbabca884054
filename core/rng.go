package core

// rng is the cluster's one PRNG (xoshiro256**, seeded by splitmix64). Every
// random choice in the core draws from it in a deterministic order, so the
// same seed and commands give the same trace on every platform.
type rng struct{ s [4]uint64 }

func newRNG(seed uint64) *rng {
	r := &rng{}
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

// next returns the next 64 random bits.
func (r *rng) next() uint64 {
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

// intn returns a uniform int in [0, n); n must be > 0.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	bound := uint64(n)
	limit := -bound % bound // 2^64 mod n: reject values below it for uniformity
	for {
		v := r.next()
		if v >= limit {
			return int(v % bound)
		}
	}
}

// int63n returns a uniform int64 in [0, n); n must be > 0.
func (r *rng) int63n(n int64) int64 { return int64(r.intn(int(n))) }
