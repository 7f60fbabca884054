package scene

import "fmt"

// Limits every decoded scene obeys. The engine trims to them (oldest
// messages and marks first, counting what it left out in
// Counters.Omitted); the canvas refuses a scene beyond them.
const (
	MaxBytes      = 8 << 20 // one posted message
	MaxBrokers    = 64
	MaxClients    = 256 // producers, consumers and groups, each
	MaxPartitions = 4096
	MaxReplicas   = 16 // per partition
	MaxCells      = 64 // per replica window
	MaxTotalCells = 1 << 17
	MaxMessages   = 4096
	MaxMarks      = 1024
	MaxRecent     = 32 // records per consumer's Recent
	MaxRefs       = 256
	MaxName       = 128 // bytes in any name or short text
)

// Validate checks s against the limits and the invariants of Scene. It
// returns the first problem found, naming where it is.
func (s *Scene) Validate() error {
	if s.V != Version {
		return fmt.Errorf("scene: version %d, this canvas reads version %d", s.V, Version)
	}
	switch s.View {
	case "", ViewCluster, ViewSpaceTime, ViewBoth:
	default:
		return fmt.Errorf("scene: unknown view %q (cluster, spacetime or both)", s.View)
	}
	if s.Span < 0 {
		return fmt.Errorf("scene: negative span %d", s.Span)
	}
	if err := count("brokers", len(s.Brokers), MaxBrokers); err != nil {
		return err
	}
	brokers := map[int]bool{}
	for i, b := range s.Brokers {
		if b.ID <= 0 {
			return fmt.Errorf("scene: brokers[%d]: id %d is not positive", i, b.ID)
		}
		if brokers[b.ID] {
			return fmt.Errorf("scene: brokers[%d]: duplicate id %d", i, b.ID)
		}
		brokers[b.ID] = true
		switch b.State {
		case StateAlive, StateCrashed, StatePoweredOff, StatePaused:
		default:
			return fmt.Errorf("scene: broker %d: unknown state %q", b.ID, b.State)
		}
		if err := name("broker rack", b.Rack); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		what string
		n    int
	}{{"producers", len(s.Producers)}, {"consumers", len(s.Consumers)}, {"groups", len(s.Groups)}} {
		if err := count(c.what, c.n, MaxClients); err != nil {
			return err
		}
	}
	clients := map[string]bool{}
	for _, p := range s.Producers {
		if err := client(clients, p.Name); err != nil {
			return err
		}
	}
	for _, c := range s.Consumers {
		if err := client(clients, c.Name); err != nil {
			return err
		}
		if len(c.Recent) > MaxRecent {
			return count("consumer "+c.Name+" recent", len(c.Recent), MaxRecent)
		}
		if len(c.Assigned) > MaxPartitions {
			return count("consumer "+c.Name+" assigned", len(c.Assigned), MaxPartitions)
		}
	}
	for _, g := range s.Groups {
		if err := name("group", g.Name); err != nil {
			return err
		}
		for _, m := range g.Members {
			if !clients[m] {
				return fmt.Errorf("scene: group %s: member %q is not a consumer of the scene", g.Name, m)
			}
		}
	}
	if err := s.validatePartitions(brokers); err != nil {
		return err
	}
	if err := count("messages", len(s.Messages), MaxMessages); err != nil {
		return err
	}
	for i, m := range s.Messages {
		if m.DeliverAt < m.SentAt {
			return fmt.Errorf("scene: messages[%d] (id %d): deliverAt %d before sentAt %d", i, m.ID, m.DeliverAt, m.SentAt)
		}
		if len(m.From) > MaxName || len(m.To) > MaxName || len(m.Kind) > MaxName {
			return fmt.Errorf("scene: messages[%d]: a name longer than %d bytes", i, MaxName)
		}
	}
	if err := s.validateZKClients(); err != nil {
		return err
	}
	if err := count("marks", len(s.Marks), MaxMarks); err != nil {
		return err
	}
	for i, m := range s.Marks {
		if len(m.Cells) > MaxCells {
			return fmt.Errorf("scene: marks[%d]: %d cells, at most %d", i, len(m.Cells), MaxCells)
		}
		if len(m.Text) > MaxName {
			return fmt.Errorf("scene: marks[%d]: text longer than %d bytes", i, MaxName)
		}
	}
	if err := count("highlights", len(s.Highlights), MaxRefs); err != nil {
		return err
	}
	return count("hide", len(s.Hide), len(Classes))
}

func (s *Scene) validatePartitions(brokers map[int]bool) error {
	if err := count("partitions", len(s.Partitions), MaxPartitions); err != nil {
		return err
	}
	names := map[string]bool{}
	total := 0
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if p.Name == "" || len(p.Name) > MaxName {
			return fmt.Errorf("scene: partitions[%d]: name empty or longer than %d bytes", i, MaxName)
		}
		if names[p.Name] {
			return fmt.Errorf("scene: partitions[%d]: duplicate name %q", i, p.Name)
		}
		names[p.Name] = true
		if len(p.Replicas) > MaxReplicas { // (not count: its name would be built for every partition)
			return count("partition "+p.Name+" replicas", len(p.Replicas), MaxReplicas)
		}
		for _, r := range p.Replicas {
			if !brokers[r.Broker] {
				return fmt.Errorf("scene: partition %s: replica on unknown broker %d", p.Name, r.Broker)
			}
			if len(r.Cells) > MaxCells {
				return fmt.Errorf("scene: partition %s broker %d: %d cells, at most %d", p.Name, r.Broker, len(r.Cells), MaxCells)
			}
			total += len(r.Cells)
			for j := 1; j < len(r.Cells); j++ {
				if r.Cells[j].Offset <= r.Cells[j-1].Offset {
					return fmt.Errorf("scene: partition %s broker %d: cells not ascending at offset %d", p.Name, r.Broker, r.Cells[j].Offset)
				}
			}
		}
	}
	if total > MaxTotalCells {
		return fmt.Errorf("scene: %d cells in all, at most %d", total, MaxTotalCells)
	}
	return nil
}

func count(what string, n, max int) error {
	if n > max {
		return fmt.Errorf("scene: %d %s, at most %d", n, what, max)
	}
	return nil
}

func name(what, s string) error {
	if len(s) > MaxName {
		return fmt.Errorf("scene: %s %.20q... longer than %d bytes", what, s, MaxName)
	}
	return nil
}

func client(seen map[string]bool, n string) error {
	if n == "" {
		return fmt.Errorf("scene: a client without a name")
	}
	if err := name("client", n); err != nil {
		return err
	}
	if seen[n] {
		return fmt.Errorf("scene: duplicate client name %q", n)
	}
	seen[n] = true
	return nil
}
