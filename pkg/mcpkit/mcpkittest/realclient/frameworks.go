package realclient

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FrameworksResult is what tools/npm/frameworks.mjs prints: how the MCP clients of
// three agent frameworks converted a server's tools, and one call through each
// framework's own tool object. A call's result is the tool's text, or {"error": …}.
type FrameworksResult struct {
	OpenAI struct {
		Strict    []string        `json:"strict"`
		NonStrict []string        `json:"nonStrict"`
		Call      json.RawMessage `json:"call"`
	} `json:"openai"`
	LangChain struct {
		Tools []string        `json:"tools"`
		Call  json.RawMessage `json:"call"`
	} `json:"langchain"`
	Vercel struct {
		Tools []string        `json:"tools"`
		Call  json.RawMessage `json:"call"`
	} `json:"vercel"`
}

// Frameworks connects the target through the OpenAI Agents SDK (strict schemas on),
// LangChain's MCP adapters and the Vercel AI SDK's MCP client (pinned in tools/npm)
// and calls tool with args through each; the OpenAI call sends null for every
// optional argument args leaves out, as a strict-mode model does.
func Frameworks(t testing.TB, target Target, tool string, args any) *FrameworksResult {
	t.Helper()
	node, script, env := NodeScript(t, "frameworks.mjs")
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("frameworks: arguments of %s: %v", tool, err)
	}
	argv := []string{script, "--tool", tool, "--args", string(b), "--timeout", "110000"}
	if target.URL != "" {
		argv = append(argv, "--url", target.URL)
	} else {
		argv = append(argv, "--cmd")
		argv = append(argv, target.argv(t)...)
	}
	out := runTool(t, node, argv, env, 120*time.Second)
	var res FrameworksResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("frameworks.mjs printed %q: %v", out, err)
	}
	return &res
}

// CheckFrameworks holds a [Frameworks] result to what every server here owes agent
// frameworks: each framework lists exactly the tools want (in any order), OpenAI's
// converter makes every one of them strict without falling back, and the call
// succeeded in each with text containing wantText.
func CheckFrameworks(t testing.TB, res *FrameworksResult, want []string, wantText string) {
	t.Helper()
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	want = sorted(want)
	if len(res.OpenAI.NonStrict) > 0 {
		t.Errorf("OpenAI Agents SDK: tools that cannot be made strict (it falls back to non-strict tools): %v", res.OpenAI.NonStrict)
	}
	for name, got := range map[string][]string{
		"OpenAI Agents SDK (strict)": res.OpenAI.Strict,
		"LangChain":                  res.LangChain.Tools,
		"Vercel AI SDK":              res.Vercel.Tools,
	} {
		if d := cmp.Diff(want, sorted(got)); d != "" {
			t.Errorf("%s: tools (-want +got):\n%s", name, d)
		}
	}
	for name, call := range map[string]json.RawMessage{
		"OpenAI Agents SDK": res.OpenAI.Call,
		"LangChain":         res.LangChain.Call,
		"Vercel AI SDK":     res.Vercel.Call,
	} {
		var text string
		if err := json.Unmarshal(call, &text); err != nil {
			t.Errorf("%s: the call failed: %s", name, call)
			continue
		}
		if !strings.Contains(text, wantText) {
			t.Errorf("%s: the call answered %q; want it to contain %q", name, text, wantText)
		}
	}
}
