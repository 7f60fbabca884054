package core

import "fmt"

// member is a consumer's group membership (filled in by the consumer-group work).
type member struct{ k *Consumer }

func newMember(k *Consumer) *member                { return &member{k: k} }
func (m *member) canFetch() bool                   { return true }
func (m *member) fetchable(p *Partition) bool      { return true }
func (m *member) fetchCommitted(p *Partition) bool { return false }
func (m *member) onPoll(_ []bufRecord)             {}

// coordinator is a broker's group coordinator.
type coordinator struct{ b *Broker }

func newCoordinator(b *Broker) *coordinator { return &coordinator{b: b} }

func (m *member) pollStarted()      {}
func (m *member) stable() bool      { return true }
func (m *member) commitSync() error { return nil }
func (m *member) leave()            {}

func (c *Cluster) groupText(name string) string { return "" }

// GroupGeneration returns a group's generation.
func (c *Cluster) GroupGeneration(group string) (int, bool) { return 0, false }

// GroupAssignment returns a group's assignment: member -> partitions.
func (c *Cluster) GroupAssignment(group string) (map[string][]string, bool) { return nil, false }

// GroupCommitted returns a group's committed offset for p.
func (c *Cluster) GroupCommitted(group string, p *Partition) (int64, bool, error) {
	return 0, false, fmt.Errorf("no group %s", group)
}
