package simtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/internal/xrand"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// Config says what to generate.
type Config struct {
	// Unsafe generates settings that Kafka documents as lossy (acks=0/1,
	// unclean election, the 0.8 preset's HW truncation, idempotence off
	// with retries and several requests in flight, min.insync.replicas=1,
	// auto-commit with consumer crashes) and power-offs at any time. The
	// checker must find violations there; in the safe configuration it
	// must find none.
	Unsafe bool
	// Preset is the Kafka version preset (0.8, 0.11, 2.8, 3.9, 4.0); ""
	// picks one per seed (safe mode: only versions with leader epochs).
	Preset string
	// Steps is the length of the main phase; 0 means DefaultSteps.
	Steps int
}

// DefaultSteps is the main phase's length when Config.Steps is 0.
const DefaultSteps = 60

// SafeVersions are the presets safe mode draws from. Leader epochs are
// part of the safe configuration, but 0.11's first version of them
// (KIP-101) still lets replicas diverge after two fast leader changes
// (KIP-279, fixed in 2.0), and its ZooKeeper controller misses a broker
// that restarts as its old session expires (KAFKA-1120, fixed in 2.2 by
// KIP-380's broker epochs): both are real Kafka 0.11 behaviour, so 0.11
// is tested in unsafe mode only.
var SafeVersions = []string{"2.8", "3.9", "4.0"}

// Check validates a configuration.
func (cfg Config) Check() error {
	if cfg.Steps < 0 || cfg.Steps > 100_000 {
		return fmt.Errorf("steps=%d: want 0 to 100000", cfg.Steps)
	}
	if cfg.Preset == "" {
		return nil
	}
	if _, known := core.LookupVersion(cfg.Preset); !known {
		return fmt.Errorf("unknown preset %q (valid: %s)", cfg.Preset, strings.Join(core.VersionNames(), ", "))
	}
	switch {
	case !cfg.Unsafe && cfg.Preset == "0.8":
		return fmt.Errorf("preset 0.8 has no leader epochs (it truncates to the high watermark): it is not a safe configuration; use --unsafe")
	case !cfg.Unsafe && cfg.Preset == "0.11":
		return fmt.Errorf("preset 0.11 diverges after fast leader fail-overs (KIP-279, fixed in 2.0) and misses fast broker bounces (KIP-380, 2.2): it is not a safe configuration; use --unsafe")
	}
	return nil
}

// Case is one generated run: a complete scenario script, setup, main phase
// and final phase.
type Case struct {
	Seed   uint64
	Config Config
	Steps  []scenario.Step
	// Pinned marks the steps shrinking keeps: the cluster line, the
	// safety settings (dropping `set min.insync.replicas=2` would make any
	// loss "reproduce") and the topics.
	Pinned []bool
	// Final is the index of the first step of the final phase (heal
	// everything, then require progress).
	Final int
	// Faults counts the fault steps (broker crash, power-off and pause,
	// network split, delay and drop, consumer crash).
	Faults int
}

// PinnedFor returns the steps shrinking must keep for violation v: the
// pinned steps, and for a liveness violation the whole final phase (its
// expectations only mean something after its produces and settles).
func (c *Case) PinnedFor(v *Violation) []bool {
	p := append([]bool(nil), c.Pinned...)
	if v != nil && v.Kind == Liveness {
		for i := c.Final; i < len(p); i++ {
			p[i] = true
		}
	}
	return p
}

// Script returns the case as a scenario script.
func (c *Case) Script() *scenario.Script { return &scenario.Script{Steps: c.Steps} }

// Text renders the case as a .ksim file.
func (c *Case) Text() (string, error) { return scenario.FormatScript(c.Script()) }

// Names of the final phase's clients.
const (
	liveProducer = "live"
	liveConsumer = "live-c"
	liveMember   = "live-g"
	liveGroup    = "live"
)

// Bounds of the final phase: the cluster must settle within settleMax of
// virtual time after the last fault is healed, and consumers get consumeMs
// more to fetch what was acknowledged.
const (
	settleMax   = 3 * 60_000
	consumeMs   = 5_000
	registerMs  = 10_000             // > zookeeper.session.timeout.ms (zkSessionMs) + a register retry
	alterCalmMs = registerMs + 2_000 // every broker registered again, KRaft's 2 s registration retry included
	zkSessionMs = "6000"             // ZooKeeper mode: the 0.8-2.4 default, so expiries come soon
)

type topicInfo struct {
	name  string
	parts int
}

type producerInfo struct {
	name string
}

type consumerInfo struct {
	name       string
	group      string // "" for a manually assigned consumer
	alive      bool
	autoCommit bool
	instance   string // group.instance.id, "" for a dynamic member
	manual     bool   // poll=manual: it joins and fetches only inside poll
}

type groupInfo struct {
	name     string
	assignor string
	session  string
	commitMs string
}

// gen builds one case. It models statically what each step does to the
// brokers and the network, so every command it writes is valid when it
// runs (a command that fails anyway, such as a commit during a rebalance,
// is fine: the runner records its error and goes on).
type gen struct {
	r *xrand.Rand
	// rs draws the static-membership and manual-poll choices. A stream of
	// its own keeps r's draws, and so every other choice of a seed, as
	// they were before those were generated.
	rs *xrand.Rand
	// rk draws the settings that bring slow mechanisms into a seed's few
	// minutes of virtual time (mechanismSettings), on a stream of its own
	// for the same reason.
	rk      *xrand.Rand
	cfg     Config
	unsafe  bool
	version string
	spec    core.VersionSpec // the version's mechanisms, from core's catalog
	brokers int
	mode    string
	steps   []scenario.Step
	pinned  []bool
	faults  int

	topics    []topicInfo
	producers []producerInfo
	consumers []consumerInfo
	groups    []groupInfo
	values    int
	clients   int
	// flavour of an unsafe seed: which lossy mechanisms it leans on
	ackLoss, unclean, reorder, redeliver bool
	// a safe-mode power-off window: steps left, and the broker to restart
	window, windowBroker int
	// world is the brokers and network as the steps so far leave them
	// (add keeps it), calmMs the waiting done since they were last all up
	// and whole
	world  faultState
	calmMs int64
	// rt draws the topic churn (topicChurn) on a stream of its own, so
	// that seeds without it keep their scripts; churn says this seed
	// deletes and creates topics while it runs, nextTopic numbers them
	rt        *xrand.Rand
	churn     bool
	nextTopic int
}

// Generate builds the case of seed under cfg. The same seed and
// configuration always give the same case.
func Generate(seed uint64, cfg Config) *Case {
	if cfg.Steps == 0 {
		cfg.Steps = DefaultSteps
	}
	g := &gen{r: xrand.New(seed), rs: xrand.New(seed ^ 0x5eed_57a7_1c00_0000),
		rk: xrand.New(seed ^ 0x6b1d_5e77_1a65_0000), rt: xrand.New(seed ^ 0x70b1_c0de_1e7e_0000), cfg: cfg, unsafe: cfg.Unsafe}
	g.setup(seed)
	for i := 0; i < cfg.Steps; i++ {
		g.step()
		g.maybePoll()
	}
	final := len(g.steps)
	g.finalPhase()
	return &Case{Seed: seed, Config: cfg, Steps: g.steps, Pinned: g.pinned, Final: final, Faults: g.faults}
}

func (g *gen) add(cmd core.Command) {
	g.steps = append(g.steps, scenario.Step{Line: len(g.steps) + 1, Cmd: cmd})
	g.pinned = append(g.pinned, false)
	if g.world.apply(cmd) {
		g.calmMs = 0
	}
	switch x := cmd.(type) {
	case core.Restart:
		g.calmMs = 0
	case core.Wait:
		if g.world.whole() {
			g.calmMs += x.Duration
		}
	}
}

func (g *gen) expect(kind, target, op, want string) {
	e := &scenario.Expect{Kind: kind, Target: target, Op: op, Want: want}
	if kind != "error" {
		e.List = strings.Split(want, ",")
	}
	g.steps = append(g.steps, scenario.Step{Line: len(g.steps) + 1, Expect: e})
	g.pinned = append(g.pinned, false)
}

func (g *gen) pin() { g.pinned[len(g.pinned)-1] = true }

// hosts lists every network host: brokers, clients and the metadata
// service.
func (g *gen) hosts() []string {
	var h []string
	for b := 1; b <= g.brokers; b++ {
		h = append(h, strconv.Itoa(b))
	}
	for _, p := range g.producers {
		h = append(h, p.name)
	}
	for _, c := range g.consumers {
		h = append(h, c.name)
	}
	if g.mode == "kraft" {
		return append(h, "controller")
	}
	return append(h, "zk")
}

// brokersIn returns the brokers in state s, in id order.
func (g *gen) brokersIn(s ...brokerState) []int {
	var out []int
	for b := 1; b <= g.brokers; b++ {
		if slices.Contains(s, g.world.state(b)) {
			out = append(out, b)
		}
	}
	return out
}

func (g *gen) liveConsumers() []int {
	var out []int
	for i, c := range g.consumers {
		if c.alive {
			out = append(out, i)
		}
	}
	return out
}
