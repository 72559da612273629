package filesystem

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"
)

const (
	// DefaultMediaBytes is the largest media file read when maxBytes is not given.
	DefaultMediaBytes = 10 << 20
	// MaxMediaBytes is the largest maxBytes ReadMediaFile accepts.
	MaxMediaBytes = 50 << 20
)

// ReadMediaFileInput names an image, audio or other binary file.
type ReadMediaFileInput struct {
	Path     string `json:"path"`
	MaxBytes int    `json:"maxBytes,omitempty" jsonschema:"minimum=0,maximum=52428800,default=10485760"`
}

// ReadMediaFileOutput is a whole file as base64 with its MIME type.
type ReadMediaFileOutput struct {
	Path     string `json:"path" jsonschema_description:"Absolute path of the file"`
	MimeType string `json:"mimeType" jsonschema_description:"MIME type from the file's content and extension"`
	Kind     string `json:"kind" jsonschema_description:"How a client should treat the data" jsonschema:"enum=image,enum=audio,enum=other"`
	Size     int64  `json:"size" jsonschema_description:"File size in bytes"`
	Data     string `json:"data" jsonschema_description:"The file's bytes in standard base64"`
}

// extraMimeTypes fills the gaps of mime.TypeByExtension's built-in table (which has no
// audio types), so the answer does not depend on the host's /etc/mime.types.
var extraMimeTypes = map[string]string{
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/opus", ".flac": "audio/flac", ".m4a": "audio/mp4", ".aac": "audio/aac",
	".weba": "audio/webm", ".mid": "audio/midi", ".midi": "audio/midi", ".aif": "audio/aiff",
	".aiff": "audio/aiff", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp", ".ico": "image/x-icon",
	".tif": "image/tiff", ".tiff": "image/tiff", ".svg": "image/svg+xml", ".avif": "image/avif",
	".heic": "image/heic", ".mp4": "video/mp4", ".webm": "video/webm", ".pdf": "application/pdf",
}

// detectMime prefers what the content says (http.DetectContentType) when that is a
// specific binary type, else the extension (so .svg is image/svg+xml, not text/xml),
// else the sniffed type.
func detectMime(name string, head []byte) string {
	sniffed := http.DetectContentType(head)
	base, _, _ := strings.Cut(sniffed, ";")
	generic := base == "application/octet-stream" || strings.HasPrefix(base, "text/")
	if !generic {
		return sniffed
	}
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := extraMimeTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return sniffed
}

func mediaKind(mimeType string) string {
	switch {
	case strings.HasPrefix(mimeType, "image/"):
		return "image"
	case strings.HasPrefix(mimeType, "audio/"):
		return "audio"
	}
	return "other"
}

// ReadMediaFile returns a whole file as base64. A file over maxBytes is refused rather
// than cut, since a partial image or sound is not useful.
func (rs *Roots) ReadMediaFile(ctx context.Context, in ReadMediaFileInput) (ReadMediaFileOutput, error) {
	limit := in.MaxBytes
	switch {
	case limit < 0:
		return ReadMediaFileOutput{}, fmt.Errorf("maxBytes must not be negative")
	case limit > MaxMediaBytes:
		return ReadMediaFileOutput{}, fmt.Errorf("maxBytes %d is over the limit of %d", limit, MaxMediaBytes)
	case limit == 0:
		limit = DefaultMediaBytes
	}
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return ReadMediaFileOutput{}, err
	}
	f, size, err := rs.openRegular(root, rel, display)
	if err != nil {
		return ReadMediaFileOutput{}, err
	}
	defer f.Close()
	if size > int64(limit) {
		return ReadMediaFileOutput{}, fmt.Errorf("%s is %d bytes, over maxBytes=%d; raise maxBytes (at most %d)", display, size, limit, MaxMediaBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return ReadMediaFileOutput{}, rs.explain(display, err)
	}
	if len(data) > limit { // grew since Stat
		return ReadMediaFileOutput{}, fmt.Errorf("%s is over maxBytes=%d; raise maxBytes (at most %d)", display, limit, MaxMediaBytes)
	}
	mt := detectMime(rel, data[:min(len(data), 512)])
	return ReadMediaFileOutput{
		Path:     display,
		MimeType: mt,
		Kind:     mediaKind(mt),
		Size:     int64(len(data)),
		Data:     base64.StdEncoding.EncodeToString(data),
	}, nil
}
