package kafka

// Produce (key 0), v3-v10 (record batch v2, 0.11+ clients).
//
// Each partition's records must be exactly one v2 batch (Kafka's
// LogValidator: INVALID_RECORD otherwise), CRC-checked and decompressed
// here (none, gzip, snappy raw or xerial, lz4, zstd); the records enter
// the core's log uncompressed. The core appends on the leader and, for
// acks=all, answers only once the ISR has the batch in simulated time;
// acks=0 gets no response at all (a failed append closes the connection,
// as Kafka does so the producer notices). Record headers and per-record
// timestamps are not kept by the simulated log: a consumer reads the
// records back without headers, stamped with the broker's append time.
// Transactional batches are refused (INVALID_RECORD): transactions are
// not simulated.

import (
	"errors"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(0, 3, 10, handleProduce) }

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
			batches, err := decodeBatches(p.Records)
			switch {
			case req.TransactionID != nil:
				s.err = 53 // TRANSACTIONAL_ID_AUTHORIZATION_FAILED: no transactions here
			case errors.Is(err, errFormat):
				s.err = 43 // UNSUPPORTED_FOR_MESSAGE_FORMAT
			case err != nil:
				s.err = 2 // CORRUPT_MESSAGE
			case len(batches) != 1:
				s.err = 87 // INVALID_RECORD
			default:
				b := batches[0]
				recs := make([]log.Record, len(b.Records))
				for i, wr := range b.Records {
					recs[i] = log.Record{Key: string(wr.Key), HasKey: wr.Key != nil, Value: string(wr.Value)}
				}
				s.idx = len(pr.Partitions)
				pr.Partitions = append(pr.Partitions, core.ProducePartition{Topic: t.Topic, Partition: p.Partition,
					ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, Records: recs})
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
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}}, nil
}
