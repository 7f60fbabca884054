package kafka

// Produce (key 0), v3-v12 (record batch v2, 0.11+ clients).
// ApiVersions lists it from v0, as Kafka does (produceListedMin in
// versions.go); a v0-v2 request closes the connection.
//
// Each partition's records must be exactly one v2 batch, zstd only from
// v7 (Kafka's ProduceRequest.validateRecords, which KafkaApis runs
// first: INVALID_RECORD, UNSUPPORTED_COMPRESSION_TYPE), CRC-checked
// and decompressed here (none, gzip, snappy raw or xerial, lz4, zstd;
// a CRC or codec fault is CORRUPT_MESSAGE); the records enter
// the core's log uncompressed and packed (log.Packed: no Record per
// record), and the batch's own bytes are kept for Fetch to serve back as
// they came (wirebatch.go). The core appends on
// the leader and, for acks=all, answers only once the ISR has the batch
// in simulated time; acks=0 gets no response at all (a failed append
// closes the connection, as Kafka does so the producer notices). Record
// headers and per-record timestamps are kept: each record's CreateTime
// is the batch's first timestamp plus its delta, on the brokers' clock
// (clock.go); a topic with message.timestamp.type=LogAppendTime stamps
// the leader's clock as the batch's max timestamp, which every record
// then reads as, and the response carries it (LogAppendTime, -1
// otherwise). From v10 (KIP-951) a partition answered
// NOT_LEADER_OR_FOLLOWER carries the leader the broker knows of and the
// response that broker's endpoint, so the producer moves at once.
// v11 (3.8, KIP-890) only allows TRANSACTION_ABORTABLE and v12 (4.0)
// lets a transactional producer skip AddPartitionsToTxn: with
// transactions not simulated both are v10. Transactional batches are
// refused (INVALID_RECORD): transactions are not simulated; so are
// control batches (LogValidator.validateBatch: clients may not write
// them) and, unlike Kafka, a client's batch with the delete-horizon bit
// (only the log cleaner sets it).

import (
	"encoding/binary"
	"errors"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(0, 3, 12, handleProduce) }

// validateRecords is ProduceRequest.validateRecords, which KafkaApis runs
// on each partition's records before anything reads them (the CRC and
// the records are LogValidator's, later): from v3 exactly one batch, its
// magic 2, and no zstd below v7 (KIP-110), checked on the first batch's
// header in that order. It returns the partition's error code, 0 when
// the records pass. Like Kafka's batch iterator, bytes too few for a
// batch header (17) are no batch.
func validateRecords(version int16, records []byte) int16 {
	const headerUpToMagic = 17 // Records.HEADER_SIZE_UP_TO_MAGIC
	if len(records) < headerUpToMagic {
		return 87 // INVALID_RECORD: at least one record batch per partition
	}
	if records[16] != 2 {
		return 87 // INVALID_RECORD: magic 2 from v3
	}
	if len(records) > 22 && records[22]&7 == codecZstd && version < 7 {
		return 76 // UNSUPPORTED_COMPRESSION_TYPE
	}
	if length := int64(int32(binary.BigEndian.Uint32(records[8:]))); length >= 0 && int64(len(records))-12-length >= headerUpToMagic {
		return 87 // INVALID_RECORD: exactly one record batch per partition
	}
	return 0
}

func handleProduce(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ProduceRequest)
	pr := &core.ProduceRequest{Acks: req.Acks, TimeoutMs: req.TimeoutMillis}
	type slot struct {
		topic string
		part  int32
		err   int16 // decided here; else the core's answer at idx
		idx   int
	}
	var slots [][]slot
	for _, t := range req.Topics {
		var ts []slot
		for _, p := range t.Partitions {
			s := slot{topic: t.Topic, part: p.Partition, idx: -1}
			var batches []wireBatch
			var err error
			if s.err = validateRecords(req.Version, p.Records); s.err == 0 && req.TransactionID == nil {
				batches, err = decodeBatches(p.Records)
			}
			switch {
			case s.err != 0:
			case req.TransactionID != nil:
				s.err = 53 // TRANSACTIONAL_ID_AUTHORIZATION_FAILED: no transactions here
			case errors.Is(err, errFormat):
				s.err = 87 // INVALID_RECORD: ProduceRequest.validateRecords wants magic 2 from v3
			case errors.Is(err, errInvalid):
				s.err = 87 // INVALID_RECORD: a control, transactional or delete-horizon batch
			case err != nil:
				s.err = 2 // CORRUPT_MESSAGE
			case len(batches) != 1:
				s.err = 87 // INVALID_RECORD
			default:
				b := batches[0]
				ts := cx.s.clock.toCore(b.Timestamp)
				s.idx = len(pr.Partitions)
				pr.Partitions = append(pr.Partitions, core.ProducePartition{Topic: t.Topic, Partition: p.Partition,
					ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence,
					Timestamp: &ts, Packed: b.Packed})
			}
			ts = append(ts, s)
		}
		slots = append(slots, ts)
	}
	// One producer id per request (the core checks it); a request mixing
	// them is malformed.
	for _, p := range pr.Partitions {
		if p.ProducerID != pr.Partitions[0].ProducerID {
			return nil, errors.New("Produce: batches of several producer ids in one request")
		}
	}
	return &plan{req: core.BrokerRequest{Produce: pr}, noReply: req.Acks == 0, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for ti, ts := range slots {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic = req.Topics[ti].Topic
			for _, s := range ts {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.BaseOffset, rp.LogStartOffset, rp.LogAppendTime = s.part, -1, -1, -1
				rp.ErrorCode = s.err
				if s.idx >= 0 && rep.Produce != nil && s.idx < len(rep.Produce.Partitions) {
					a := rep.Produce.Partitions[s.idx]
					rp.ErrorCode, rp.BaseOffset, rp.LogStartOffset = errCode(a.Error), a.BaseOffset, a.LogStartOffset
					if a.LogAppendTime >= 0 {
						rp.LogAppendTime = cx.s.clock.toClient(a.LogAppendTime)
					}
					if a.Leader != nil && req.Version >= 10 {
						rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = int32(a.Leader.LeaderID), a.Leader.LeaderEpoch
						resp.Brokers = appendLeaderEndpoint(cx.s, resp.Brokers, a.Leader)
					}
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}}, nil
}
