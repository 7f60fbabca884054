package core

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// A cluster restored from disk (RestoreTopics) as commands: the server's
// --data-dir reads each broker's log directory into []RestoredTopic, and
// for a served room's history to replay that restore (a page following
// the room, an exported .ksim under `kafkasim run`), the topics travel as
// RestoreChunk commands: the whole []RestoredTopic encoded once
// (EncodeRestore), cut into parts of at most MaxRestoreChunkBytes, applied
// in order at one instant. The last part hands exactly the same topics to
// RestoreTopics, so the copy holds the room's logs, epochs, ISRs and
// producer ids byte for byte and from there runs as the room does.

// Limits of a restore in command form.
const (
	// MaxRestoreChunkBytes bounds one part's Data (base64 text): a
	// scenario line (at most 64 KB) holds it with room to spare.
	MaxRestoreChunkBytes = 48 << 10
	// MaxRestoreParts bounds the parts of one restore.
	MaxRestoreParts = 4096
	// MaxRestoreBytes bounds the decoded topics (the JSON the parts
	// inflate to): what a page must hold in memory to redo the restore.
	MaxRestoreBytes = 64 << 20
)

// restoreFormat is the version of the encoding (the first JSON member).
const restoreFormat = 1

// RestoreChunk is part Part of Of of a restore: Data is a piece of
// EncodeRestore's text (base64 of the deflated JSON of the topics, every
// string written byte for byte as U+0000-U+00FF so that a record's bytes
// come back exactly). Parts 1 to Of must come in order, with no other
// restore's parts between; the last restores the topics (RestoreTopics,
// with its rules and errors). Part 1 starts a new restore, forgetting one
// left unfinished. A part out of order, a bad size or text that does not
// decode is an error and changes nothing.
type RestoreChunk struct {
	Part int    `json:"part"`
	Of   int    `json:"of"`
	Data string `json:"data"`
}

func (RestoreChunk) Kind() string     { return "restore" }
func (x RestoreChunk) clone() Command { return x }

// restoreBuf is a restore whose parts are coming.
type restoreBuf struct {
	of, next int // parts in all; the one expected next
	data     []byte
}

func (x RestoreChunk) applyConn(c *Cluster) error {
	switch {
	case x.Of < 1 || x.Of > MaxRestoreParts:
		return fmt.Errorf("restore: %d parts: want 1 to %d", x.Of, MaxRestoreParts)
	case x.Part < 1 || x.Part > x.Of:
		return fmt.Errorf("restore: part %d of %d", x.Part, x.Of)
	case len(x.Data) == 0 || len(x.Data) > MaxRestoreChunkBytes:
		return fmt.Errorf("restore: part %d has %d bytes of data: want 1 to %d", x.Part, len(x.Data), MaxRestoreChunkBytes)
	}
	for i := 0; i < len(x.Data); i++ {
		if !isBase64(x.Data[i]) {
			return fmt.Errorf("restore: part %d: %q at byte %d is not base64", x.Part, x.Data[i], i)
		}
	}
	b := c.restoring
	if x.Part == 1 {
		b = &restoreBuf{of: x.Of, next: 1}
	} else if b == nil || b.of != x.Of || b.next != x.Part {
		want := "part 1"
		if b != nil {
			want = fmt.Sprintf("part %d of %d", b.next, b.of)
		}
		return fmt.Errorf("restore: part %d of %d came where %s was expected", x.Part, x.Of, want)
	}
	if x.Part < x.Of {
		b.data = append(b.data, x.Data...)
		b.next++
		c.restoring = b
		return nil
	}
	c.restoring = nil
	ts, err := DecodeRestore(string(b.data) + x.Data)
	if err != nil {
		return err
	}
	return c.RestoreTopics(ts)
}

func isBase64(ch byte) bool {
	return ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '+' || ch == '/' || ch == '='
}

// restoreDoc is the encoded form.
type restoreDoc struct {
	Format int             `json:"format"`
	Topics []RestoredTopic `json:"topics"`
}

// EncodeRestore encodes topics as the RestoreChunk commands that restore
// them, each Data at most MaxRestoreChunkBytes. The encoding is a pure
// function of ts. It fails past MaxRestoreBytes or MaxRestoreParts.
func EncodeRestore(ts []RestoredTopic) ([]RestoreChunk, error) {
	m, err := mapStrings(reflect.ValueOf(ts), func(s string) (string, error) { return toLatin1(s), nil })
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(restoreDoc{Format: restoreFormat, Topics: m.Interface().([]RestoredTopic)})
	if err != nil {
		return nil, fmt.Errorf("restore: %v", err)
	}
	if len(js) > MaxRestoreBytes {
		return nil, fmt.Errorf("restore: the topics are %d bytes encoded, more than %d", len(js), MaxRestoreBytes)
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(js)
	w.Close()
	text := base64.StdEncoding.EncodeToString(z.Bytes())
	n := (len(text) + MaxRestoreChunkBytes - 1) / MaxRestoreChunkBytes
	if n > MaxRestoreParts {
		return nil, fmt.Errorf("restore: the topics need %d parts of %d bytes, more than %d", n, MaxRestoreChunkBytes, MaxRestoreParts)
	}
	out := make([]RestoreChunk, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, RestoreChunk{Part: i + 1, Of: n, Data: text[i*MaxRestoreChunkBytes : min(len(text), (i+1)*MaxRestoreChunkBytes)]})
	}
	return out, nil
}

// DecodeRestore reads back what EncodeRestore wrote (the parts' Data
// joined): strictly (unknown members are errors), within MaxRestoreBytes.
func DecodeRestore(text string) ([]RestoredTopic, error) {
	z, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("restore: %v", err)
	}
	js, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), MaxRestoreBytes+1))
	if err != nil {
		return nil, fmt.Errorf("restore: %v", err)
	}
	if len(js) > MaxRestoreBytes {
		return nil, fmt.Errorf("restore: the topics are more than %d bytes decoded", MaxRestoreBytes)
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.DisallowUnknownFields()
	var doc restoreDoc
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("restore: %v", err)
	}
	if d.More() {
		return nil, fmt.Errorf("restore: data after the topics")
	}
	if doc.Format != restoreFormat {
		return nil, fmt.Errorf("restore: format %d, this kafkasim reads format %d", doc.Format, restoreFormat)
	}
	m, err := mapStrings(reflect.ValueOf(doc.Topics), fromLatin1)
	if err != nil {
		return nil, fmt.Errorf("restore: %v", err)
	}
	return m.Interface().([]RestoredTopic), nil
}
