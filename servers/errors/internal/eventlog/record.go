package eventlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
)

// segmentMagic opens every segment file, so that a file that is not ours is refused
// rather than truncated as if it were a torn write.
const segmentMagic = "MCPKEVL1"

// recordHeaderSize is the fixed frame in front of every payload:
// [0:4] payload length, [4:8] CRC-32C of bytes 0:4, 8:16 and the payload,
// [8:16] record time in Unix nanoseconds. All little-endian.
const recordHeaderSize = 16

// MaxRecordBytes bounds one payload. A length field above it can only be damage.
const MaxRecordBytes = 64 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errTorn marks a record that is cut short or fails its checksum.
var errTorn = errors.New("torn or damaged record")

// encodeRecord appends the framed record to dst.
func encodeRecord(dst []byte, t time.Time, payload []byte) []byte {
	var h [recordHeaderSize]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint64(h[8:16], uint64(t.UnixNano()))
	binary.LittleEndian.PutUint32(h[4:8], recordCRC(h[:], payload))
	dst = append(dst, h[:]...)
	return append(dst, payload...)
}

func recordCRC(h []byte, payload []byte) uint32 {
	c := crc32.Update(0, castagnoli, h[0:4])
	c = crc32.Update(c, castagnoli, h[8:16])
	return crc32.Update(c, castagnoli, payload)
}

// decodeRecord reads the record at the start of b. It returns the payload (a sub-slice
// of b), the record time and the total framed size, or errTorn when b does not hold a
// whole, intact record.
func decodeRecord(b []byte) (payload []byte, t time.Time, size int, err error) {
	if len(b) < recordHeaderSize {
		return nil, time.Time{}, 0, fmt.Errorf("%w: %d header bytes of %d", errTorn, len(b), recordHeaderSize)
	}
	n := binary.LittleEndian.Uint32(b[0:4])
	if n > MaxRecordBytes {
		return nil, time.Time{}, 0, fmt.Errorf("%w: length field %d is over the %d limit", errTorn, n, MaxRecordBytes)
	}
	size = recordHeaderSize + int(n)
	if len(b) < size {
		return nil, time.Time{}, 0, fmt.Errorf("%w: %d payload bytes of %d", errTorn, len(b)-recordHeaderSize, n)
	}
	payload = b[recordHeaderSize:size]
	if recordCRC(b[:recordHeaderSize], payload) != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, time.Time{}, 0, fmt.Errorf("%w: checksum mismatch", errTorn)
	}
	t = time.Unix(0, int64(binary.LittleEndian.Uint64(b[8:16])))
	return payload, t, size, nil
}
