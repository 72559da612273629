package mcpkit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCursorState(t *testing.T) {
	type pos struct {
		Scope  uint32 `json:"s"`
		Offset int    `json:"o"`
	}
	want := pos{Scope: 7, Offset: 42}
	var got pos
	if err := DecodeCursorState(EncodeCursorState(want), &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	for _, bad := range []string{
		"not base64!",
		EncodeCursorState("a string, not the struct"),
		EncodeCursorState(map[string]any{"pad": strings.Repeat("x", 2000)}), // over the size bound
		EncodeCursor(3), // an offset cursor is not a state cursor
	} {
		var p pos
		err := DecodeCursorState(bad, &p)
		var rpc *Error
		if !errors.As(err, &rpc) || rpc.Code != CodeInvalidParams || !strings.Contains(rpc.Message, "nextCursor") {
			t.Errorf("cursor %.40q: got %v, want -32602 saying what to pass", bad, err)
		}
	}
}

func TestOffsetCursor(t *testing.T) {
	n, err := DecodeCursor(EncodeCursor(17))
	if err != nil || n != 17 {
		t.Fatalf("round trip: %d, %v", n, err)
	}
	for _, bad := range []string{"garbage!", EncodeCursorState([2]string{"a", "b"}), EncodeCursor(0)[:3]} {
		if _, err := DecodeCursor(bad); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}
