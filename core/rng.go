package core

import "github.com/kafkasim/kafkasim/core/internal/xrand"

// rng is the cluster's one PRNG. Every random choice in the core draws
// from it in a deterministic order, so the same seed and commands give the
// same trace on every platform.
type rng = xrand.Rand

func newRNG(seed uint64) *rng { return xrand.New(seed) }
