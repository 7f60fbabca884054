// Package simtest is kafkasim's simulation tester, in the spirit of
// TigerBeetle's VOPR and FoundationDB's simulator: for each seed it
// generates a random cluster, workload and fault schedule as a scenario
// script, runs it on the core, checks the invariants after every step, and
// shrinks a failing script to a short .ksim file that `kafkasim run`
// replays.
//
// A seed's script has three parts. Setup: a cluster of 3 to 5 brokers (2
// to 4 in unsafe mode) of one version preset, the settings, one or two
// topics, producers and consumers. Main phase: produce (keyed, to a
// partition, or by the partitioner), waits, broker faults (crash, pause,
// power-off) and recoveries, network faults (split, one-way delay, drops)
// and heals, consumers joining, leaving, crashing and committing, topics
// growing. Final phase: every fault healed, then progress is required.
//
// Safe mode is Kafka's durable configuration: acks=all on idempotent
// producers, min.insync.replicas=2 with RF 3, unclean leader election off,
// leader epochs (0.11+). There the checker must find nothing: no
// acknowledged record lost, no committed prefixes diverging, no record
// stored out of send order or twice, no partition delivered out of offset
// order, no group offset committed backwards (SafeKinds), and after the
// faults heal the cluster settles and new records are acknowledged and
// consumed within bounded virtual time (Liveness). Faults that lose data
// in real Kafka even so are not generated: a power-off (which loses the
// broker's page cache; Kafka acknowledges from it) happens only on a
// settled cluster, and no other fault follows until the broker is back and
// the cluster has settled again; in ZooKeeper mode the broker restarts only
// after its old session has expired, for a new controller cannot tell that
// the previous one bounced (see gen.safePowerOff, gen.windowStep and
// SafeScript).
//
// Unsafe mode turns on what Kafka documents as lossy: acks=0/1,
// min.insync.replicas=1, unclean election, the 0.8 preset (truncation to
// the high watermark), retries with several requests in flight and no
// idempotence, auto-commit with consumer crashes, power-offs at any time.
// There the checker must find every kind of UnsafeKinds within a bounded
// number of seeds: it is not blind.
//
// The package is pure like the rest of the core: its own seeded PRNG, no
// clock, no goroutines. The CLI (`kafkasim simtest`) and the tests run
// seeds in parallel.
package simtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Result is one seed's run.
type Result struct {
	Seed    uint64
	Case    *Case
	Outcome *Outcome
}

// RunSeed generates seed's case under cfg and runs it.
func RunSeed(seed uint64, cfg Config) *Result {
	c := Generate(seed, cfg)
	return &Result{Seed: seed, Case: c, Outcome: Run(c.Steps, !cfg.Unsafe)}
}

// Failed reports whether the run broke an invariant (its first violation
// is Outcome.Violation; an unsafe run records every kind in Outcome.Kinds).
func (r *Result) Failed() bool { return r.Outcome.Violation != nil }

// Reproduce shrinks a failed run to a script showing its violation of
// kind and renders the reproduction (see Shrink and MakeRepro); maxRuns
// bounds the shrinking (0: DefaultShrinkRuns).
func (r *Result) Reproduce(kind Kind, maxRuns int) (*Repro, *Shrunk, error) {
	v := r.Outcome.Kinds[kind]
	if v == nil {
		return nil, nil, fmt.Errorf("seed %d: no %s to reproduce", r.Seed, kind)
	}
	safe := !r.Case.Config.Unsafe
	sh := Shrink(r.Case.Steps, r.Case.PinnedFor(v), safe, v, maxRuns)
	if sh.Violation == nil {
		return nil, sh, fmt.Errorf("seed %d: the violation did not reproduce when run again", r.Seed)
	}
	header := []string{
		fmt.Sprintf("reproduces kafkasim simtest --seed %d%s", r.Seed, r.Case.flags()),
		fmt.Sprintf("%s", sh.Violation),
		fmt.Sprintf("shrunk from %d steps to %d (%d runs); replay: kafkasim run FILE", len(r.Case.Steps), len(sh.Steps), sh.Runs),
	}
	rep, err := MakeRepro(sh.Steps, safe, v, header)
	return rep, sh, err
}

// flags renders the configuration as simtest flags.
func (c *Case) flags() string {
	var b strings.Builder
	if c.Config.Unsafe {
		b.WriteString(" --unsafe")
	}
	if c.Config.Preset != "" {
		b.WriteString(" --preset " + c.Config.Preset)
	}
	if c.Config.Steps != DefaultSteps {
		fmt.Fprintf(&b, " --steps %d", c.Config.Steps)
	}
	return b.String()
}

// Summary adds up runs.
type Summary struct {
	Seeds     int
	Steps     int
	Faults    int
	Sent      int
	Acked     int
	Consumed  int
	VirtualMs int64
	Broken    int             // scripts that could not run (a generator bug)
	Failed    int             // seeds with a violation
	ByKind    map[Kind]int    // seeds that showed a violation of this kind
	FirstSeed map[Kind]uint64 // the lowest such seed, per kind
	// Explained counts the seeds with a finding Kafka's own behaviour
	// explains (Outcome.Explained), per kind, and the lowest such seed.
	Explained      map[Kind]int
	FirstExplained map[Kind]uint64
}

// Add counts one run.
func (s *Summary) Add(r *Result) {
	if s.ByKind == nil {
		s.ByKind, s.FirstSeed = map[Kind]int{}, map[Kind]uint64{}
		s.Explained, s.FirstExplained = map[Kind]int{}, map[Kind]uint64{}
	}
	o := r.Outcome
	s.Seeds++
	s.Steps += o.Steps
	s.Faults += o.Faults
	s.Sent += o.Sent
	s.Acked += o.Acked
	s.Consumed += o.Consumed
	s.VirtualMs += o.VirtualMs
	if o.Broken != "" {
		s.Broken++
	}
	if o.Violation != nil {
		s.Failed++
	}
	for k := range o.Explained {
		s.Explained[k]++
		if first, ok := s.FirstExplained[k]; !ok || r.Seed < first {
			s.FirstExplained[k] = r.Seed
		}
	}
	for k := range o.Kinds {
		s.ByKind[k]++
		if first, ok := s.FirstSeed[k]; !ok || r.Seed < first {
			s.FirstSeed[k] = r.Seed
		}
	}
}

// Violations is the number of runs that broke an invariant.
func (s *Summary) Violations() int { return s.Failed }

// String renders the figures on a few lines.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d seeds, %d steps (commands), %d faults injected, %d records sent, %d acked, %d deliveries, %s of virtual time\n",
		s.Seeds, s.Steps, s.Faults, s.Sent, s.Acked, s.Consumed, virtual(s.VirtualMs))
	if s.Broken > 0 {
		fmt.Fprintf(&b, "%d scripts could not run (generator bug)\n", s.Broken)
	}
	if len(s.Explained) > 0 {
		b.WriteString("explained by Kafka's own behaviour, not violations (seeds, first seed):")
		for _, k := range slices.Sorted(maps.Keys(s.Explained)) {
			fmt.Fprintf(&b, " %s %d (%d);", k, s.Explained[k], s.FirstExplained[k])
		}
		b.WriteString("\n")
	}
	if len(s.ByKind) == 0 {
		b.WriteString("violations: none\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d seeds with violations; by kind (seeds, first seed):", s.Failed)
	for _, k := range slices.Sorted(maps.Keys(s.ByKind)) {
		fmt.Fprintf(&b, " %s %d (%d);", k, s.ByKind[k], s.FirstSeed[k])
	}
	return strings.TrimSuffix(b.String(), ";") + "\n"
}

func virtual(ms int64) string {
	h := ms / 3_600_000
	m := ms / 60_000 % 60
	sec := ms / 1000 % 60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm", h, m)
	}
	return fmt.Sprintf("%dm%02ds", m, sec)
}
