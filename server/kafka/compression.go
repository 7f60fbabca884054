package kafka

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression codecs: the low three bits of a v2 record batch's attributes.
const (
	codecNone   = 0
	codecGzip   = 1
	codecSnappy = 2
	codecLZ4    = 3
	codecZstd   = 4
)

// maxDecompressed bounds what one batch may inflate to, so a small frame
// cannot claim gigabytes (a decompression bomb gets CORRUPT_MESSAGE).
const maxDecompressed = 64 << 20

var errTooBig = errors.New("decompressed batch over the limit")

var zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecompressed), zstd.WithDecoderConcurrency(1))

// decompress inflates a batch's records section. Except for codecNone
// (src itself), the result is a new buffer the caller owns and that
// nothing else refers to. Snappy comes in two framings: the Java client's
// xerial stream (SnappyOutputStream: a magic header, then length-prefixed
// blocks) and librdkafka's raw block; both are accepted, as Kafka's
// broker does.
func decompress(codec int, src []byte) ([]byte, error) { return decompressInto(codec, nil, src) }

// decompressInto is decompress writing into dst's storage when it has
// room (dst's contents are overwritten), as Kafka's LogValidator
// decompresses through a BufferSupplier that each request handler
// thread reuses; src is only read.
func decompressInto(codec int, dst, src []byte) ([]byte, error) {
	switch codec {
	case codecNone:
		return src, nil
	case codecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return readLimited(dst, zr)
	case codecSnappy:
		if bytes.HasPrefix(src, xerialMagic) {
			return xerialDecode(dst, src)
		}
		return snappyBlock(dst, src)
	case codecLZ4:
		return readLimited(dst, lz4.NewReader(bytes.NewReader(src)))
	case codecZstd:
		return zstdDec.DecodeAll(src, dst[:0])
	}
	return nil, fmt.Errorf("unknown compression codec %d", codec)
}

// readLimited reads r to its end into dst's storage (growing it as
// needed), at most maxDecompressed bytes.
func readLimited(dst []byte, r io.Reader) ([]byte, error) {
	buf := bytes.NewBuffer(dst[:0])
	_, err := buf.ReadFrom(io.LimitReader(r, maxDecompressed+1))
	if err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) > maxDecompressed {
		return nil, errTooBig
	}
	return b, nil
}

func snappyBlock(dst, src []byte) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if n > maxDecompressed {
		return nil, errTooBig
	}
	return s2.Decode(dst[:cap(dst)], src)
}

// xerialMagic starts a xerial snappy stream; a 4-byte version and a
// 4-byte compatible version follow, then blocks of a big-endian length
// and a raw snappy block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func xerialDecode(dst, src []byte) ([]byte, error) {
	src = src[len(xerialMagic):]
	if len(src) < 8 {
		return nil, errors.New("xerial header truncated")
	}
	src = src[8:]
	out := dst[:0]
	for len(src) > 0 {
		if len(src) < 4 {
			return nil, errors.New("xerial block length truncated")
		}
		n := binary.BigEndian.Uint32(src)
		src = src[4:]
		if uint64(n) > uint64(len(src)) {
			return nil, errors.New("xerial block truncated")
		}
		b, err := snappyBlock(nil, src[:n])
		if err != nil {
			return nil, err
		}
		if len(out)+len(b) > maxDecompressed {
			return nil, errTooBig
		}
		out = append(out, b...)
		src = src[n:]
	}
	return out, nil
}
