package kafka

import (
	"sort"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// versionRange is the versions of one API a listener accepts, min to
// max, and advertises, listed to max. listed is min except for Produce
// (produceListedMin).
type versionRange struct{ min, max, listed int16 }

// produceListedMin is the oldest Produce version ApiVersions lists on
// every preset, below what the handler accepts (v3, record batch v2).
// Kafka lists Produce from v0 before 4.0 and, from 4.0, lists v0 while
// refusing v0-v2 requests (KAFKA-18659, apache/kafka#18727: ApiKeys
// .PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION in toApiVersionForApiResponse,
// while isVersionEnabled keeps the schema's v3, so SocketServer's
// parseRequestHeader throws and the connection closes). It does so for
// librdkafka before 2.11.1, which compresses with gzip, snappy or lz4
// only if the broker's Produce range holds v0 (rd_kafka_msgset_writer
// _select_MsgVersion; librdkafka issue #4956, fixed by #5130) and
// otherwise sends its batches uncompressed. Before 4.0 Kafka takes v0-v2 requests and their
// message formats v0 and v1, converting them; this listener speaks only
// record batch v2 and refuses them on every preset as 4.0 does, by the
// version table (the connection closes).
const produceListedMin = 0

// versionTable is what ApiVersions advertises for the cluster's preset:
// for each API both a handler here implements and the preset's Kafka
// release had, the versions in both ranges. An API the release did not
// have, or whose versions there the handler does not speak, is absent,
// and a request for it is refused as that broker would refuse it.
type versionTable map[int16]versionRange

// release is the Kafka release whose ApiVersions a preset advertises,
// from franz-go's kversion (each release's ApiKeys maxima, taken from
// Kafka's message schemas' validVersions). The 0.8 preset advertises
// 0.11.0's: 0.8 brokers had no ApiVersions and no record batch v2,
// which is the oldest protocol this listener speaks. nil (a preset this
// table does not know): every range the handlers implement.
func release(preset string) *kversion.Versions {
	switch preset {
	case "0.8", "0.11":
		return kversion.V0_11_0()
	case "2.8":
		return kversion.V2_8_0()
	case "3.9":
		return kversion.V3_9_0()
	case "4.0":
		return kversion.V4_0_0()
	}
	return nil
}

// kip896Min are the minimum versions Kafka 4.0 raised (KIP-896 removed
// the versions older than the 2.1 baseline), for the APIs served here;
// before 4.0 every API starts at v0. Kafka 4.0 still has Metadata v0-v3
// (kept for librdkafka), so it is not here; for Produce see
// produceListedMin. JoinGroup v0-v1, removed in 4.0.0, are back from
// 4.0.1 (KAFKA-19444, apache/kafka#20116, for librdkafka before 2.11,
// whose features SASL GSSAPI and BrokerBalancedConsumer need JoinGroup
// v0): the 4.0 preset names no patch release and follows the newest.
var kip896Min = map[int16]int16{
	1:  4, // Fetch
	2:  1, // ListOffsets
	8:  2, // OffsetCommit
	9:  1, // OffsetFetch
	19: 2, // CreateTopics
	20: 1, // DeleteTopics
	23: 2, // OffsetForLeaderEpoch
	32: 1, // DescribeConfigs
}

// tableFor builds the version table of a preset.
func tableFor(preset string) versionTable {
	rel := release(preset)
	t := versionTable{}
	for k, a := range apis {
		r := versionRange{min: a.min, max: a.max}
		if rel != nil {
			max, ok := rel.LookupMaxKeyVersion(k)
			if !ok {
				continue
			}
			r.max = min(r.max, max)
			if preset == "4.0" {
				r.min = max16(r.min, kip896Min[k])
			}
		}
		r.listed = r.min
		if k == 0 {
			r.listed = produceListedMin
		}
		if r.min <= r.max && !(preset == "0.8" && k == deleteRecordsKey) {
			t[k] = r
		}
	}
	return t
}

// deleteRecordsKey is DeleteRecords, which the 0.8 preset does not
// advertise though 0.11's table has it: it moves log start offsets,
// which 0.8's followers do not take from their leader (KIP-107 came in
// 0.11 with the API), so its answer would wait for them forever.
const deleteRecordsKey = 21

func max16(a, b int16) int16 {
	if a > b {
		return a
	}
	return b
}

// setVersions follows the cluster's preset.
func (s *Server) setVersions(c *core.Cluster) {
	t := tableFor(c.Version())
	s.versions.Store(&t)
}

// versionsNow is the table in effect (every handler's full range before
// Start has seen the cluster).
func (s *Server) versionsNow() versionTable {
	if t := s.versions.Load(); t != nil {
		return *t
	}
	return tableFor("")
}

// apiVersionsResponse lists t in key order.
func apiVersionsResponse(t versionTable, version int16, errCode int16) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	resp.ErrorCode = errCode
	keys := make([]int, 0, len(t))
	for k := range t {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		r := t[int16(k)]
		resp.ApiKeys = append(resp.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: int16(k), MinVersion: r.listed, MaxVersion: r.max})
	}
	return resp
}
