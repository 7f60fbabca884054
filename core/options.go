package core

// Options configures a new cluster (the scenario's `cluster` line).
type Options struct {
	Brokers  int      `json:"brokers"`            // 1..MaxBrokers
	Seed     uint64   `json:"seed"`               // the one PRNG's seed
	Version  string   `json:"version,omitempty"`  // preset: 0.8, 0.11, 2.8, 3.9, 4.0 ("" = DefaultVersion)
	Metadata string   `json:"metadata,omitempty"` // zk or kraft ("" = the preset's default)
	Racks    []string `json:"racks,omitempty"`    // broker.rack per broker, or empty
}
