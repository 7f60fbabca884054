package core

// retryBackoff is how long batch b (just re-enqueued, b.attempts >= 1)
// waits before its next attempt. Before 3.7 it is retry.backoff.ms. From
// 3.7 (KIP-580) it is ExponentialBackoff(retry.backoff.ms, 2,
// retry.backoff.max.ms, 0.2).backoff(attempts-1) as
// RecordAccumulator.shouldBackoff computes it: retry.backoff.ms *
// 2^min(attempts-1, log2(max/initial)) times a random factor in [0.8, 1.2),
// never above retry.backoff.max.ms; a max below retry.backoff.ms gives a
// constant max (CommonClientConfigs.warnDisablingExponentialBackoff). Kafka
// draws the factor at each Sender pass; here it is drawn once per retry.
func (p *Producer) retryBackoff(b *pbatch) int64 {
	initial, maxMs := p.conf.backoff, p.conf.backoffMax
	if !p.c.preset.expBackoff {
		return initial
	}
	initial = min(initial, maxMs)
	if maxMs <= initial {
		return initial // expMax == 0: no jitter either
	}
	if initial == 0 {
		return 0
	}
	term := initial
	for i := 1; i < b.attempts && term < maxMs; i++ {
		term *= 2
	}
	if term > maxMs {
		// The exponent is capped at log2(max/initial), not at a whole
		// number: the term reaches max exactly.
		term = maxMs
	}
	jittered := term * int64(800+p.jitter.Intn(400)) / 1000
	return min(max(jittered, 0), maxMs)
}

// newLeader: 3.7+ skips a retry's backoff when the producer's metadata has
// a newer leader epoch for the partition than when the batch was last sent
// (ProducerBatch.hasLeaderChangedForTheOngoingRetry, KAFKA-15415).
func (p *Producer) newLeader(b *pbatch) bool {
	if !p.c.preset.expBackoff || b.attempts == 0 {
		return false
	}
	e, ok := p.meta.epochs[b.q.p]
	return ok && e > b.sentEpoch
}

// jitterSeed derives a producer's jitter stream from the cluster's seed and
// the producer's name (FNV-1a), so the jitter neither takes draws from the
// cluster's random stream nor depends on what else happened before.
func jitterSeed(seed uint64, name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return seed ^ h
}
