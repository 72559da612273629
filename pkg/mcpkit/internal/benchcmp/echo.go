package benchcmp

import (
	"bufio"
	"errors"
	"io"
)

// Echo writes every line read from r back to w, one write per line, until r ends:
// the bare line echo whose round trip is the floor a stdio server is compared with.
// It returns nil at EOF.
func Echo(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line[:0], part...)
		for errors.Is(err, bufio.ErrBufferFull) {
			part, err = br.ReadSlice('\n')
			line = append(line, part...)
		}
		if len(line) > 0 && err == nil {
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
