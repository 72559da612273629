package github

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// lineWindow is a range of lines cut from a larger text (a file, a diff) within a
// byte budget, with enough bookkeeping to tell the model where to continue.
type lineWindow struct {
	Content    string
	First      int  // first line returned, 1-based; 0 when none
	Last       int  // last line returned, 1-based; 0 when none
	Total      int  // lines seen in the whole input (all of it when !Capped)
	CutByBytes bool // the byte budget ended the window before the requested end
	LongLine   bool // the first line alone exceeded the budget and was cut
	Binary     bool // the input has NUL bytes: not text, nothing returned
}

// readLines returns lines start..end (1-based, inclusive; end 0 means "as many as
// fit") of r, at most maxBytes of them. It streams: memory stays within maxBytes plus
// a read buffer however large r is, and it keeps reading to the end only to count
// lines, so callers should bound r (cappedReader) to bound time too.
func readLines(r io.Reader, start, end, maxBytes int) (lineWindow, error) {
	var w lineWindow
	if start < 1 {
		start = 1
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(8000)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return w, err
	}
	if bytes.IndexByte(head, 0) >= 0 {
		w.Binary = true
		return w, nil
	}
	var out bytes.Buffer
	stopped := false
	lineNo := 0
	for {
		want := !stopped && lineNo+1 >= start && (end == 0 || lineNo+1 <= end)
		keep := 0
		if want {
			keep = maxBytes - out.Len() + 1
		}
		line, n, err := readLine(br, keep)
		if n == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return w, err
		}
		lineNo++
		if want {
			switch {
			case n <= maxBytes-out.Len():
				out.Write(line)
				if w.First == 0 {
					w.First = lineNo
				}
				w.Last = lineNo
			case out.Len() == 0:
				prefix, _ := mcpkit.TruncateText(string(line), maxBytes)
				out.WriteString(prefix)
				w.First, w.Last = lineNo, lineNo
				w.LongLine, w.CutByBytes, stopped = true, true, true
			default:
				w.CutByBytes, stopped = true, true
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	w.Total = lineNo
	w.Content = mcpkit.SanitizeText(out.String())
	return w, nil
}

// readLine reads one line (with its newline), keeping at most keep bytes of it, and
// returns the line's full length. err is io.EOF when the input ended with this line.
func readLine(br *bufio.Reader, keep int) ([]byte, int, error) {
	var kept []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if room := keep - len(kept); room > 0 {
			kept = append(kept, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return kept, n, err
	}
}

// cappedReader reads at most limit bytes of r and records whether r had more.
type cappedReader struct {
	r     io.Reader
	left  int64
	Hit   bool // r had more than limit bytes
	limit int64
}

func newCappedReader(r io.Reader, limit int64) *cappedReader {
	return &cappedReader{r: r, left: limit, limit: limit}
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		if !c.Hit {
			var one [1]byte
			if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
				c.Hit = true
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
