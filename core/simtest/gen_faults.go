package simtest

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/internal/xrand"
)

// step writes one step of the main phase.
func (g *gen) step() {
	if g.window >= 0 && g.windowBroker > 0 {
		g.windowStep()
		if g.window < 0 {
			g.windowBroker = 0
		}
		return
	}
	if g.topicChurn() {
		return
	}
	r := g.r
	down := len(g.brokersIn(crashed, off, paused))
	weights := []int{
		30,                    // produce
		18,                    // short wait
		2,                     // long wait
		12,                    // broker fault
		6 + 10*down,           // broker recovery
		8,                     // network fault
		4,                     // network heal
		7,                     // consumer lifecycle
		1,                     // topic alter
		3,                     // manual commit
		boolInt(!g.unsafe, 1), // power-off (safe: a settled window)
		boolInt(g.unsafe, 3),  // correlated failure (unsafe)
	}
	switch r.Weighted(weights) {
	case 0:
		g.produce()
	case 1:
		g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{5, 20, 50, 100, 250, 500, 1000, 2000}))})
	case 2:
		// Long enough for timeouts: sessions (6-30 s), replica lag (5-30 s),
		// requests (30 s).
		g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{5000, 10000, 20000, 40000}))})
	case 3:
		g.brokerFault()
	case 4:
		g.recover()
	case 5:
		g.netFault()
	case 6:
		if g.world.dirty {
			g.add(core.NetHeal{})
		} else {
			g.produce()
		}
	case 7:
		g.consumerOp()
	case 8:
		// Adding partitions needs RF registered brokers: only when
		// everything has been up and whole for a while. A KRaft broker
		// restarted within its old session (broker.session.timeout.ms,
		// 9 s) retries its registration every 2 s, so it can take
		// registerMs and one more retry (seed 42017334: INVALID_
		// REPLICATION_FACTOR 6 ms before broker 3 was back).
		t := &g.topics[r.Intn(len(g.topics))]
		if t.parts < 4 && g.calmMs >= alterCalmMs {
			t.parts++
			g.add(core.AlterTopic{Topic: t.name, Partitions: t.parts})
		} else {
			g.produce()
		}
	case 9:
		if live := g.liveConsumers(); len(live) > 0 {
			if c := g.consumers[xrand.Pick(r, live)]; c.group != "" {
				g.add(core.Commit{Consumer: c.name})
			}
		}
	case 10:
		g.safePowerOff()
	case 11:
		g.correlatedFailure()
	}
}

func boolInt(b bool, n int) int {
	if b {
		return n
	}
	return 0
}

// brokerFault crashes, pauses or (unsafe mode) powers off a broker.
func (g *gen) brokerFault() {
	r := g.r
	running := g.brokersIn(up)
	if len(running) == 0 {
		g.recover()
		return
	}
	b := xrand.Pick(r, running)
	switch n := r.Intn(10); {
	case n < 5:
		g.add(core.CrashBroker{Broker: b})
	case n < 8 || !g.unsafe:
		g.add(core.Pause{Broker: b})
	default:
		g.add(core.PowerOff{Broker: b})
	}
	g.faults++
}

// correlatedFailure (unsafe mode) takes two brokers down together, one
// powered off (losing its page cache) and one crashed, brings the
// powered-off one back first and writes to it before the other returns:
// KIP-101's second scenario, where before leader epochs the two replicas
// keep different records at the same committed offset.
func (g *gen) correlatedFailure() {
	r := g.r
	running := g.brokersIn(up)
	if len(running) < 2 {
		g.recover()
		return
	}
	a := xrand.Pick(r, running)
	b := a
	for b == a {
		b = xrand.Pick(r, running)
	}
	g.add(core.PowerOff{Broker: a})
	g.add(core.CrashBroker{Broker: b})
	g.faults += 2
	g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{100, 1000, 10000}))})
	g.recoverBroker(a)
	g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{1000, 10000, 20000}))})
	g.produce()
	g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{100, 1000, 5000}))})
	g.recoverBroker(b)
}

// recover restarts or resumes one broker.
func (g *gen) recover() {
	r := g.r
	down := g.brokersIn(crashed, off, paused)
	if len(down) == 0 {
		g.add(core.Wait{Duration: int64(xrand.Pick(r, []int{100, 1000}))})
		return
	}
	b := xrand.Pick(r, down)
	g.recoverBroker(b)
}

func (g *gen) recoverBroker(b int) {
	if g.world.state(b) == paused {
		g.add(core.Resume{Broker: b})
	} else {
		g.add(core.Restart{Broker: b})
	}
}

// netFault splits the network, delays a link or drops messages on one.
func (g *gen) netFault() {
	r := g.r
	hosts := g.hosts()
	switch n := r.Intn(10); {
	case n < 4:
		// Each host goes to side 1 or 2, or (clients and the metadata
		// service, sometimes) keeps reaching everyone.
		var a, b []string
		for i, h := range hosts {
			isBroker := i < g.brokers
			switch {
			case !isBroker && r.Chance(40):
			case r.Chance(50):
				a = append(a, h)
			default:
				b = append(b, h)
			}
		}
		if len(a) == 0 || len(b) == 0 {
			a, b = []string{"1"}, nil
			for _, h := range hosts[1:g.brokers] {
				b = append(b, h)
			}
			if len(b) == 0 {
				b = []string{hosts[len(hosts)-1]}
			}
		}
		g.add(core.NetSplit{Groups: [][]string{a, b}})
	case n < 7:
		from, to := g.link(hosts)
		g.add(core.NetDelay{From: from, To: to, Delay: int64(xrand.Pick(r, []int{20, 100, 500, 2000, 8000}))})
	default:
		from, to := g.link(hosts)
		count := r.Between(1, 4)
		if r.Chance(15) {
			count = 0 // everything, until heal
		}
		g.add(core.NetDrop{From: from, To: to, Count: count})
	}
	g.faults++
}

// link picks two distinct hosts, at least one of them a broker.
func (g *gen) link(hosts []string) (string, string) {
	r := g.r
	a := hosts[r.Intn(g.brokers)]
	b := hosts[r.Intn(len(hosts))]
	for b == a {
		b = hosts[r.Intn(len(hosts))]
	}
	if r.Chance(50) {
		return a, b
	}
	return b, a
}
