package core

// OutsideRecords counts the records of real clients (outside connections,
// command_conn.go) since the cluster was made: Produced, the records
// their Produce requests carried to a broker; Acked, those a leader
// appended and answered without error (acks=0 included: the append
// worked); Fetched, the records Fetch responses returned to them. The
// picture's counters add them to its own producers' and consumers'.
type OutsideRecords struct {
	Produced, Acked, Fetched int64
}

// OutsideRecords returns the real clients' record counts.
func (c *Cluster) OutsideRecords() OutsideRecords { return c.ext.records }
