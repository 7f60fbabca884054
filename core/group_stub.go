package core

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
