// Package kafkawire is the Kafka wire protocol as tests speak it when no
// client library may hide what goes over the socket: a request frame
// built by hand (header v1: no tagged fields, so only non-flexible
// request versions), one response frame read back, and a one-shot
// Metadata for tests that check what the listeners advertise. Tests in
// server/kafka and cmd/kafkasim share it; nothing else should import it.
package kafkawire

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// MaxResponse bounds the response frames ReadResponse accepts.
const MaxResponse = 64 << 20

// Frame is a size-prefixed request: request header v1 (API key, version,
// correlation id, client id "test") and body as it is.
func Frame(key, version int16, corr int32, body []byte) []byte {
	h := binary.BigEndian.AppendUint16(nil, uint16(key))
	h = binary.BigEndian.AppendUint16(h, uint16(version))
	h = binary.BigEndian.AppendUint32(h, uint32(corr))
	h = binary.BigEndian.AppendUint16(h, 4)
	h = append(h, "test"...)
	h = append(h, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(h))), h...)
}

// ReadResponse reads one response frame from c within wait: its
// correlation id and the rest (header tags, if flexible, then the body).
func ReadResponse(c net.Conn, wait time.Duration) (int32, []byte, error) {
	c.SetReadDeadline(time.Now().Add(wait))
	var sz [4]byte
	if _, err := io.ReadFull(c, sz[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(sz[:])
	if n < 4 || n > MaxResponse {
		return 0, nil, fmt.Errorf("response frame of %d bytes", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c, buf); err != nil {
		return 0, nil, err
	}
	return int32(binary.BigEndian.Uint32(buf)), buf[4:], nil
}

// Metadata asks addr for Metadata v1 (all topics) on a connection of its
// own and decodes the answer.
func Metadata(addr string) (*kmsg.MetadataResponse, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 1
	if _, err := c.Write(Frame(3, 1, 9, req.AppendTo(nil))); err != nil {
		return nil, err
	}
	_, buf, err := ReadResponse(c, 5*time.Second)
	if err != nil {
		return nil, err
	}
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 1
	if err := resp.ReadFrom(buf); err != nil {
		return nil, err
	}
	return resp, nil
}
