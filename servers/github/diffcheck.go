package github

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// A unified diff carries its own length: each hunk header (@@ -a,b +c,d @@) says how
// many old and new lines follow. An answer cut short on a line boundary, with a
// Content-Length that matches what was sent (a proxy that serves part of a diff),
// passes every HTTP check and the cache's mid-line check, but its last hunk ends
// before its count, or a hunk is interrupted by the next file's header. hunkCheck
// follows a diff line by line and says so.
type hunkCheck struct {
	line             int    // lines seen
	hunkLine         int    // the line of the open hunk's header
	header           string // the open hunk's header
	oldLeft, newLeft int    // lines the open hunk still owes
	err              *upstream.Error
}

// feed takes one line of the diff (without its newline; a long line may be given as
// its first bytes only: only the first few bytes are looked at).
func (h *hunkCheck) feed(l []byte) {
	h.line++
	if h.err != nil {
		return
	}
	if h.oldLeft > 0 || h.newLeft > 0 {
		c := byte(' ') // an empty line: context whose space was stripped
		if len(l) > 0 {
			c = l[0]
		}
		switch c {
		case ' ':
			h.oldLeft--
			h.newLeft--
		case '-':
			h.oldLeft--
		case '+':
			h.newLeft--
		case '\\': // "\ No newline at end of file"
		default:
			h.cut(fmt.Sprintf("line %d (%.40q) interrupts it", h.line, l))
			return
		}
		if h.oldLeft < 0 || h.newLeft < 0 {
			h.cut(fmt.Sprintf("line %d is one more than it declares", h.line))
		}
		return
	}
	if old, new, ok := parseHunkHeader(l); ok {
		h.hunkLine, h.header, h.oldLeft, h.newLeft = h.line, string(l[:bytes.LastIndex(l, []byte("@@"))+2]), old, new
	}
}

// end reports whether the diff ended inside a hunk (nil when it is whole).
func (h *hunkCheck) end() *upstream.Error {
	if h.err == nil && (h.oldLeft > 0 || h.newLeft > 0) {
		h.cut(fmt.Sprintf("the answer ends after line %d, %d old and %d new lines short", h.line, h.oldLeft, h.newLeft))
	}
	return h.err
}

func (h *hunkCheck) cut(how string) {
	h.err = &upstream.Error{Upstream: "GitHub", Status: 200,
		Problem: "sent a diff cut short",
		Detail:  fmt.Sprintf("the hunk %s at diff line %d: %s", h.header, h.hunkLine, how),
		Next:    "nothing of it is returned; try again in a minute; if it keeps happening, a proxy between this server and GitHub may be cutting answers (check HTTPS_PROXY)"}
}

// parseHunkHeader reads the line counts of "@@ -a[,b] +c[,d] @@..." (a count left
// out is 1).
func parseHunkHeader(l []byte) (old, new int, ok bool) {
	rest, found := bytes.CutPrefix(l, []byte("@@ -"))
	if !found {
		return 0, 0, false
	}
	spec, _, found := bytes.Cut(rest, []byte(" @@"))
	if !found {
		return 0, 0, false
	}
	o, n, found := bytes.Cut(spec, []byte(" +"))
	if !found {
		return 0, 0, false
	}
	count := func(r []byte) (int, bool) {
		_, c, has := bytes.Cut(r, []byte(","))
		if !has {
			return 1, true
		}
		v, err := strconv.Atoi(string(c))
		return v, err == nil && v >= 0
	}
	old, ok1 := count(o)
	new, ok2 := count(n)
	return old, new, ok1 && ok2
}

// diffCheckReader passes a diff through, feeding its lines to a hunkCheck. It keeps
// at most the first 256 bytes of a line, so it adds no memory however long lines are.
type diffCheckReader struct {
	r       io.Reader
	check   hunkCheck
	partial []byte
}

func newDiffCheckReader(r io.Reader) *diffCheckReader { return &diffCheckReader{r: r} }

func (d *diffCheckReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if room := 256 - len(d.partial); room > 0 {
			d.partial = append(d.partial, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		d.check.feed(bytes.TrimSuffix(d.partial, []byte("\r")))
		d.partial = d.partial[:0]
		b = b[i+1:]
	}
	return n, err
}

// complete is the verdict once the whole diff was read: nil when every hunk has the
// lines it declares. (A last line without its newline is the cache's mid-line check's
// to refuse; here it counts as a line.)
func (d *diffCheckReader) complete() error {
	if len(d.partial) > 0 {
		d.check.feed(d.partial)
		d.partial = nil
	}
	if e := d.check.end(); e != nil {
		return e
	}
	return nil
}

// diffCut checks a whole diff held in memory (the cache's completeness check).
func diffCut(body []byte) *upstream.Error {
	var h hunkCheck
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		h.feed(bytes.TrimSuffix(line, []byte("\r")))
		body = rest
	}
	return h.end()
}
