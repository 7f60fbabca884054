package core

import (
	"fmt"
	"slices"
)

// startLeaderRebalance arms the controller's periodic preferred-leader
// check (auto.leader.rebalance.enable, every
// leader.imbalance.check.interval.seconds).
func (m *metadata) startLeaderRebalance() {
	m.c.after(m.c.bc.imbalanceCheckMs, func() {
		m.rebalanceLeaders()
		m.startLeaderRebalance()
	})
}

// rebalanceLeaders is KafkaController.checkAndTriggerAutoLeaderRebalance:
// for each broker whose share of partitions it should lead but does not
// exceeds leader.imbalance.per.broker.percentage, move those partitions
// back to it if it is alive and in the ISR (preferred replica election).
func (m *metadata) rebalanceLeaders() {
	c := m.c
	if !c.bc.autoRebalance || !m.controllerUp() {
		return
	}
	preferred := map[int][]*Partition{}
	for _, t := range c.order {
		for _, p := range t.parts {
			preferred[p.replicas[0]] = append(preferred[p.replicas[0]], p)
		}
	}
	var changed []*Partition
	for _, id := range m.registeredIDs() {
		parts := preferred[id]
		var notLed []*Partition
		for _, p := range parts {
			if p.state.leader != id {
				notLed = append(notLed, p)
			}
		}
		if len(parts) == 0 || int64(len(notLed))*100 <= c.bc.imbalancePct*int64(len(parts)) {
			continue
		}
		for _, p := range notLed {
			if m.live(id) && slices.Contains(p.state.isr, id) {
				st := p.state
				m.writeState(p, pstate{leader: id, epoch: st.epoch + 1, isr: st.isr, version: st.version + 1}, "preferred leader election")
				c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: id, Epoch: p.state.epoch, ISR: p.ISR(),
					Election: ElectionPreferred, Reason: "auto.leader.rebalance", Detail: fmt.Sprintf("preferred replica %d takes back leadership (auto.leader.rebalance)", id)})
				changed = append(changed, p)
			}
		}
	}
	m.propagate(changed, nil)
}
