package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultContentResults is how many matching lines search_file_contents returns by default.
	DefaultContentResults = 100
	// MaxContentResults is the most matching lines search_file_contents returns.
	MaxContentResults = 2000
	// DefaultMaxFileBytes: larger files are skipped by content search unless raised.
	DefaultMaxFileBytes = 10 << 20
	// MaxMaxFileBytes is the largest maxFileBytes accepted.
	MaxMaxFileBytes = 1 << 30
	// MaxContextLines is the most context lines around a match.
	MaxContextLines = 10
	// maxPatternLen bounds a search pattern.
	maxPatternLen = 4096
	// maxMatchLineBytes is how much of one line is searched; longer lines (minified
	// files) are matched on their first part only.
	maxMatchLineBytes = 1 << 20
	// shownLineBytes is how much of a matching or context line is returned.
	shownLineBytes = 500
)

// SearchFileContentsInput is a grep over a tree.
type SearchFileContentsInput struct {
	Path             string   `json:"path,omitempty"`
	Pattern          string   `json:"pattern"`
	Literal          bool     `json:"literal,omitempty"`
	CaseInsensitive  bool     `json:"caseInsensitive,omitempty"`
	Include          string   `json:"include,omitempty"`
	Exclude          []string `json:"excludePatterns,omitempty"`
	ContextLines     int      `json:"contextLines,omitempty" jsonschema:"minimum=0,maximum=10"`
	MaxResults       int      `json:"maxResults,omitempty" jsonschema:"minimum=0,maximum=2000,default=100"`
	MaxFileBytes     int64    `json:"maxFileBytes,omitempty" jsonschema:"minimum=0,default=10485760"`
	RespectGitignore *bool    `json:"respectGitignore,omitempty" jsonschema:"default=true"`
}

// ContentMatch is one matching line.
type ContentMatch struct {
	Path   string   `json:"path" jsonschema_description:"Absolute path of the file"`
	Line   int      `json:"line" jsonschema_description:"1-based line number"`
	Text   string   `json:"text" jsonschema_description:"The matching line (long lines are cut)"`
	Before []string `json:"before,omitempty" jsonschema_description:"Context lines before the match"`
	After  []string `json:"after,omitempty" jsonschema_description:"Context lines after the match"`
}

// SearchFileContentsOutput lists matching lines.
type SearchFileContentsOutput struct {
	Path          string         `json:"path" jsonschema_description:"Absolute path searched"`
	Matches       []ContentMatch `json:"matches" jsonschema_description:"Matching lines in walk order (shallower files first)"`
	FilesSearched int            `json:"filesSearched" jsonschema_description:"Files whose contents were searched"`
	FilesSkipped  int            `json:"filesSkipped" jsonschema_description:"Files skipped as binary or larger than maxFileBytes"`
	Visited       int            `json:"visited" jsonschema_description:"Entries examined before the search ended"`
	mcpkit.Truncation
}

// grepper holds what one search reuses across files, so memory stays flat however many
// files it reads.
type grepper struct {
	re           *regexp.Regexp
	ctxLines     int
	maxResults   int
	maxFileBytes int64
	br           *bufio.Reader
	head         []byte
	mem          bytes.Reader
	scratch      []byte
	out          *SearchFileContentsOutput
}

// SearchFileContents greps regular files under a directory with Go's RE2 engine (linear
// time: no catastrophic backtracking). It skips binary files (a NUL byte in the first
// 8 KiB) and files over maxFileBytes, decodes UTF-16 files that have a BOM, honours
// .gitignore and stops once it has one match more than maxResults.
func (rs *Roots) SearchFileContents(ctx context.Context, in SearchFileContentsInput) (res SearchFileContentsOutput, err error) {
	ctx, end := traceOp(ctx, "filesystem.search_file_contents")
	defer func() {
		end(err, attribute.Int("filesystem.search.matches", len(res.Matches)), attribute.Int("filesystem.walk.entries", res.Visited),
			attribute.Bool("filesystem.search.truncated", res.Truncated))
	}()
	g, include, exclude, err := newGrepper(in)
	if err != nil {
		return SearchFileContentsOutput{}, err
	}
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return SearchFileContentsOutput{}, err
	}
	st, err := root.os.Stat(rel)
	if err != nil {
		return SearchFileContentsOutput{}, rs.explain(display, err)
	}
	out := SearchFileContentsOutput{Path: display, Matches: []ContentMatch{}}
	g.out = &out
	if !st.IsDir() { // a single file
		f, size, err := rs.openRegular(root, rel, display)
		if err != nil {
			return SearchFileContentsOutput{}, err
		}
		err = g.searchFile(ctx, func() string { return display }, func() (io.ReadSeekCloser, int64, error) { return f, size, nil })
		if err != nil && !errors.Is(err, errStopWalk) {
			return SearchFileContentsOutput{}, err
		}
		out.Visited = 1
		return out, nil
	}
	visited, err := walkTree(ctx, root, rel, walkOptions{gitignore: boolOr(in.RespectGitignore, true), exclude: exclude, progress: "entries searched"},
		func(e *walkEntry) error {
			if !e.info.Mode().IsRegular() {
				return nil
			}
			if include != nil && !include.match(e.rel) {
				return nil
			}
			path := func() string { return filepath.Join(display, filepath.FromSlash(e.rel)) } // only built for a match
			return g.searchFile(ctx, path, func() (io.ReadSeekCloser, int64, error) {
				f, err := openForRead(e.dir, e.name) // confined to the directory being walked
				if err != nil {
					return nil, 0, err
				}
				st, err := f.Stat()
				if err != nil || !st.Mode().IsRegular() { // swapped since Lstat
					f.Close()
					return nil, 0, errors.New("not a regular file")
				}
				return f, st.Size(), nil
			})
		})
	if err != nil {
		return SearchFileContentsOutput{}, rs.explain(display, err)
	}
	out.Visited = visited
	return out, nil
}

func newGrepper(in SearchFileContentsInput) (*grepper, *globPattern, []globPattern, error) {
	if in.Pattern == "" {
		return nil, nil, nil, errors.New("pattern is empty: give a regular expression or, with literal=true, plain text")
	}
	if len(in.Pattern) > maxPatternLen {
		return nil, nil, nil, fmt.Errorf("pattern is %d bytes; at most %d", len(in.Pattern), maxPatternLen)
	}
	expr := in.Pattern
	if in.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if in.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pattern is not a valid RE2 regular expression (%v); escape special characters or set literal=true", err)
	}
	ctxLines, err := boundArg("contextLines", in.ContextLines, 0, MaxContextLines)
	if err != nil {
		return nil, nil, nil, err
	}
	maxResults, err := boundArg("maxResults", in.MaxResults, DefaultContentResults, MaxContentResults)
	if err != nil {
		return nil, nil, nil, err
	}
	maxFileBytes := in.MaxFileBytes
	switch {
	case maxFileBytes < 0:
		return nil, nil, nil, errors.New("maxFileBytes must not be negative")
	case maxFileBytes > MaxMaxFileBytes:
		return nil, nil, nil, fmt.Errorf("maxFileBytes %d is over the maximum of %d", maxFileBytes, MaxMaxFileBytes)
	case maxFileBytes == 0:
		maxFileBytes = DefaultMaxFileBytes
	}
	var include *globPattern
	if in.Include != "" {
		g, err := compileGlob(in.Include)
		if err != nil {
			return nil, nil, nil, err
		}
		include = &g
	}
	exclude, err := compileGlobs(in.Exclude)
	if err != nil {
		return nil, nil, nil, err
	}
	return &grepper{
		re: re, ctxLines: ctxLines, maxResults: maxResults, maxFileBytes: maxFileBytes,
		br: bufio.NewReaderSize(nil, readBufferSize), head: make([]byte, binarySniffSize),
	}, include, exclude, nil
}

// searchFile greps one file; errStopWalk means the result cap was passed.
func (g *grepper) searchFile(ctx context.Context, path func() string, open func() (io.ReadSeekCloser, int64, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, size, err := open()
	if err != nil {
		return nil // vanished or swapped: nothing to search
	}
	defer f.Close()
	if size > g.maxFileBytes {
		g.out.FilesSkipped++
		return nil
	}
	// Read the head (for the binary check); a file no larger than it is then searched
	// from memory without reading it again.
	head := g.head
	whole := size <= int64(len(head))
	if whole {
		head = head[:size]
	}
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	sn := sniffEncoding(head, whole)
	utf16 := sn.enc == encUTF16LE || sn.enc == encUTF16BE
	if !utf16 && bytes.IndexByte(head, 0) >= 0 {
		g.out.FilesSkipped++
		return nil
	}
	bom := len(sn.enc.bom())
	var src io.Reader
	if whole {
		g.mem.Reset(head[bom:])
		src = &g.mem
	} else {
		if _, err := f.Seek(int64(bom), io.SeekStart); err != nil {
			return nil
		}
		src = f
	}
	if utf16 {
		src = newDecodingReader(src, sn.enc)
	}
	g.br.Reset(src)
	g.out.FilesSearched++
	return g.scan(ctx, path)
}

type pendingMatch struct {
	idx  int // index into out.Matches
	need int // context lines still wanted after it
}

func (g *grepper) scan(ctx context.Context, pathOf func() string) error {
	path := ""
	var before [][]byte // ring of previous lines, oldest first
	var pending []pendingMatch
	lineNo := 0
	for {
		line, _, eof, err := readLineCapped(g.br, maxMatchLineBytes, g.scratch[:0])
		g.scratch = line
		if err != nil {
			return nil
		}
		if len(line) == 0 && eof {
			return nil
		}
		lineNo++
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		// context after earlier matches
		for i := 0; i < len(pending); {
			m := &g.out.Matches[pending[i].idx]
			m.After = append(m.After, shownLine(text))
			pending[i].need--
			if pending[i].need == 0 {
				pending = append(pending[:i], pending[i+1:]...)
				continue
			}
			i++
		}
		if g.re.Match(text) {
			if len(g.out.Matches) == g.maxResults {
				g.out.Cut(fmt.Sprintf("stopped at maxResults=%d; narrow the pattern or include glob, search a subdirectory or raise maxResults (at most %d)", g.maxResults, MaxContentResults))
				return errStopWalk
			}
			if path == "" {
				path = pathOf()
			}
			m := ContentMatch{Path: path, Line: lineNo, Text: shownLine(text)}
			for _, b := range before {
				m.Before = append(m.Before, shownLine(b))
			}
			g.out.Matches = append(g.out.Matches, m)
			if g.ctxLines > 0 {
				pending = append(pending, pendingMatch{idx: len(g.out.Matches) - 1, need: g.ctxLines})
			}
		}
		if g.ctxLines > 0 {
			if len(before) == g.ctxLines {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, append([]byte(nil), text...))
		}
		if eof {
			return nil
		}
	}
}

// shownLine makes a line safe and short for the model.
func shownLine(b []byte) string {
	s, cut := mcpkit.CleanText(string(b), shownLineBytes)
	if cut {
		s += " …"
	}
	return s
}
