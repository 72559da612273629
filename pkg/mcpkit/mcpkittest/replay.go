package mcpkittest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/remoteclient"
)

// ConfirmedRound is a multi-round-trip call's first answer: the requestState and the
// keys of the confirmations it asks for.
type ConfirmedRound struct {
	RequestState  string
	InputRequests map[string]json.RawMessage
}

// AskConfirmation sends tools/call of a tool that asks for confirmation and returns
// the round it answers (input_required with a requestState); anything else fails the
// test.
func AskConfirmation(t testing.TB, c *remoteclient.Client, tool string, args map[string]any) ConfirmedRound {
	t.Helper()
	r := c.Do("tools/call", map[string]any{"name": tool, "arguments": args})
	var first struct {
		ResultType string `json:"resultType"`
		ConfirmedRound
	}
	if r.Err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Result, &first) != nil || first.ResultType != "input_required" || first.RequestState == "" || len(first.InputRequests) == 0 {
		t.Fatalf("%s: want input_required with a requestState, got %d %s", tool, r.Status, r.Body)
	}
	return first.ConfirmedRound
}

// Accept answers every confirmation of a round with accept and the confirm box
// checked (mcpkit's Request.Confirm form), as the retry's tools/call params.
func (cr ConfirmedRound) Accept(tool string, args map[string]any) map[string]any {
	answers := map[string]any{}
	for key := range cr.InputRequests {
		answers[key] = map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
	}
	return map[string]any{"name": tool, "arguments": args, "requestState": cr.RequestState, "inputResponses": answers}
}

// ReplayRefusedEverywhere is a scale-out test's check of a shared replay guard
// (mcpkit.ReplayGuard): c reaches instances (n of them) through RoundRobinProxy, and
// the confirmed retry params (ConfirmedRound.Accept) has just run on instance ran.
// It sends the same retry n-1 more times, so that it reaches every other instance in
// turn, and each must refuse it as already used (-32602) without running the tool.
// It returns the instances that refused.
func ReplayRefusedEverywhere(t testing.TB, c *remoteclient.Client, retry map[string]any, ran string, n int) []string {
	t.Helper()
	var refusedBy []string
	for range n - 1 {
		r := c.Do("tools/call", retry)
		in := r.Header.Get("X-Instance")
		if in == ran || in == "" {
			t.Fatalf("the replay reached instance %q, not another one (confirmed on %s)", in, ran)
		}
		if r.Err == nil || r.Err.Code != mcpkit.CodeInvalidParams || !strings.Contains(r.Err.Message, "already used") {
			t.Fatalf("the confirmed requestState replayed to instance %s (confirmed on %s) was not refused as already used: %d %s", in, ran, r.Status, r.Body)
		}
		refusedBy = append(refusedBy, in)
	}
	return refusedBy
}

// StateKeyFile writes a random state key to a file for --state-key-file, the key every
// instance of a scale-out test shares so that a requestState one issues verifies on
// the others.
func StateKeyFile(t testing.TB) string {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f := filepath.Join(t.TempDir(), "state-key")
	if err := os.WriteFile(f, []byte(base64.StdEncoding.EncodeToString(key)), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
