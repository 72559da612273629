package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultReadBytes is how much text one read returns when maxBytes is not given.
	DefaultReadBytes = 128 << 10
	// MaxReadBytes is the largest maxBytes a read accepts.
	MaxReadBytes = 4 << 20
	// cheapCountBytes: files up to this size get exact line numbers even when the read
	// stops early, because counting their lines costs little.
	cheapCountBytes = 8 << 20
	readBufferSize  = 64 << 10
)

// ReadTextFileInput selects part of a text file: 1-based lines (a line with context
// around it, or startLine to endLine), the first lines (head) or the last lines (tail)
// as the reference server takes them, or a 0-based offset and limit, always bounded by
// maxBytes.
type ReadTextFileInput struct {
	Path        string `json:"path"`
	Line        int    `json:"line,omitempty" jsonschema:"minimum=1"`
	Context     int    `json:"context,omitempty" jsonschema:"minimum=0"`
	StartLine   int    `json:"startLine,omitempty" jsonschema:"minimum=1"`
	EndLine     int    `json:"endLine,omitempty" jsonschema:"minimum=1"`
	LineNumbers bool   `json:"lineNumbers,omitempty"`
	Offset      int    `json:"offset,omitempty" jsonschema:"minimum=0"`
	Limit       int    `json:"limit,omitempty" jsonschema:"minimum=0"`
	Head        int    `json:"head,omitempty" jsonschema:"minimum=0"`
	Tail        int    `json:"tail,omitempty" jsonschema:"minimum=0"`
	MaxBytes    int    `json:"maxBytes,omitempty" jsonschema:"minimum=0,maximum=4194304,default=131072"`
}

// lineArgs reports whether the read is selected by 1-based lines.
func (in ReadTextFileInput) lineArgs() bool { return in.Line > 0 || in.StartLine > 0 || in.EndLine > 0 }

// lineSpan turns 1-based line arguments into the 0-based offset and limit of the lines
// to read (context included, clamped at line 1; limit 0 reads on to maxBytes) and the
// first line asked for, which must exist.
func (in ReadTextFileInput) lineSpan() (offset, limit, first int) {
	first, last := in.StartLine, in.EndLine
	if in.Line > 0 {
		first, last = in.Line, in.Line
	}
	first = max(first, 1)
	from := max(first-in.Context, 1)
	if last > 0 && last <= maxLineArg-in.Context {
		limit = last + in.Context - from + 1
	}
	return from - 1, limit, first
}

// maxLineArg bounds line arithmetic, even with 32-bit ints (a context of a billion
// lines is "all of them").
const maxLineArg = 1 << 30

// ReadTextFileOutput is a part of a text file decoded to UTF-8 with "\n" line breaks.
type ReadTextFileOutput struct {
	Path          string `json:"path" jsonschema_description:"Absolute path of the file"`
	Content       string `json:"content" jsonschema_description:"The text; CRLF line breaks are shown as LF (see lineEnding)"`
	Encoding      string `json:"encoding" jsonschema_description:"Encoding the file was decoded from" jsonschema:"enum=utf-8,enum=utf-8-bom,enum=utf-16le,enum=utf-16be,enum=latin-1"`
	LineEnding    string `json:"lineEnding" jsonschema_description:"Line breaks used at the start of the file" jsonschema:"enum=lf,enum=crlf,enum=mixed,enum=none"`
	StartLine     int    `json:"startLine,omitempty" jsonschema_description:"1-based number of the first line returned; absent when not cheaply known (tail of a large file)"`
	EndLine       int    `json:"endLine,omitempty" jsonschema_description:"1-based number of the last line returned; absent when not known"`
	LinesReturned int    `json:"linesReturned" jsonschema_description:"Number of lines in content"`
	TotalLines    int    `json:"totalLines,omitempty" jsonschema_description:"Number of lines in the file; absent when not cheaply known"`
	NextOffset    int    `json:"nextOffset,omitempty" jsonschema_description:"Pass as offset to read the lines that follow; absent at the end of the file"`
	Size          int64  `json:"size" jsonschema_description:"File size in bytes"`
	Sanitized     bool   `json:"sanitized,omitempty" jsonschema_description:"True when invisible or control characters were removed from content for safety"`
	Note          string `json:"note,omitempty" jsonschema_description:"Remarks about decoding (for example a Latin-1 fallback)"`
	mcpkit.Truncation
	// Numbered asks MCPText to number the lines of the text block (lineNumbers in the
	// input); content itself is never numbered.
	Numbered bool `json:"-"`
}

// ReadTextFile returns part of a text file. It never loads more of the file than the
// answer needs: offsets stream through a fixed buffer, tail reads the file backwards in
// blocks, and output stops at maxBytes without splitting a character. Encodings: UTF-8
// (with or without BOM) and UTF-16 LE/BE with a BOM are decoded; a file that is not
// valid UTF-8 but not binary is decoded as Latin-1 and the note says so; binary files
// are refused with the byte offset of the first invalid byte.
func (rs *Roots) ReadTextFile(ctx context.Context, in ReadTextFileInput) (ReadTextFileOutput, error) {
	maxBytes, err := checkReadArgs(in)
	if err != nil {
		return ReadTextFileOutput{}, err
	}
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return ReadTextFileOutput{}, err
	}
	f, size, err := rs.openRegular(root, rel, display)
	if err != nil {
		return ReadTextFileOutput{}, err
	}
	defer f.Close()

	pooled := samplePool.Get().(*[]byte)
	defer samplePool.Put(pooled) // nothing returned refers to sample: content is copied
	sample := (*pooled)[:min(size, sniffSize)]
	n, _ := f.ReadAt(sample, 0)
	sample = sample[:n]
	sn := sniffEncoding(sample, int64(n) >= size)
	if sn.binary {
		return ReadTextFileOutput{}, describeNotText(display, sn)
	}
	out := ReadTextFileOutput{
		Path:       display,
		Encoding:   sn.enc.String(),
		LineEnding: lineEndingOf(asciiView(sample, sn.enc)),
		Size:       size,
	}
	if sn.enc == encLatin1 {
		out.Note = fmt.Sprintf("not valid UTF-8 at byte %d; decoded as Latin-1 (ISO-8859-1), and edits keep that encoding", sn.invalidAt)
	}

	out.Numbered = in.LineNumbers
	var content []byte
	wholeFile := in.Tail == 0 && in.Offset == 0 && in.Limit == 0 && in.Head == 0 && !in.lineArgs() && int64(n) >= size
	if wholeFile {
		// The common read, a whole small file, often needs nothing more.
		content = wholeSmallFile(sample, sn.enc, maxBytes, &out)
	}
	switch {
	case content != nil:
	case in.Tail > 0:
		content, err = readTail(ctx, f, sn.enc, size, in.Tail, maxBytes, &out)
	default:
		offset, limit, first := in.Offset, in.Limit, 0
		switch {
		case in.Head > 0:
			offset, limit = 0, in.Head
		case in.lineArgs():
			offset, limit, first = in.lineSpan()
		}
		// A file no larger than the sniffed sample is already in memory: read the
		// lines from there instead of reading the file a second time.
		var src io.Reader
		if int64(n) >= size {
			src = bytes.NewReader(sample[len(sn.enc.bom()):])
		} else {
			if _, err := f.Seek(int64(len(sn.enc.bom())), io.SeekStart); err != nil {
				return ReadTextFileOutput{}, rs.explain(display, err)
			}
			src = f
		}
		content, err = readForward(ctx, src, sn.enc, size, offset, limit, maxBytes, first > 0, &out)
		var past *pastEndError
		if first > 0 && (errors.As(err, &past) || err == nil && out.EndLine < first && !out.Truncated) {
			total := out.TotalLines
			if past != nil {
				total = past.lines
			}
			err = fmt.Errorf("line %d is past the end of the file, which has %d lines", first, total)
		}
	}
	if err != nil {
		return ReadTextFileOutput{}, fmt.Errorf("%s: %w", display, err)
	}
	if (sn.enc == encUTF8 || sn.enc == encUTF8BOM) && int64(n) < size && !utf8.Valid(content) {
		out.Note = joinNote(out.Note, fmt.Sprintf("the returned text has bytes that are not valid UTF-8 (beyond the first %d bytes checked); they are shown as U+FFFD", sniffSize))
	}
	text := string(content)
	clean := mcpkit.SanitizeText(text)
	out.Sanitized = clean != text && utf8.ValidString(text)
	out.Content = clean
	return out, nil
}

// samplePool holds the buffers the start of a file is read into: a read's largest
// allocation, made on every call, and garbage as soon as the answer is encoded.
var samplePool = sync.Pool{New: func() any { b := make([]byte, sniffSize); return &b }}

// wholeSmallFile answers a read of all of a file that is already in memory (sample)
// without the line-by-line pass readForward makes: when the text is UTF-8 without a
// BOM, has no CR to normalise and fits maxBytes, the answer is the bytes themselves
// and the line count. It returns nil when the file needs the general path.
// TestWholeSmallFileMatchesReadForward holds the two to the same output.
func wholeSmallFile(sample []byte, enc textEncoding, maxBytes int, out *ReadTextFileOutput) []byte {
	if enc != encUTF8 || len(sample) > maxBytes || bytes.IndexByte(sample, '\r') >= 0 {
		return nil
	}
	lines := bytes.Count(sample, []byte{'\n'})
	if len(sample) > 0 && sample[len(sample)-1] != '\n' {
		lines++
	}
	if lines > 0 {
		out.StartLine, out.EndLine = 1, lines
	}
	out.LinesReturned, out.TotalLines = lines, lines
	return sample
}

// asciiView returns text whose ASCII characters (line breaks in particular) are those
// of sample: the bytes themselves for UTF-8 and Latin-1, decoded text for UTF-16.
func asciiView(sample []byte, enc textEncoding) []byte {
	if enc == encUTF16LE || enc == encUTF16BE {
		return []byte(decodeText(sample, enc))
	}
	return sample
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func checkReadArgs(in ReadTextFileInput) (int, error) {
	switch {
	case in.Offset < 0 || in.Limit < 0 || in.Head < 0 || in.Tail < 0 || in.MaxBytes < 0 || in.Context < 0:
		return 0, errors.New("offset, limit, head, tail, context and maxBytes must not be negative")
	case in.Line < 0 || in.StartLine < 0 || in.EndLine < 0:
		return 0, errors.New("line, startLine and endLine are 1-based: the first line is 1")
	case in.Line > maxLineArg || in.StartLine > maxLineArg || in.EndLine > maxLineArg || in.Context > maxLineArg:
		return 0, fmt.Errorf("line numbers and context must be at most %d", maxLineArg)
	case in.Line > 0 && (in.StartLine > 0 || in.EndLine > 0):
		return 0, errors.New("give line (with context) or startLine/endLine, not both")
	case in.lineArgs() && (in.Offset > 0 || in.Limit > 0 || in.Head > 0 || in.Tail > 0):
		return 0, errors.New("line, startLine and endLine (1-based) replace offset, limit, head and tail: give one kind")
	case in.Context > 0 && !in.lineArgs():
		return 0, errors.New("context goes with line (or startLine/endLine): the lines shown around it")
	case in.StartLine > 0 && in.EndLine > 0 && in.EndLine < in.StartLine:
		return 0, fmt.Errorf("endLine %d is before startLine %d", in.EndLine, in.StartLine)
	case in.MaxBytes > MaxReadBytes:
		return 0, fmt.Errorf("maxBytes %d is over the limit of %d; read in parts with offset and limit", in.MaxBytes, MaxReadBytes)
	case in.Head > 0 && in.Tail > 0:
		return 0, errors.New("give either head or tail, not both")
	case in.Tail > 0 && (in.Offset > 0 || in.Limit > 0):
		return 0, errors.New("tail cannot be combined with offset or limit; use one or the other")
	case in.Head > 0 && (in.Offset > 0 || in.Limit > 0):
		return 0, errors.New("head N is the same as offset 0 with limit N; give one or the other")
	}
	if in.MaxBytes == 0 {
		return DefaultReadBytes, nil
	}
	return in.MaxBytes, nil
}

// openRegular opens a regular file through the root. Directories, devices, pipes and
// sockets are refused before any read (a FIFO would block forever).
func (rs *Roots) openRegular(root *Root, rel, display string) (*os.File, int64, error) {
	f, err := openForRead(root.os, rel)
	if err != nil {
		return nil, 0, rs.explain(display, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, rs.explain(display, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a directory, not a file; use list_directory or directory_tree", display)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file (a device, pipe or socket); only regular files can be read", display)
	}
	return f, st.Size(), nil
}

// pastEndError is an offset at or past the end of the file.
type pastEndError struct{ offset, lines int }

func (e *pastEndError) Error() string {
	return fmt.Sprintf("offset %d is past the end of the file, which has %d lines", e.offset, e.lines)
}

// readForward returns lines [offset, offset+limit) within maxBytes, streaming src (the
// file's bytes after any BOM) through a fixed buffer, no larger than a small file needs:
// per-call allocations, not the file's size, dominate the cost of small reads. A hint
// to read on names startLine when oneBased (the call used line numbers), else offset.
func readForward(ctx context.Context, src io.Reader, enc textEncoding, size int64, offset, limit, maxBytes int, oneBased bool, out *ReadTextFileOutput) ([]byte, error) {
	bufSize := int(min(max(size+1, 4<<10), readBufferSize))
	if enc == encUTF16LE || enc == encUTF16BE {
		bufSize = readBufferSize // decoding may grow the text
	}
	br := bufio.NewReaderSize(newDecodingReader(src, enc), bufSize)
	skipped, eof, err := skipLines(ctx, br, offset)
	if err != nil {
		return nil, err
	}
	if skipped < offset {
		return nil, &pastEndError{offset, skipped}
	}
	buf := make([]byte, 0, min(int64(maxBytes), size, readBufferSize))
	var scratch []byte
	returned, consumed := 0, offset
	for limit <= 0 || returned < limit {
		remaining := maxBytes - len(buf)
		line, over, lineEOF, err := readLineCapped(br, remaining+1, scratch[:0])
		scratch = line
		if err != nil {
			return nil, err
		}
		if len(line) == 0 && !over && lineEOF {
			eof = true
			break
		}
		consumed++
		if !over {
			line = normalizeCRLF(line)
		}
		if over || len(line) > remaining {
			if returned == 0 {
				cut, _ := mcpkit.TruncateText(string(line), remaining)
				buf = append(buf, cut...)
				returned = 1
				out.Cut(fmt.Sprintf("line %d is longer than maxBytes=%d: only its first %d bytes are shown; raise maxBytes (at most %d) or use search_file_contents to find text in it", offset+1, maxBytes, len(cut), MaxReadBytes))
			} else {
				next := fmt.Sprintf("offset=%d", offset+returned)
				if oneBased {
					next = fmt.Sprintf("startLine=%d", offset+returned+1)
				}
				out.Cut(fmt.Sprintf("the output reached maxBytes=%d; call again with %s to read on", maxBytes, next))
			}
			if lineEOF {
				eof = true
			}
			break
		}
		buf = append(buf, line...)
		returned++
		if lineEOF {
			eof = true
			break
		}
	}
	if !eof && atEnd(br) {
		eof = true
	}
	if returned > 0 {
		out.StartLine, out.EndLine = offset+1, offset+returned
	}
	out.LinesReturned = returned
	switch {
	case eof:
		out.TotalLines = consumed
	case size <= cheapCountBytes:
		rest, _, err := skipLines(ctx, br, int(^uint(0)>>1))
		if err == nil {
			out.TotalLines = consumed + rest
		}
	}
	if !eof {
		out.NextOffset = offset + returned
	}
	return buf, nil
}

// atEnd reports whether the reader has nothing left.
func atEnd(br *bufio.Reader) bool {
	_, err := br.Peek(1)
	return err != nil
}

// normalizeCRLF turns a trailing "\r\n" into "\n".
func normalizeCRLF(line []byte) []byte {
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		return line[:n-1]
	}
	return line
}

// skipLines consumes up to n lines (a last line without a newline counts) and reports
// how many it consumed and whether it hit the end. Memory stays at the reader's buffer
// whatever the line lengths.
func skipLines(ctx context.Context, br *bufio.Reader, n int) (int, bool, error) {
	done := 0
	inLine := false
	for done < n {
		if err := ctx.Err(); err != nil {
			return done, false, err
		}
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				if errors.Is(err, io.EOF) {
					if inLine {
						done++
					}
					return done, true, nil
				}
				return done, false, err
			}
		}
		buf, _ := br.Peek(br.Buffered())
		i := 0
		for done < n {
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			done++
			inLine = false
		}
		if done == n {
			br.Discard(i)
			return done, false, nil
		}
		if i < len(buf) {
			inLine = true
		}
		br.Discard(len(buf))
	}
	return done, false, nil
}

// readLineCapped reads one line, keeping at most max bytes of it in scratch and
// discarding the rest (over reports that). eof is true when the input ended, with or
// without a partial line.
func readLineCapped(br *bufio.Reader, max int, scratch []byte) (line []byte, over, eof bool, err error) {
	for {
		s, e := br.ReadSlice('\n')
		if room := max - len(scratch); room > 0 {
			take := min(len(s), room)
			scratch = append(scratch, s[:take]...)
			if take < len(s) {
				over = true
			}
		} else if len(s) > 0 {
			over = true
		}
		switch {
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		case errors.Is(e, io.EOF):
			return scratch, over, true, nil
		case e != nil:
			return scratch, over, false, e
		}
		return scratch, over, false, nil
	}
}
