package ingest

import (
	"bytes"
	"io"

	"github.com/andybalholm/brotli"
)

// brotliReader decodes a body sent with Content-Encoding: br. sentry-sdk for Python
// compresses every envelope with brotli whenever the brotli module is importable (it
// often is, as a transitive dependency) and does not fall back when it is refused.
//
// The standard library has no brotli decoder; andybalholm/brotli is the pure-Go
// translation of Google's C implementation (no cgo: the binary stays static), kept
// up to date and used by Caddy and fasthttp. Its reader streams, so readBody's
// io.LimitReader bounds the decompressed size exactly as it does for gzip and
// deflate: a brotli bomb stops at the body limit plus one byte.
func brotliReader(raw []byte) io.Reader {
	return brotli.NewReader(bytes.NewReader(raw))
}
