package core

// ListOffsets: what a consumer resetting its position (auto.offset.reset)
// asks the partition leader. Only the two special timestamps are served:
// EARLIEST (-2, the log start offset) and LATEST (-1, the high watermark,
// which is what a read_uncommitted consumer gets:
// UnifiedLog.fetchOffsetByTimestamp with isolation level set).

// List offsets timestamps (ListOffsetsRequest.EARLIEST_TIMESTAMP, LATEST_TIMESTAMP).
const (
	listEarliest int64 = -2
	listLatest   int64 = -1
)

// listOffsetsReq is a ListOffsets request from a consumer.
type listOffsetsReq struct {
	parts []listOffsetsPart
}

// listOffsetsPart is one partition of a ListOffsets request.
type listOffsetsPart struct {
	p         *Partition
	timestamp int64 // listEarliest or listLatest
}

// listOffsetsResult is one partition of a ListOffsets response: the offset
// and the leader's epoch, or an error name.
type listOffsetsResult struct {
	p      *Partition
	offset int64
	epoch  int32
	err    string
}

// handleListOffsets is KafkaApis.handleListOffsetRequest on this broker:
// each partition must be led here.
func (b *Broker) handleListOffsets(req listOffsetsReq) []listOffsetsResult {
	out := make([]listOffsetsResult, len(req.parts))
	for i, lp := range req.parts {
		res := listOffsetsResult{p: lp.p, offset: -1, epoch: -1}
		r, err := b.leaderFor(lp.p)
		switch {
		case err != "":
			res.err = err
		case lp.timestamp == listEarliest:
			res.offset, res.epoch = r.log.StartOffset(), r.epoch
		case lp.timestamp == listLatest:
			res.offset, res.epoch = r.hw, r.epoch
		default:
			res.err = "INVALID_REQUEST" // timestamp lookups are not simulated
		}
		out[i] = res
	}
	return out
}
