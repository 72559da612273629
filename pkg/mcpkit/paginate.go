package mcpkit

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// Cursors are opaque to clients but deterministic here, so every instance of a
// horizontally scaled server answers the same cursor with the same page.
const cursorPrefix = "mcpkit.v1:"

// EncodeCursor makes an opaque cursor for an offset into a list.
func EncodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// DecodeCursor reads a cursor made by EncodeCursor; "" means the first page. Any other
// string is an error the caller reports as -32602.
func DecodeCursor(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return 0, InvalidParams("invalid cursor %q: pass the nextCursor of the previous page unchanged", cursor)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), cursorPrefix))
	if err != nil || n < 0 {
		return 0, InvalidParams("invalid cursor %q: pass the nextCursor of the previous page unchanged", cursor)
	}
	return n, nil
}

// paginate returns the page of items that cursor names and the cursor of the next.
func paginate[T any](items []T, cursor string, size int) ([]T, string, error) {
	off, err := DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if off > len(items) {
		return nil, "", InvalidParams("invalid cursor: it points past the end of the list (the list may have changed; start again without a cursor)")
	}
	end := min(off+size, len(items))
	next := ""
	if end < len(items) {
		next = EncodeCursor(end)
	}
	return items[off:end], next, nil
}

// cursorParam reads params.cursor of a list request.
func cursorParam(req *Request) (string, error) {
	if len(req.Params) == 0 {
		return "", nil
	}
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return "", InvalidParams(`"cursor" must be a string: %s`, describeJSONError(err))
	}
	if p.Cursor == nil {
		return "", nil
	}
	// We never issue "", so a client sending it means the first page.
	return *p.Cursor, nil
}

// maxCursorBytes bounds a cursor a client sends back: it is attacker-controlled input.
const maxCursorBytes = 1024

// EncodeCursorState makes an opaque cursor carrying a position richer than an offset
// (a keyset, an offset bound to the request's arguments). It is base64url JSON: opaque
// to clients, the same on every instance, and readable only by DecodeCursorState.
func EncodeCursorState(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpkit: cursor state is not JSON-encodable: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursorState reads a cursor made by EncodeCursorState into v. Anything else
// (malformed, oversized, the wrong shape) is a -32602 error telling the client what
// to do; callers that keep their own error kinds can wrap it.
func DecodeCursorState(cursor string, v any) error {
	bad := InvalidParams("invalid cursor: pass the nextCursor of the previous page unchanged, or leave it out for the first page")
	if len(cursor) > maxCursorBytes {
		return bad
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || json.Unmarshal(b, v) != nil {
		return bad
	}
	return nil
}
