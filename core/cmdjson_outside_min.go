package core

// minRecordJSON is the least JSON one record of a Produce request adds
// besides its key's and value's bytes: `{"value":""}` (the encoder
// writes a key, hasKey, a timestamp delta and headers only when set, and
// a string's JSON is never shorter than its bytes: escapes lengthen it,
// a Latin-1 `outside bytes` string writes each byte as one character).
const minRecordJSON = len(`{"value":""}`)

// MinOutsideJSON is a lower bound of the length of cmd's JSON as
// EncodeOutsideCommand writes it, found without encoding it: for a
// Produce request its records' keys and values plus minRecordJSON a
// record (O(1) a packed batch: log.Packed.KeyValueBytes); 0 for other
// commands. The JSON is never shorter. A caller that wants the JSON only
// when it is within MaxOutsideCommandBytes (a room's history) can skip a
// request this already puts past it: encoding the first produce request
// of franz-go's 50,000 buffered records, 2 MB as JSON, only to learn it
// is too long took a served room's one goroutine 7.5 ms on an idle
// machine and 60 ms on a loaded one, while every client and watcher of
// the room waited.
func MinOutsideJSON(cmd Command) int {
	pr := produceOf(cmd)
	if pr == nil {
		return 0
	}
	n := 0
	for i := range pr.Partitions {
		p := &pr.Partitions[i]
		if p.Packed != nil && p.Records == nil {
			n += int(p.Packed.KeyValueBytes()) + minRecordJSON*p.Packed.Len()
			continue
		}
		for j := range p.Records {
			n += len(p.Records[j].Key) + len(p.Records[j].Value) + minRecordJSON
		}
	}
	return n
}

// produceOf is cmd's Produce request if cmd is an outside client's
// BrokerRequest carrying one (by value or pointer), else nil.
func produceOf(cmd Command) *ProduceRequest {
	var x *BrokerRequest
	switch c := cmd.(type) {
	case BrokerRequest:
		x = &c
	case *BrokerRequest:
		x = c
	}
	if x == nil {
		return nil
	}
	return x.Produce
}
