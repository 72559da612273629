package realclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What every server's real-client tests check the same way: the tools a client lists,
// and that a tool result's text is the same JSON as its structuredContent.

// HTTPTarget serves h (a server's Streamable HTTP handler, e.g. s.HTTPHandler(nil)) on
// a local test server until the test ends, and returns its /mcp endpoint as a target.
func HTTPTarget(t testing.TB, h http.Handler) Target {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return Target{URL: srv.URL + "/mcp"}
}

// CheckGoSDKTools lists the session's tools (tools/list through the Go SDK client) and
// checks their names, in the order the server listed them, and the names of those the
// Go SDK sees as readOnlyHint, in the same order. Differences are reported with
// t.Errorf.
func CheckGoSDKTools(t testing.TB, cs *mcp.ClientSession, names, readOnly []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("Go SDK client: tools/list: %v", err)
	}
	var gotNames, gotReadOnly []string
	for _, tl := range res.Tools {
		gotNames = append(gotNames, tl.Name)
		if tl.Annotations != nil && tl.Annotations.ReadOnlyHint {
			gotReadOnly = append(gotReadOnly, tl.Name)
		}
	}
	if d := cmp.Diff(names, gotNames); d != "" {
		t.Errorf("Go SDK client: tools (-want +got):\n%s", d)
	}
	if d := cmp.Diff(readOnly, gotReadOnly); d != "" {
		t.Errorf("Go SDK client: tools it sees as readOnlyHint (-want +got):\n%s", d)
	}
}

// GoSDKText joins the text blocks of a tool result the Go SDK client received.
func GoSDKText(res *mcp.CallToolResult) string {
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text
}

// CheckJSONResult checks a tool result as a client received it (any client: the Go
// SDK's, the Inspector's, mcpkittest's): text is its text blocks joined, structured
// its structuredContent as the client decoded it (a map, or raw JSON). The result must
// be a success whose text is the same JSON object as its structuredContent. A failed
// check is reported with t.Errorf, prefixed with what; the structured content is
// returned decoded, or nil after a failure.
func CheckJSONResult(t testing.TB, what, text string, isError bool, structured any) map[string]any {
	t.Helper()
	if isError {
		t.Errorf("%s: isError: %s", what, text)
		return nil
	}
	var fromText, fromStructured map[string]any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Errorf("%s: text is not a JSON object: %v\n%.400s", what, err, text)
		return nil
	}
	raw, ok := structured.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(structured)
	}
	if err := json.Unmarshal(raw, &fromStructured); err != nil || fromStructured == nil {
		t.Errorf("%s: structuredContent is not a JSON object (%v): %.400s", what, err, raw)
		return nil
	}
	if d := cmp.Diff(fromStructured, fromText); d != "" {
		t.Errorf("%s: text and structuredContent differ (-structured +text):\n%s", what, d)
		return nil
	}
	return fromStructured
}
