package simtest

// rng is the generator's own PRNG (xoshiro256**, seeded by splitmix64),
// separate from the cluster's: a seed gives the same script on every
// platform, and the script alone (with its cluster seed) gives the run.
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

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// intn returns a uniform int in [0, n); 0 when n <= 1.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	bound := uint64(n)
	limit := -bound % bound
	for {
		if v := r.next(); v >= limit {
			return int(v % bound)
		}
	}
}

// between returns a uniform int in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true with probability p percent.
func (r *rng) chance(p int) bool { return r.intn(100) < p }

// pick returns a uniform element of v (which must not be empty).
func pick[T any](r *rng, v []T) T { return v[r.intn(len(v))] }

// weighted returns an index into w chosen with probability w[i]/sum(w).
func (r *rng) weighted(w []int) int {
	sum := 0
	for _, x := range w {
		sum += x
	}
	n := r.intn(sum)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}
