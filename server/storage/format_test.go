package storage

import (
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch/kmsgref"
)

// appendBatchKmsg encodes b with franz-go's kmsg (kmsgref): the reference
// the hand encoder is tested against.
func appendBatchKmsg(dst []byte, b *log.Batch, ts toDisk) []byte {
	rb := toRecordBatch(b)
	return kmsgref.Append(dst, &rb, ts)
}
