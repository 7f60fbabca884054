package core

import "encoding/json"

// zeroFields lists, per event type, the numeric fields that matter for it
// and so appear in its JSON even when zero (offset 0, epoch 0, a message
// sent at time 0). Others are left out when zero, like every other field.
var zeroFields = map[EventType]struct{ sentAt, deliverAt, offset, endOffset, hw, epoch, generation, leader, leo bool }{
	EvMsgSend:   {sentAt: true, deliverAt: true},
	EvAppend:    {offset: true, endOffset: true, epoch: true},
	EvHW:        {hw: true},
	EvLeader:    {leader: true, epoch: true},
	EvTruncate:  {offset: true, endOffset: true},
	EvLost:      {offset: true, endOffset: true},
	EvRole:      {leader: true, epoch: true, hw: true, leo: true},
	EvFlush:     {offset: true},
	EvRetention: {offset: true},
	EvClean:     {offset: true, endOffset: true},
	EvLogStart:  {offset: true, leader: true},
	EvAck:       {offset: true},
	EvConsume:   {offset: true},
	EvCommit:    {offset: true},
	EvGroup:     {generation: true},
}

// MarshalJSON encodes e with its fields' JSON names; a numeric field that
// matters for e's Type (see zeroFields) is written even when it is zero,
// so a reader never has to guess whether "offset" is missing or 0.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	e.Records = e.RecordList()
	z, ok := zeroFields[e.Type]
	if !ok {
		return json.Marshal(plain(e))
	}
	pick := func(want bool, v int64) *int64 {
		if !want {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		SentAt     *int64 `json:"sentAt,omitempty"`
		DeliverAt  *int64 `json:"deliverAt,omitempty"`
		Offset     *int64 `json:"offset,omitempty"`
		EndOffset  *int64 `json:"endOffset,omitempty"`
		HW         *int64 `json:"hw,omitempty"`
		Epoch      *int64 `json:"epoch,omitempty"`
		Generation *int64 `json:"generation,omitempty"`
		Leader     *int64 `json:"leader,omitempty"`
		LEO        *int64 `json:"leo,omitempty"`
	}{
		plain:      plain(e),
		SentAt:     pick(z.sentAt || e.SentAt != 0, e.SentAt),
		DeliverAt:  pick(z.deliverAt || e.DeliverAt != 0, e.DeliverAt),
		Offset:     pick(z.offset || e.Offset != 0, e.Offset),
		EndOffset:  pick(z.endOffset || e.EndOffset != 0, e.EndOffset),
		HW:         pick(z.hw || e.HW != 0, e.HW),
		Epoch:      pick(z.epoch || e.Epoch != 0, int64(e.Epoch)),
		Generation: pick(z.generation || e.Generation != 0, int64(e.Generation)),
		Leader:     pick(z.leader || e.Leader != 0, int64(e.Leader)),
		LEO:        pick(z.leo || e.LEO != 0, e.LEO),
	})
}
