package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Content caps: what one call returns, and how much of a file it reads to find the
// requested lines (GitHub serves files up to 100 MB).
const (
	MaxFileBytes     = 64 << 10
	maxFileReadBytes = 16 << 20
	maxDirEntries    = 500
)

// FileContentsInput names a file or directory, optionally a line range of a file.
type FileContentsInput struct {
	Owner     string `json:"owner"`
	Repo      string `json:"repo"`
	Path      string `json:"path,omitempty"`
	Ref       string `json:"ref,omitempty"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"minimum=1"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"minimum=1"`
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name string `json:"name" jsonschema_description:"Entry name"`
	Path string `json:"path" jsonschema_description:"Path from the repository root"`
	Type string `json:"type" jsonschema_description:"file or dir or symlink or submodule"`
	Size int    `json:"size,omitempty" jsonschema_description:"Size in bytes (files only)"`
}

// FileContents is a file's text (or a window of it) or a directory listing.
type FileContents struct {
	Type       string     `json:"type" jsonschema_description:"file or dir or symlink or submodule"`
	Path       string     `json:"path" jsonschema_description:"Path from the repository root"`
	Ref        string     `json:"ref,omitempty" jsonschema_description:"The ref that was read when one was given"`
	SHA        string     `json:"sha,omitempty" jsonschema_description:"Blob SHA of the file (needed to update it)"`
	Size       int        `json:"size,omitempty" jsonschema_description:"File size in bytes"`
	Binary     bool       `json:"binary,omitempty" jsonschema_description:"True when the file is not text and no content is shown"`
	StartLine  int        `json:"startLine,omitempty" jsonschema_description:"First line in content (1-based)"`
	EndLine    int        `json:"endLine,omitempty" jsonschema_description:"Last line in content"`
	TotalLines int        `json:"totalLines,omitempty" jsonschema_description:"Lines in the whole file when known"`
	Content    string     `json:"content,omitempty" jsonschema_description:"The text of lines startLine to endLine"`
	Target     string     `json:"target,omitempty" jsonschema_description:"Symlink target or submodule URL"`
	Entries    []DirEntry `json:"entries,omitempty" jsonschema_description:"Directory entries"`
	mcpkit.Truncation
}

// GetFileContents reads a file (or a line range of it, at most MaxFileBytes) or lists
// a directory.
func (b *Backend) GetFileContents(ctx context.Context, in FileContentsInput) (FileContents, error) {
	var out FileContents
	path, err := validatePath(in.Path)
	if err != nil {
		return out, err
	}
	if in.Ref != "" {
		if err := validateRef("ref", in.Ref); err != nil {
			return out, err
		}
	}
	if in.StartLine < 0 || in.EndLine < 0 || in.EndLine > 0 && in.EndLine < max(in.StartLine, 1) {
		return out, fmt.Errorf("line range %d-%d is not valid; expected 1 <= startLine <= endLine (omit endLine to read as much as fits)", in.StartLine, in.EndLine)
	}
	ctx, cancel, err := b.start(ctx, in.Owner, in.Repo)
	if err != nil {
		return out, err
	}
	defer cancel()
	what := fmt.Sprintf("get contents of %s/%s", repoName(in.Owner, in.Repo), path)
	file, dir, _, err := b.gh.Repositories.GetContents(ctx, in.Owner, in.Repo, path, &gh.RepositoryContentGetOptions{Ref: in.Ref})
	if err != nil {
		return out, b.fail(err, what)
	}
	out.Path, out.Ref = name(path), in.Ref
	if dir != nil {
		out.Type = "dir"
		entries, cut := mcpkit.CapSlice(dir, maxDirEntries)
		for _, e := range entries {
			out.Entries = append(out.Entries, DirEntry{Name: name(e.GetName()), Path: name(e.GetPath()), Type: name(e.GetType()), Size: e.GetSize()})
		}
		if cut {
			out.Cut(fmt.Sprintf("directory has %d entries; only the first %d are listed: list a subdirectory or use code search", len(dir), maxDirEntries))
		}
		return out, nil
	}
	out.Type, out.SHA, out.Size = name(file.GetType()), name(file.GetSHA()), file.GetSize()
	switch out.Type {
	case "symlink":
		out.Target = name(file.GetTarget())
		return out, nil
	case "submodule":
		out.Target = name(file.GetSubmoduleGitURL())
		return out, nil
	}

	if encoded := deref(file.Content); file.GetEncoding() == "base64" && encoded != "" {
		raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(encoded, "\n", ""))
		if err != nil {
			return out, fmt.Errorf("%s: GitHub sent content that is not valid base64: %v", what, err)
		}
		if _, err := b.fileWindow(&out, bytes.NewReader(raw), nil, in); err != nil {
			return out, b.fail(err, what)
		}
		return out, nil
	}
	if out.Size == 0 {
		return out, nil
	}
	// Files over 1 MB come without content: fetch the raw bytes and read a bounded prefix.
	rc, err := b.raw(ctx, contentsURL(in.Owner, in.Repo, path, in.Ref), "application/vnd.github.raw+json")
	if err != nil {
		return out, b.fail(err, what)
	}
	defer rc.Close()
	cr := newCappedReader(rc, maxFileReadBytes)
	w, err := b.fileWindow(&out, cr, cr, in)
	if err != nil {
		return out, b.fail(err, what)
	}
	if cr.Hit {
		if !w.CutByBytes && !w.Binary && (in.EndLine == 0 || w.Last < in.EndLine) {
			out.Cut(fmt.Sprintf("only the first %d MiB of this %d-byte file can be read; lines after %d are out of reach", maxFileReadBytes>>20, out.Size, w.Total))
		}
	}
	return out, nil
}

// fileWindow fills the line window of out from r and says how to get the rest.
// capped, when not nil, is the reader that bounds r: when it was hit, line counts
// cover only the prefix that was read.
func (b *Backend) fileWindow(out *FileContents, r io.Reader, capped *cappedReader, in FileContentsInput) (lineWindow, error) {
	w, err := readLines(r, in.StartLine, in.EndLine, MaxFileBytes)
	if err != nil {
		return w, err
	}
	if w.Binary {
		out.Binary = true
		out.Cut("binary file: content is not shown")
		return w, nil
	}
	partial := capped != nil && capped.Hit
	start := max(in.StartLine, 1)
	if start > w.Total && (w.Total > 0 || partial) {
		if partial {
			return w, fmt.Errorf("startLine %d is beyond the first %d MiB of the file (%d lines), which is as far as this server reads", start, maxFileReadBytes>>20, w.Total)
		}
		return w, fmt.Errorf("startLine %d is past the end of the file, which has %d lines", start, w.Total)
	}
	out.Content, out.StartLine, out.EndLine = w.Content, w.First, w.Last
	of := ""
	if !partial {
		out.TotalLines = w.Total
		of = fmt.Sprintf(" of %d", w.Total)
	}
	switch {
	case w.LongLine:
		out.Cut(fmt.Sprintf("line %d is longer than %d bytes and was cut; the file is not line-oriented text", w.First, MaxFileBytes))
	case w.CutByBytes:
		out.Cut(fmt.Sprintf("content was cut at %d bytes after line %d%s: call again with startLine=%d", MaxFileBytes, w.Last, of, w.Last+1))
	}
	return w, nil
}

// contentsURL builds repos/OWNER/REPO/contents/PATH?ref=REF with every path segment
// escaped (go-github's write methods paste paths in unescaped).
func contentsURL(owner, repo, path, ref string) string {
	u := fmt.Sprintf("repos/%s/%s/contents/%s", owner, repo, escapePath(path))
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	return u
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// raw GETs an API path with a custom media type and hands back the body unread, so
// the caller can read a bounded prefix of a large answer.
func (b *Backend) raw(ctx context.Context, path, accept string) (io.ReadCloser, error) {
	req, err := b.gh.NewRequest("GET", path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := b.gh.BareDo(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
