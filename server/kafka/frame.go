package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Limits of one connection. Kafka's defaults are larger
// (socket.request.max.bytes is 100 MiB); a simulator for learning needs
// far less, and a smaller bound keeps a hostile frame cheap.
const (
	// MaxFrameBytes bounds one request frame (after the 4-byte size).
	MaxFrameBytes = 16 << 20
	// MaxClientIDBytes bounds the client id in a request header.
	MaxClientIDBytes = 1024
)

var errFrameTooLarge = errors.New("frame too large")

// readFrame reads one size-prefixed frame. A negative or oversized size
// is an error: the caller closes the connection, as Kafka's
// NetworkReceive does with InvalidReceiveException.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(r, sz[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(sz[:]))
	if n < 0 || int(n) > max {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", errFrameTooLarge, n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// header is a request header (v0, v1 or v2): v1 adds the client id, v2
// (flexible requests) adds tagged fields after it. The client id stays a
// non-compact nullable string even in v2, for compatibility.
type header struct {
	key      int16
	version  int16
	corr     int32
	clientID string
}

// parseHeader reads the fixed part of the header: key, version,
// correlation id and client id. Tagged fields depend on whether the
// request at that version is flexible, which only the caller knows; it
// then calls skipTags.
func parseHeader(frame []byte) (header, []byte, error) {
	if len(frame) < 8 {
		return header{}, nil, fmt.Errorf("request header truncated: %d bytes", len(frame))
	}
	h := header{
		key:     int16(binary.BigEndian.Uint16(frame[0:])),
		version: int16(binary.BigEndian.Uint16(frame[2:])),
		corr:    int32(binary.BigEndian.Uint32(frame[4:])),
	}
	rest := frame[8:]
	if len(rest) < 2 {
		return h, nil, fmt.Errorf("request header truncated: no client id")
	}
	n := int16(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if n >= 0 {
		if int(n) > len(rest) || int(n) > MaxClientIDBytes {
			return h, nil, fmt.Errorf("client id of %d bytes", n)
		}
		h.clientID = string(rest[:n])
		rest = rest[n:]
	} else if n != -1 {
		return h, nil, fmt.Errorf("client id length %d", n)
	}
	return h, rest, nil
}

// skipTags skips a tagged-field section (KIP-482): an unsigned varint
// count, then per field a tag, a length and the bytes.
func skipTags(b []byte) ([]byte, error) {
	r := kbin.Reader{Src: b}
	for n := r.Uvarint(); n > 0 && r.Ok(); n-- {
		r.Uvarint()
		r.Span(int(r.Uvarint()))
	}
	if !r.Ok() {
		return nil, errors.New("tagged fields truncated")
	}
	return r.Src, nil
}

// appendResponse frames a response: size, correlation id, for flexible
// responses an empty tag section (response header v1), then the body,
// encoded in place (a Fetch response's records are copied once, into
// the frame). ApiVersions' response header is always v0, whatever the
// version, so a client that does not know the broker yet can parse it
// (KIP-511).
func appendResponse(dst []byte, corr int32, flexibleHeader bool, resp kmsg.Response) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, 0) // size, below
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	if flexibleHeader {
		dst = append(dst, 0)
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
