package core

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core/log"
)

// commitMeta is what an OffsetCommit stores with an offset besides it
// (Kafka's OffsetAndMetadata): the committed metadata and leader epoch.
// The zero value is none of either: metadata "" (NoMetadata) and, with
// hasEpoch false, leader epoch -1 (Optional.empty). A group keeps a
// commitMeta only for offsets committed with one (group.meta).
type commitMeta struct {
	metadata string
	epoch    int32
	hasEpoch bool
}

// leaderEpoch is the epoch as OffsetFetch answers it: -1 when none
// (OffsetFetchResponse.PartitionData: leaderEpoch.orElse(-1)).
func (m commitMeta) leaderEpoch() int32 {
	if !m.hasEpoch {
		return -1
	}
	return m.epoch
}

// metaFromRequest is OffsetAndMetadata.fromRequest's reading of a
// partition's committed metadata and leader epoch: a leader epoch of -1
// (RecordBatch.NO_PARTITION_LEADER_EPOCH) is none, any other is kept as
// sent. The metadata is decoded as Kafka decodes the request's string
// once, when it reads it (UTF-8 with replacement, javaLength): every
// answer, from this coordinator or from the next one reading it back
// from the log, is the same valid UTF-8.
func metaFromRequest(metadata string, epoch *int32) commitMeta {
	m := commitMeta{metadata: validUTF8(metadata)}
	if epoch != nil && *epoch != -1 {
		m.epoch, m.hasEpoch = *epoch, true
	}
	return m
}

// javaLength is s's length as Java's String.length() counts it, in
// UTF-16 code units, which is what offset.metadata.max.bytes bounds
// despite its name (GroupMetadataManager.validateOffsetMetadataLength,
// OffsetMetadataManager.isMetadataInvalid: metadata.length()). Kafka
// decodes the request's bytes as UTF-8 with replacement; each invalid
// byte counts one here, as one U+FFFD.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF && r <= utf8.MaxRune {
			n++ // a surrogate pair
		}
	}
	return n
}

// validUTF8 is s with each byte that is not part of valid UTF-8 replaced
// by U+FFFD, one for each as javaLength counts them and as json.Marshal
// writes them (commitRecord); strings.ToValidUTF8 would make one of a
// run.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as utf8.RuneError
		b.WriteRune(r)
	}
	return b.String()
}

// metadataTooLarge reports whether a commit's metadata is longer than
// offset.metadata.max.bytes allows (OFFSET_METADATA_TOO_LARGE).
func (co *coordinator) metadataTooLarge(metadata string) bool {
	// Bytes bound Java chars from above: most metadata is decided here
	// without counting.
	return len(metadata) > co.b.c.bc.offsetMetadataMax && javaLength(metadata) > co.b.c.bc.offsetMetadataMax
}

// offsetRecord is an offset commit's value in __consumer_offsets when it
// carries metadata or a leader epoch. A commit with neither keeps the
// short form "group/topic-N=offset" (offsetValue), which replay tells
// apart by its first character.
type offsetRecord struct {
	Group       string `json:"group"`
	Partition   string `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch *int32 `json:"leaderEpoch,omitempty"`
	Metadata    string `json:"metadata,omitempty"`
}

// commitRecord is the __consumer_offsets record of one committed offset.
func commitRecord(group string, p *Partition, off int64, m commitMeta) log.Record {
	if m == (commitMeta{}) {
		return log.Record{Key: offsetKey(group, p), Value: offsetValue(group, p, off), HasKey: true}
	}
	or := offsetRecord{Group: group, Partition: p.Name, Offset: off, Metadata: m.metadata}
	if m.hasEpoch {
		e := m.epoch
		or.LeaderEpoch = &e
	}
	data, _ := json.Marshal(or)
	return log.Record{Key: offsetKey(group, p), Value: string(data), HasKey: true}
}

// replayOffsetRecord applies an offsetRecord read back from
// __consumer_offsets, written at ts.
func (co *coordinator) replayOffsetRecord(p *Partition, value string, ts int64) {
	var or offsetRecord
	if json.Unmarshal([]byte(value), &or) != nil {
		return
	}
	tp, err := co.b.c.Partition(or.Partition)
	if err != nil {
		return
	}
	g := co.replayGroup(p, or.Group)
	g.offsets[tp] = or.Offset
	g.committedAt[tp] = ts
	g.setMeta(tp, metaFromRequest(or.Metadata, or.LeaderEpoch))
}

// setMeta keeps m as tp's commitMeta, or forgets it when m is none.
func (g *group) setMeta(tp *Partition, m commitMeta) {
	if m == (commitMeta{}) {
		delete(g.meta, tp)
		return
	}
	if g.meta == nil {
		g.meta = map[*Partition]commitMeta{}
	}
	g.meta[tp] = m
}
