package filesystem

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// DefaultResourcePage is how many file resources one page lists by default.
	DefaultResourcePage = 100
	// MaxResourcePage is the most file resources one page lists.
	MaxResourcePage = 1000
	// MaxResourceBytes is the largest file served whole as a resource.
	MaxResourceBytes = 8 << 20
)

// ErrInvalidCursor is returned (wrapped) for a cursor this package did not issue;
// MCP servers answer it with -32602.
var ErrInvalidCursor = errors.New("invalid cursor")

// FileResource is one file exposed as an MCP resource.
type FileResource struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
	Size     int64  `json:"size"`
}

// FileResourcePage is one page of file resources; NextCursor is empty on the last.
type FileResourcePage struct {
	Resources  []FileResource
	NextCursor string
}

// ResourceContent is a file read as a resource: Text for text files (decoded to UTF-8
// and sanitized), Blob (base64) otherwise.
type ResourceContent struct {
	URI      string
	MimeType string
	Text     string
	Blob     string
	IsText   bool
}

// FileURI returns the file:// URI of a path inside a root, percent-encoded.
func FileURI(root *Root, rel string) string {
	return pathToFileURI(root.Join(rel))
}

func pathToFileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") { // Windows drive paths: file:///C:/...
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// pathFromFileURI decodes a file:// URI (percent-decoding included) to an absolute OS
// path. Only an empty host or "localhost" is accepted.
func pathFromFileURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid URI: %v", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("%q is not a file:// URI", uri)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%q names host %q; only local file:// URIs are served", uri, u.Host)
	}
	if u.RawQuery != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q: file URIs take a plain path without a query", uri)
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // /C:/... on Windows
		p = p[1:]
	}
	return filepath.FromSlash(p), nil
}

// ResolveURI maps a file:// URI to a root and a relative path through Resolve, so a
// URI gets exactly the checks a path gets (an encoded "%2e%2e" decodes to ".." and is
// cleaned and checked like any other path).
func (rs *Roots) ResolveURI(uri string) (*Root, string, error) {
	p, err := pathFromFileURI(uri)
	if err != nil {
		return nil, "", err
	}
	if !filepath.IsAbs(p) {
		return nil, "", fmt.Errorf("%q does not name an absolute path", uri)
	}
	return rs.Resolve(p)
}

// EncodeCursor makes the opaque page cursor of ListFileResources (mcpkit's offset
// cursor, so every server's cursors look and fail alike).
func EncodeCursor(offset int) string { return mcpkit.EncodeCursor(offset) }

// DecodeCursor returns the offset inside a cursor made by EncodeCursor.
func DecodeCursor(c string) (int, error) {
	n, err := mcpkit.DecodeCursor(c)
	if err != nil {
		return 0, fmt.Errorf("%w: not issued by this server", ErrInvalidCursor)
	}
	return n, nil
}

// ListFileResources lists regular files under every root (breadth first, names sorted,
// .gitignore honoured, symlinks not followed) as file:// resources, one page at a time.
// The cursor is opaque; "" starts at the beginning. A page walks only as far as it
// needs (offset + limit + 1 files).
func (rs *Roots) ListFileResources(ctx context.Context, cursor string, limit int) (FileResourcePage, error) {
	offset := 0
	if cursor != "" {
		var err error
		if offset, err = DecodeCursor(cursor); err != nil {
			return FileResourcePage{}, err
		}
	}
	limit, err := boundArg("limit", limit, DefaultResourcePage, MaxResourcePage)
	if err != nil {
		return FileResourcePage{}, err
	}
	page := FileResourcePage{Resources: []FileResource{}}
	seen := 0
	for _, root := range rs.roots {
		_, err := walkTree(ctx, root, ".", walkOptions{gitignore: true}, func(e *walkEntry) error {
			if !e.info.Mode().IsRegular() {
				return nil
			}
			seen++
			if seen <= offset {
				return nil
			}
			if len(page.Resources) == limit {
				page.NextCursor = EncodeCursor(offset + limit)
				return errStopWalk
			}
			rel := filepath.FromSlash(e.rel)
			page.Resources = append(page.Resources, FileResource{
				URI:      FileURI(root, rel),
				Name:     e.rel,
				MimeType: mimeByName(e.name),
				Size:     e.info.Size(),
			})
			return nil
		})
		if err != nil {
			return FileResourcePage{}, err
		}
		if page.NextCursor != "" {
			break
		}
	}
	return page, nil
}

// mimeByName guesses a MIME type from the extension alone (listing reads no content).
func mimeByName(name string) string {
	t := detectMime(name, nil)
	if t == "application/octet-stream" || t == "text/plain; charset=utf-8" {
		return ""
	}
	return t
}

// ReadFileResource reads a whole file by URI through the roots. Text (UTF-8, UTF-16
// with BOM or Latin-1) comes back decoded and sanitized; anything else as base64.
func (rs *Roots) ReadFileResource(ctx context.Context, uri string) (ResourceContent, error) {
	root, rel, err := rs.ResolveURI(uri)
	if err != nil {
		return ResourceContent{}, err
	}
	display := root.Join(rel)
	f, size, err := rs.openRegular(root, rel, display)
	if err != nil {
		return ResourceContent{}, err
	}
	defer f.Close()
	if size > MaxResourceBytes {
		return ResourceContent{}, fmt.Errorf("%s is %d bytes, over the %d bytes served as a resource; use read_text_file with offset and limit", display, size, MaxResourceBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxResourceBytes+1))
	if err != nil {
		return ResourceContent{}, rs.explain(display, err)
	}
	if len(data) > MaxResourceBytes {
		return ResourceContent{}, fmt.Errorf("%s grew over %d bytes while being read", display, MaxResourceBytes)
	}
	out := ResourceContent{URI: FileURI(root, rel)}
	sn := sniffEncoding(data, true)
	mt, _, _ := strings.Cut(detectMime(rel, data[:min(len(data), 512)]), ";")
	textual := strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml") || strings.Contains(mt, "javascript")
	if !sn.binary && (textual || mt == "application/octet-stream") {
		if !textual {
			mt = "text/plain"
		}
		if strings.HasPrefix(mt, "text/") {
			mt += "; charset=utf-8" // decoded to UTF-8 whatever the file's encoding
		}
		out.MimeType, out.IsText = mt, true
		out.Text = mcpkit.SanitizeText(decodeText(data, sn.enc))
		return out, nil
	}
	out.MimeType = mt
	out.Blob = base64.StdEncoding.EncodeToString(data)
	return out, nil
}
