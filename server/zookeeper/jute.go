package zookeeper

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core"
)

// Jute is ZooKeeper's serialization: big-endian int (4 bytes), long (8),
// boolean (1), buffer and ustring (int length, -1 for null, then the
// bytes), vector (int count, -1 for null, then the items), records as
// their fields in order. Every frame on the wire is an int length and
// that many bytes.

// Limits of the decoder.
const (
	// MaxFrame is the largest frame accepted (jute.maxbuffer's default,
	// 0xfffff); a longer one closes the connection, as the server does.
	MaxFrame = 0xfffff
	// maxVector bounds a vector's items (the frame bounds their bytes).
	maxVector = 100_000
)

var errShort = errors.New("frame too short")

// decoder reads jute fields from one frame. The first error sticks: every
// later read returns a zero value, so callers check err once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail(errShort)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) int32() int32 {
	if v := d.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (d *decoder) int64() int64 {
	if v := d.take(8); v != nil {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

func (d *decoder) bool() bool {
	if v := d.take(1); v != nil {
		return v[0] != 0
	}
	return false
}

// buffer reads a buffer; null (-1) reads as nil.
func (d *decoder) buffer() []byte {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < 0 {
		d.fail(fmt.Errorf("negative length %d", n))
		return nil
	}
	return d.take(int(n))
}

// ustring reads a UTF-8 string; null reads as "".
func (d *decoder) ustring() string {
	b := d.buffer()
	if d.err == nil && !utf8.Valid(b) {
		d.fail(errors.New("string is not UTF-8"))
	}
	return string(b)
}

// strings reads a vector of ustrings; null reads as nil.
func (d *decoder) strings() []string {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < 0 || n > maxVector || int(n)*4 > len(d.b) {
		d.fail(fmt.Errorf("bad vector length %d", n))
		return nil
	}
	out := make([]string, 0, n)
	for i := int32(0); i < n && d.err == nil; i++ {
		out = append(out, d.ustring())
	}
	return out
}

// encoder appends jute fields to a frame whose length it fills in last.
type encoder struct{ b []byte }

func newFrame() *encoder { return &encoder{b: make([]byte, 4, 64)} }

func (e *encoder) int32(v int32) *encoder {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(v))
	return e
}

func (e *encoder) int64(v int64) *encoder {
	e.b = binary.BigEndian.AppendUint64(e.b, uint64(v))
	return e
}

func (e *encoder) bool(v bool) *encoder {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
	return e
}

func (e *encoder) buffer(v []byte) *encoder {
	if v == nil {
		return e.int32(-1)
	}
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
	return e
}

func (e *encoder) ustring(s string) *encoder {
	e.int32(int32(len(s)))
	e.b = append(e.b, s...)
	return e
}

func (e *encoder) strings(v []string) *encoder {
	e.int32(int32(len(v)))
	for _, s := range v {
		e.ustring(s)
	}
	return e
}

// stat writes a Stat record.
func (e *encoder) stat(s core.ZKStat) *encoder {
	return e.int64(s.Czxid).int64(s.Mzxid).int64(s.Ctime).int64(s.Mtime).
		int32(s.Version).int32(s.Cversion).int32(s.Aversion).int64(s.EphemeralOwner).
		int32(s.DataLength).int32(s.NumChildren).int64(s.Pzxid)
}

// done fills in the frame's length and returns it.
func (e *encoder) done() []byte {
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	return e.b
}
