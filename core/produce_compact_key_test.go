package core_test

import (
	"strings"
	"testing"
)

// TestCompactedTopicRefusesKeylessRecords: LogValidator.validateKey
// refuses a record without a key to a cleanup.policy=compact topic; the
// producer is answered INVALID_RECORD from 2.4 (KIP-467) and
// CORRUPT_MESSAGE before (0.11's InvalidRecordException is a
// CorruptRecordException); a keyed record is taken.
func TestCompactedTopicRefusesKeylessRecords(t *testing.T) {
	for version, want := range map[string]string{"0.11": "CORRUPT_MESSAGE", "2.8": "INVALID_RECORD", "3.9": "INVALID_RECORD"} {
		trace := traceOf(t, `cluster brokers=1 seed=5 version=`+version+`
topic create cmp partitions=1 rf=1 cleanup.policy=compact
producer p1 acks=all retries=0
produce p1 cmp key=k value=keyed
wait 1s
produce p1 cmp value=nokey
wait 1s
expect log cmp-0 == keyed
`)
		if !strings.Contains(trace, "p1 nokey failed on cmp-0: "+want) {
			t.Errorf("%s: the keyless record was not refused %s:\n%s", version, want, trace)
		}
	}
}
