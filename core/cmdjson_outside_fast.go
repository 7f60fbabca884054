package core

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
	"github.com/kafkasim/kafkasim/core/log"
)

// A hand-written encoder for the outside commands a real client sends
// all the time: OpenConn, CloseConn and a BrokerRequest carrying a
// Produce or a Fetch (or no body). It writes exactly the bytes
// encodeCommand writes through encoding/json (fields in declaration
// order by their JSON names, omitempty fields left out when empty, a
// nil slice as null, strings escaped as encoding/json does without HTML
// escaping), in one pass and without reflection: a 200-record Produce
// request is most of what a room's history costs a real client.
// Anything else, and a string or list past a limit, goes to the
// reflective encoder, which also names what is wrong. TestFastEncodeFields keeps
// the field lists below in step with the types; TestFastEncodeMatches
// and FuzzFastEncode compare the two encoders.

// outsideEnc is one fast encoding: the output so far, whether strings
// are written as Latin-1 (bytes), and whether the fast path gave up.
type outsideEnc struct {
	buf    []byte
	lim    strictjson.Limits
	latin1 bool
	// invalid: a string is not UTF-8 (not latin1 yet): start again as
	// bytes. fail: give up, the reflective encoder decides.
	invalid, fail bool
}

// fastEncodeOutside is EncodeOutsideCommand's fast path: ok false when
// cmd is not a shape it knows or breaks a limit of strictjson.Check's
// (a string or a list too long), and the reflective encoder runs
// instead (and names the field). When ok, data and bytes are what the
// reflective encoder gives, or err is its error for JSON longer than
// lim.Bytes (a 1 MB batch of small records is more as JSON): the same
// sentence, without encoding it all a second time.
func fastEncodeOutside(cmd Command, lim strictjson.Limits) (data []byte, bytes, ok bool, err error) {
	e := outsideEnc{lim: lim, buf: make([]byte, 0, sizeHint(cmd))}
	if !e.command(cmd) {
		return nil, false, false, nil
	}
	if e.invalid {
		e = outsideEnc{lim: lim, latin1: true, buf: e.buf[:0]}
		if !e.command(cmd) || e.invalid {
			return nil, false, false, nil
		}
	}
	if e.fail {
		return nil, false, false, nil
	}
	if len(e.buf) > lim.Bytes {
		return nil, e.latin1, true, fmt.Errorf("cannot encode %s: it is %d bytes as JSON, more than the limit of %d", cmd.Kind(), len(e.buf), lim.Bytes)
	}
	return e.buf, e.latin1, true, nil
}

// sizeHint is about the length of cmd's JSON: a Produce request's
// strings plus what each record adds around them, so that the buffer
// does not grow record by record.
func sizeHint(cmd Command) int {
	n := 256
	pr := produceOf(cmd)
	if pr == nil {
		return n
	}
	for i := range pr.Partitions {
		p := &pr.Partitions[i]
		n += 160 + len(p.Topic)
		if p.Packed != nil && p.Records == nil {
			n += 64*p.Packed.Len() + int(p.Packed.KeyValueBytes())
			continue
		}
		for j := range p.Records {
			r := &p.Records[j]
			n += 48 + len(r.Key) + len(r.Value)
			for _, h := range r.Headers {
				n += 32 + len(h.Key) + len(h.Value)
			}
		}
	}
	return n
}

// command writes cmd; false when it is not a shape this encoder knows.
func (e *outsideEnc) command(cmd Command) bool {
	switch x := cmd.(type) {
	case OpenConn:
		e.openConn(x)
	case *OpenConn:
		if x == nil {
			return false
		}
		e.openConn(*x)
	case CloseConn:
		e.closeConn(x)
	case *CloseConn:
		if x == nil {
			return false
		}
		e.closeConn(*x)
	case BrokerRequest:
		return e.request(&x)
	case *BrokerRequest:
		return x != nil && e.request(x)
	default:
		return false
	}
	return true
}

func (e *outsideEnc) openConn(x OpenConn) {
	e.buf = append(e.buf, `{"type":"conn_open","conn":`...)
	e.str(x.Conn)
	if x.Host != "" {
		e.buf = append(e.buf, `,"host":`...)
		e.str(x.Host)
	}
	e.buf = append(e.buf, `,"broker":`...)
	e.buf = strconv.AppendInt(e.buf, int64(x.Broker), 10)
	e.buf = append(e.buf, '}')
}

func (e *outsideEnc) closeConn(x CloseConn) {
	e.buf = append(e.buf, `{"type":"conn_close","conn":`...)
	e.str(x.Conn)
	e.buf = append(e.buf, '}')
}

// request writes x when its only body (if any) is a Produce or a Fetch.
func (e *outsideEnc) request(x *BrokerRequest) bool {
	rest := *x
	rest.Conn, rest.Correlation, rest.Label, rest.Produce, rest.Fetch = "", 0, "", nil, nil
	if rest != (BrokerRequest{}) {
		return false // another API's body: the reflective encoder's
	}
	e.buf = append(e.buf, `{"type":"request","conn":`...)
	e.str(x.Conn)
	e.buf = append(e.buf, `,"correlation":`...)
	e.buf = strconv.AppendInt(e.buf, int64(x.Correlation), 10)
	if x.Label != "" {
		e.buf = append(e.buf, `,"label":`...)
		e.str(x.Label)
	}
	if x.Produce != nil {
		e.buf = append(e.buf, `,"produce":`...)
		e.produce(x.Produce)
	}
	if x.Fetch != nil {
		e.buf = append(e.buf, `,"fetch":`...)
		e.fetch(x.Fetch)
	}
	e.buf = append(e.buf, '}')
	return true
}

// items checks a list's length against the limit.
func (e *outsideEnc) items(n int) {
	if n > e.lim.Items {
		e.fail = true
	}
}

func (e *outsideEnc) produce(p *ProduceRequest) {
	e.buf = append(e.buf, `{"acks":`...)
	e.buf = strconv.AppendInt(e.buf, int64(p.Acks), 10)
	e.buf = append(e.buf, `,"timeoutMs":`...)
	e.buf = strconv.AppendInt(e.buf, int64(p.TimeoutMs), 10)
	e.buf = append(e.buf, `,"partitions":`...)
	if p.Partitions == nil {
		e.buf = append(e.buf, `null}`...)
		return
	}
	e.items(len(p.Partitions))
	e.buf = append(e.buf, '[')
	for i := range p.Partitions {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.producePartition(&p.Partitions[i])
		if e.stop() {
			return
		}
	}
	e.buf = append(e.buf, `]}`...)
}

// stop reports whether the pass may end early (its output is dropped).
func (e *outsideEnc) stop() bool { return e.fail || e.invalid }

func (e *outsideEnc) producePartition(p *ProducePartition) {
	e.buf = append(e.buf, `{"topic":`...)
	e.str(p.Topic)
	e.buf = append(e.buf, `,"partition":`...)
	e.buf = strconv.AppendInt(e.buf, int64(p.Partition), 10)
	e.buf = append(e.buf, `,"producerId":`...)
	e.buf = strconv.AppendInt(e.buf, p.ProducerID, 10)
	e.buf = append(e.buf, `,"producerEpoch":`...)
	e.buf = strconv.AppendInt(e.buf, int64(p.ProducerEpoch), 10)
	e.buf = append(e.buf, `,"baseSequence":`...)
	e.buf = strconv.AppendInt(e.buf, int64(p.BaseSequence), 10)
	if p.Timestamp != nil {
		e.buf = append(e.buf, `,"timestamp":`...)
		e.buf = strconv.AppendInt(e.buf, *p.Timestamp, 10)
	}
	e.buf = append(e.buf, `,"records":`...)
	packed := p.Packed != nil && p.Records == nil
	if p.Records == nil && !packed {
		e.buf = append(e.buf, `null}`...)
		return
	}
	n := p.Len()
	e.items(n)
	e.buf = append(e.buf, '[')
	for i := range n {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if packed {
			r := p.Packed.Record(i) // read one at a time: no slice of them all
			e.record(&r)
		} else {
			e.record(&p.Records[i])
		}
		if e.stop() {
			return
		}
	}
	e.buf = append(e.buf, `]}`...)
}

func (e *outsideEnc) record(r *log.Record) {
	e.buf = append(e.buf, '{')
	if r.Key != "" {
		e.buf = append(e.buf, `"key":`...)
		e.str(r.Key)
		e.buf = append(e.buf, ',')
	}
	e.buf = append(e.buf, `"value":`...)
	e.str(r.Value)
	if r.NullValue {
		e.buf = append(e.buf, `,"nullValue":true`...)
	}
	if r.HasKey {
		e.buf = append(e.buf, `,"hasKey":true`...)
	}
	if r.TimestampDelta != 0 {
		e.buf = append(e.buf, `,"timestampDelta":`...)
		e.buf = strconv.AppendInt(e.buf, r.TimestampDelta, 10)
	}
	if len(r.Headers) > 0 {
		e.items(len(r.Headers))
		e.buf = append(e.buf, `,"headers":[`...)
		for i := range r.Headers {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			h := &r.Headers[i]
			e.buf = append(e.buf, `{"key":`...)
			e.str(h.Key)
			if h.Value != "" {
				e.buf = append(e.buf, `,"value":`...)
				e.str(h.Value)
			}
			if h.Null {
				e.buf = append(e.buf, `,"null":true`...)
			}
			e.buf = append(e.buf, '}')
		}
		e.buf = append(e.buf, ']')
	}
	e.buf = append(e.buf, '}')
}

func (e *outsideEnc) fetch(f *FetchRequest) {
	e.buf = append(e.buf, `{"maxWaitMs":`...)
	e.buf = strconv.AppendInt(e.buf, int64(f.MaxWaitMs), 10)
	e.buf = append(e.buf, `,"minBytes":`...)
	e.buf = strconv.AppendInt(e.buf, int64(f.MinBytes), 10)
	e.buf = append(e.buf, `,"maxBytes":`...)
	e.buf = strconv.AppendInt(e.buf, int64(f.MaxBytes), 10)
	if f.ByTopicID {
		e.buf = append(e.buf, `,"byTopicId":true`...)
	}
	e.buf = append(e.buf, `,"partitions":`...)
	if f.Partitions == nil {
		e.buf = append(e.buf, `null}`...)
		return
	}
	e.items(len(f.Partitions))
	e.buf = append(e.buf, '[')
	for i := range f.Partitions {
		p := &f.Partitions[i]
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, `{"topic":`...)
		e.str(p.Topic)
		e.buf = append(e.buf, `,"partition":`...)
		e.buf = strconv.AppendInt(e.buf, int64(p.Partition), 10)
		e.buf = append(e.buf, `,"fetchOffset":`...)
		e.buf = strconv.AppendInt(e.buf, p.FetchOffset, 10)
		e.buf = append(e.buf, `,"currentLeaderEpoch":`...)
		e.buf = strconv.AppendInt(e.buf, int64(p.CurrentLeaderEpoch), 10)
		e.buf = append(e.buf, `,"partitionMaxBytes":`...)
		e.buf = strconv.AppendInt(e.buf, int64(p.PartitionMaxBytes), 10)
		if p.TopicID != ([16]byte{}) {
			e.buf = append(e.buf, `,"topicId":[`...)
			for j, b := range p.TopicID {
				if j > 0 {
					e.buf = append(e.buf, ',')
				}
				e.buf = strconv.AppendUint(e.buf, uint64(b), 10)
			}
			e.buf = append(e.buf, ']')
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, `]}`...)
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are
// (without HTML escaping): all but the controls, '"' and '\\'. DEL is
// written as it is.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

const lowerHex = "0123456789abcdef"

// str writes s as a JSON string exactly as encoding/json does (no HTML
// escaping; U+2028 and U+2029 escaped), or as Latin-1 (each byte the
// character U+0000-U+00FF, as toLatin1) when e.latin1. It checks the
// string limit on the string as the reflective encoder's Check sees it
// (after toLatin1), and sets invalid on a string that is not UTF-8.
func (e *outsideEnc) str(s string) {
	if e.latin1 {
		e.latin1Str(s)
		return
	}
	if len(s) > e.lim.String {
		e.fail = true
		return
	}
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainASCII8(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
			continue
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			e.buf = append(e.buf, s[start:i]...)
			e.buf = appendEscape(e.buf, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			e.invalid = true // Check would refuse it: written as bytes
			return
		}
		if c == '\u2028' || c == '\u2029' {
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, '\\', 'u', '2', '0', '2', lowerHex[c&0xF])
			start = i + size
		}
		i += size
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

// plainASCII8 reports whether the 8 bytes of x are all jsonSafe:
// none is a control (below 0x20), '"', '\\' or 0x80 or more. (The
// test for a zero byte, (v-0x01..)&^v&0x80..., has no false negatives;
// a false positive only sends str byte by byte.)
func plainASCII8(x uint64) bool {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(0x22*lsb), x^(0x5C*lsb)
	bad := (x-0x20*lsb)&^x | (q-lsb)&^q | (bs-lsb)&^bs | x
	return bad&msb == 0
}

// appendEscape writes the escape encoding/json writes for the ASCII
// byte b that is not jsonSafe.
func appendEscape(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', lowerHex[b>>4], lowerHex[b&0xF])
}

// latin1Str writes toLatin1(s) as encoding/json does: each byte of 0x80
// or more becomes that character's two UTF-8 bytes (none of U+0080 to
// U+00FF is escaped), ASCII as in str.
func (e *outsideEnc) latin1Str(s string) {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n++
		}
	}
	if n > e.lim.String {
		e.fail = true
		return
	}
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= utf8.RuneSelf:
			e.buf = append(e.buf, 0xC0|b>>6, 0x80|b&0x3F)
		case jsonSafe[b]:
			e.buf = append(e.buf, b)
		default:
			e.buf = appendEscape(e.buf, b)
		}
	}
	e.buf = append(e.buf, '"')
}
