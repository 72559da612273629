package filesystem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// readTail returns the last n lines within maxBytes. It scans backwards from the end in
// blocks for line feeds on code-unit boundaries (a line feed code unit never occurs
// inside a UTF-8 sequence or a UTF-16 surrogate pair), so only the end of the file and
// at most about maxBytes of it are read.
func readTail(ctx context.Context, f *os.File, enc textEncoding, size int64, n, maxBytes int, out *ReadTextFileOutput) ([]byte, error) {
	unit := int64(enc.unit())
	dataStart := int64(len(enc.bom()))
	end := dataStart + (size-dataStart)/unit*unit
	if end <= dataStart {
		return nil, nil
	}
	last := make([]byte, unit)
	if _, err := f.ReadAt(last, end-unit); err != nil {
		return nil, err
	}
	scanEnd := end
	if enc.isNewline(last) {
		scanEnd = end - unit // the final line feed ends the last line; it separates nothing
	}
	rawBudget := int64(maxBytes) * unit
	const block = 64 << 10
	buf := make([]byte, block)
	found := 0
	start, earliest := int64(-1), int64(-1)
	reachedStart, budgetHit := false, false
	for pos := scanEnd; start < 0; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if pos <= dataStart {
			reachedStart, start = true, dataStart
			break
		}
		bs := max(dataStart, pos-block)
		chunk := buf[:pos-bs]
		if _, err := f.ReadAt(chunk, bs); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		for i := int64(len(chunk)) - unit; i >= 0; i -= unit {
			p := bs + i
			if end-(p+unit) > rawBudget {
				budgetHit = true
				break
			}
			if enc.isNewline(chunk[i:]) {
				found++
				earliest = p + unit
				if found == n {
					start = earliest
					break
				}
			}
		}
		if start >= 0 {
			break
		}
		if budgetHit {
			start = earliest
			break
		}
		pos = bs
	}
	partial := false
	if start < 0 { // no line break within the budget: show the end of the last line
		partial = true
		start = end - rawBudget
		start = dataStart + (start-dataStart+unit-1)/unit*unit
	}
	region := make([]byte, end-start)
	if _, err := f.ReadAt(region, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if partial {
		region = skipToCharStart(region, enc)
	}
	text := bytes.ReplaceAll(decodeRegion(region, enc), []byte("\r\n"), []byte("\n"))
	dropped := 0
	for len(text) > maxBytes {
		i := bytes.IndexByte(text, '\n')
		if i < 0 || i == len(text)-1 {
			cut := len(text) - maxBytes
			for cut < len(text) && !utf8.RuneStart(text[cut]) {
				cut++
			}
			text, partial = text[cut:], true
			break
		}
		text = text[i+1:]
		dropped++
	}
	returned := bytes.Count(text, []byte("\n"))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		returned++
	}
	out.LinesReturned = returned
	firstLine := 0 // 1-based number of the first returned line, 0 when unknown
	switch {
	case reachedStart && !partial:
		firstLine = 1 + dropped
	case size <= cheapCountBytes:
		if before, err := countNewlines(f, enc, dataStart, start); err == nil {
			firstLine = before + 1 + dropped
		}
	}
	if firstLine > 0 && returned > 0 {
		out.StartLine, out.EndLine = firstLine, firstLine+returned-1
		out.TotalLines = out.EndLine
	}
	switch {
	case partial:
		out.Cut(fmt.Sprintf("the last line is longer than maxBytes=%d: only its final %d bytes are shown; raise maxBytes (at most %d)", maxBytes, len(text), MaxReadBytes))
	case dropped > 0 || (budgetHit && returned < n):
		out.Cut(fmt.Sprintf("only the last %d lines fit in maxBytes=%d; raise maxBytes (at most %d) or read earlier lines with offset and limit", returned, maxBytes, MaxReadBytes))
	}
	return text, nil
}

// skipToCharStart drops the tail of a character that a cut at an arbitrary byte left at
// the start of region.
func skipToCharStart(region []byte, enc textEncoding) []byte {
	switch enc {
	case encUTF8, encUTF8BOM:
		i := 0
		for i < len(region) && i < utf8.UTFMax && !utf8.RuneStart(region[i]) {
			i++
		}
		return region[i:]
	case encUTF16LE, encUTF16BE:
		if len(region) >= 2 {
			u := uint16(region[0]) | uint16(region[1])<<8
			if enc == encUTF16BE {
				u = uint16(region[0])<<8 | uint16(region[1])
			}
			if u >= 0xDC00 && u < 0xE000 {
				return region[2:]
			}
		}
	}
	return region
}

func decodeRegion(region []byte, enc textEncoding) []byte {
	switch enc {
	case encUTF16LE, encUTF16BE:
		out, _ := decodeUTF16(nil, region, enc, true)
		return out
	case encLatin1:
		return appendLatin1(nil, region)
	}
	return region
}

// countNewlines counts line-feed code units in [from, to).
func countNewlines(f *os.File, enc textEncoding, from, to int64) (int, error) {
	unit := int64(enc.unit())
	buf := make([]byte, readBufferSize)
	count := 0
	for pos := from; pos < to; {
		n := min(int64(len(buf)), to-pos)
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if unit == 1 {
			count += bytes.Count(chunk, []byte{'\n'})
		} else {
			for i := int64(0); i+unit <= n; i += unit {
				if enc.isNewline(chunk[i:]) {
					count++
				}
			}
		}
		pos += n
	}
	return count, nil
}
