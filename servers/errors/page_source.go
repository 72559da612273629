package errorserver

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
)

// Source lines for frames that came without them. sentry-go sends the lines around
// a frame only when it can read the file where the binary was built; a release built
// with -trimpath (or elsewhere) sends none. When a code mapping gives the frame a
// local path, the page reads the lines from that file, as a person would open it,
// and says so: the file may have changed since the release was built.
const (
	sourceMaxBytes  = 4 << 20 // files read up to this size only
	sourceMaxFrames = backend.MaxContextFrames
	sourceRadius    = backend.MaxContextLines / 2
)

// sourceReader reads the source lines of one event's frames, at most
// sourceMaxFrames files.
type sourceReader struct {
	codes *event.CodeMap
	reads int
}

// read returns the lines around line of the file at path, which must lie under a
// source root of the code mappings; it is opened through os.OpenInRoot, so neither
// ".." nor a symbolic link inside the source root reads a file outside it.
func (s *sourceReader) read(path string, line int) []backend.ContextLine {
	if s.codes == nil || s.reads >= sourceMaxFrames {
		return nil
	}
	for _, m := range s.codes.Local {
		rel, err := filepath.Rel(m.SourceRoot, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		s.reads++
		f, err := os.OpenInRoot(m.SourceRoot, rel)
		if err != nil {
			return nil
		}
		defer f.Close()
		return sourceLines(io.LimitReader(f, sourceMaxBytes), line)
	}
	return nil
}

// sourceLines reads the lines within sourceRadius of line, each cut at capCodeLine
// bytes, with hidden characters marked (a Trojan Source line shows what it hides).
func sourceLines(r io.Reader, line int) []backend.ContextLine {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []backend.ContextLine
	v := &backend.Viewer{Page: true}
	for n := 1; sc.Scan() && n <= line+sourceRadius; n++ {
		if n >= line-sourceRadius {
			out = append(out, backend.ContextLine{Line: n, Code: v.Text(sc.Text(), backend.CapCodeLine), Current: n == line})
		}
	}
	if len(out) == 0 || out[len(out)-1].Line < line {
		return nil // the file is shorter than the frame's line: not the file that ran
	}
	return out
}
