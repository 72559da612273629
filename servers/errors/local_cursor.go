package errorserver

import (
	"fmt"
	"hash/fnv"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// localCursor is the local store's opaque page cursor. It is bound to the request it
// came from (Scope), so reusing it with other arguments is an error rather than a page
// of something else.
type localCursor struct {
	Scope  uint32 `json:"s"`
	Offset int    `json:"o,omitempty"`
	// For event lists: the event time and row of the last event shown (keyset paging,
	// so new events arriving between calls neither repeat nor skip rows).
	TS  int64 `json:"t,omitempty"`
	Row int64 `json:"r,omitempty"`
}

// cursorScope hashes the arguments a cursor must be used with.
func cursorScope(parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum32()
}

func encodeCursor(c localCursor) string { return mcpkit.EncodeCursorState(c) }

func decodeCursor(s string, scope uint32) (localCursor, error) {
	var c localCursor
	if s == "" {
		return localCursor{Scope: scope}, nil
	}
	if err := mcpkit.DecodeCursorState(s, &c); err != nil || c.Offset < 0 {
		return c, fmt.Errorf("%w: cursor %q is not a cursor this server returned: pass nextCursor from the previous page unchanged, or leave it out for the first page", backend.ErrInvalidInput, backend.TruncateForError(s))
	}
	if c.Scope != scope {
		return c, fmt.Errorf("%w: cursor belongs to a different request: repeat the previous page's other arguments unchanged with it, or leave it out to start over", backend.ErrInvalidInput)
	}
	return c, nil
}
