package kafka

import "github.com/twmb/franz-go/pkg/kerr"

// errCodes maps the core's error names (Kafka's Errors enum names) to
// wire codes, from franz-go's kerr table, plus the names Kafka renamed
// since (NOT_LEADER_FOR_PARTITION became NOT_LEADER_OR_FOLLOWER in 2.6).
var errCodes = func() map[string]int16 {
	m := map[string]int16{"": 0, "NOT_LEADER_OR_FOLLOWER": 6, "TIMEOUT": 7}
	for code := int16(-1); code < 200; code++ {
		if e := kerr.TypedErrorForCode(code); e != nil && e != kerr.UnknownServerError {
			m[e.Message] = code
		}
	}
	return m
}()

// errCode is the wire code for a core error name; a name the table lacks
// is UNKNOWN_SERVER_ERROR (-1), never a silent success.
func errCode(name string) int16 {
	if c, ok := errCodes[name]; ok {
		return c
	}
	return -1
}
