package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCheckoutJourney plays the journey as `go run ./examples/checkout` does and
// checks the answer material and the budget of the investigation: at most 6 tool
// calls and 9,000 bytes of tool output.
func TestCheckoutJourney(t *testing.T) {
	res, j := play(t, Options{})
	a := res.Answer
	j.checkMaterial(t, res)

	// The transcript ends with a one-sentence answer built from the material (issue
	// #25: it ended at "answer material").
	for _, want := range []string{a.Title, a.Currency, a.Table, a.Frame, a.Release} {
		if want == "" || !strings.Contains(res.Conclusion, want) {
			t.Errorf("conclusion %q lacks %q", res.Conclusion, want)
		}
	}

	// The frame of the -trimpath build, mapped by --code-mapping example.com/shop=…,
	// read through the filesystem server in one call, by its 1-based line.
	if !res.Features.ReadByLine {
		t.Fatal("read_text_file takes no line")
	}
	if want := j.payment + ":" + itoa(j.failing.n); a.Frame != want || a.Found != "code mapping" {
		t.Errorf("frame %s (%s); want %s from the code mapping", a.Frame, a.Found, want)
	}
	reads := callsTo(res.Calls, "read_text_file")
	if len(reads) != 1 || reads[0].Args["path"] != j.payment || reads[0].Args["line"] != j.failing.n || reads[0].IsError {
		t.Errorf("read_text_file calls %+v; want one, of %s at line %d", reads, j.payment, j.failing.n)
	}
	for _, tool := range []string{"list_allowed_directories", "search_files"} {
		if n := len(callsTo(res.Calls, tool)); n > 0 {
			t.Errorf("%d %s calls: a mapped frame needs no search", n, tool)
		}
	}
	if a.Now == "" {
		t.Error("search_issues gives no now: a model cannot tell how long ago last seen was")
	}

	// The budget.
	const maxCalls, maxBytes = 6, 9000
	if len(res.Calls) > maxCalls || res.Bytes > maxBytes {
		t.Errorf("the investigation took %d tool calls and %d bytes of tool output; the budget is %d calls and %d bytes", len(res.Calls), res.Bytes, maxCalls, maxBytes)
	}

	// The night's events were sent while no MCP server ran (only the collector,
	// mcp-server-errors --ingest-only), and are filed by their own timestamps: the
	// issue spans the night, and its last event was ten minutes before now.
	if d := span(a.FirstSeen, a.LastSeen); d < 8*time.Hour || d > 9*time.Hour {
		t.Errorf("first seen %s, last seen %s: %v apart; want the night's 8h27m (the events' own timestamps)", a.FirstSeen, a.LastSeen, d)
	}
	if d := span(res.Night.Last, a.LastSeen); d < -time.Second || d > time.Second {
		t.Errorf("last seen %s; want the night's last event, %s", a.LastSeen, res.Night.Last)
	}
	if d := span(a.LastSeen, a.Now); d < 10*time.Minute || d > 11*time.Minute {
		t.Errorf("last seen %s, now %s: %v apart; want about 10 minutes", a.LastSeen, a.Now, d)
	}
}

// TestCheckoutJourneyWithoutCodeMapping is the journey before the user adds a code
// mapping: the frame names example.com/shop/checkout/payment.go, which the
// filesystem server cannot open, so the host tries it, lists the allowed
// directories and searches for the file. The answer is the same, at more calls.
func TestCheckoutJourneyWithoutCodeMapping(t *testing.T) {
	res, j := play(t, Options{NoCodeMapping: true})
	a := res.Answer
	j.checkMaterial(t, res)
	if want := "example.com/shop/checkout/payment.go:" + itoa(j.failing.n); a.Frame != want || a.Found != "search" {
		t.Errorf("frame %s (%s); want %s (a -trimpath build), found by search", a.Frame, a.Found, want)
	}
	if len(res.Calls) > 8 {
		t.Errorf("the investigation took %d tool calls; want at most 8", len(res.Calls))
	}
}

// journey is what the tests know of the shop's source.
type journey struct {
	shop    string     // examples/checkout/shop
	payment string     // its checkout/payment.go
	failing sourceLine // the line that divides by the missing rate
}

// play runs the journey and fails the test if it did not get to an answer.
func play(t *testing.T, o Options) (*Result, journey) {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	o.Repo, o.Work, o.Out = repo, t.TempDir(), &out
	began := time.Now()
	res, err := Run(ctx, o)
	t.Logf("transcript (%v):\n%s", time.Since(began).Round(100*time.Millisecond), out.String())
	if err != nil {
		t.Fatal(err)
	}
	j := journey{shop: filepath.Join(repo, "examples", "checkout", "shop")}
	j.payment = filepath.Join(j.shop, "checkout", "payment.go")
	j.failing = lineWith(t, j.payment, "centsPerUnit[currency]")
	return res, j
}

// checkMaterial checks the answer material every journey must find.
func (j journey) checkMaterial(t *testing.T, res *Result) {
	t.Helper()
	a := res.Answer
	// The night: 30 EUR checkouts failed, 5 orders of a product no longer sold;
	// every event acknowledged.
	if n := res.Night; n.Events != 35 || n.Acknowledged != 35 {
		t.Errorf("night: %d events sent, %d acknowledged; want 35 and 35", n.Events, n.Acknowledged)
	}
	if a.Count != 30 || a.Users != 12 {
		t.Errorf("issue %s %q: %d events, %d users; want 30 events of 12 users", a.IssueID, a.Title, a.Count, a.Users)
	}
	if !strings.Contains(a.Title, "integer divide by zero") {
		t.Errorf("issue title %q; want the divide by zero", a.Title)
	}
	if a.Release != "shop@1.4.0" || a.ReleaseEvents != 30 || a.Releases != 1 {
		t.Errorf("release %s on %d events (%d releases); want shop@1.4.0 on all 30", a.Release, a.ReleaseEvents, a.Releases)
	}
	if a.Currency != "EUR" || a.CurrencyEvents != 30 || a.CurrencyTagged != 30 || a.Currencies != 1 {
		t.Errorf("currency=%s on %d of %d tagged events (%d values); want EUR on 30 of 30", a.Currency, a.CurrencyEvents, a.CurrencyTagged, a.Currencies)
	}
	if a.Function != "convert" || a.Line != j.failing.n {
		t.Errorf("frame %s in %s; want line %d in convert", a.Frame, a.Function, j.failing.n)
	}
	if a.Mapped != j.payment {
		t.Errorf("the frame was read at %s; want %s", a.Mapped, j.payment)
	}
	if strings.TrimSpace(a.SourceLine) != strings.TrimSpace(j.failing.text) {
		t.Errorf("source line read %q; want %q", a.SourceLine, j.failing.text)
	}
	if a.TableFile != filepath.Join(j.shop, "checkout", "rates.go")+":6" || !slices.Equal(a.TableKeys, []string{"USD", "GBP", "CAD"}) {
		t.Errorf("rates table at %s with %v; want rates.go:6 with USD, GBP, CAD and no EUR", a.TableFile, a.TableKeys)
	}
	for _, c := range res.Calls {
		if c.IsError && c.Server != "filesystem" {
			t.Errorf("%s %s answered isError: %s", c.Server, c.Tool, c.Text)
		}
	}
	if !slices.ContainsFunc(res.Calls, func(c call) bool { return c.Server == "errors/http" }) ||
		!slices.ContainsFunc(res.Calls, func(c call) bool { return c.Server == "errors/stdio" }) {
		t.Errorf("the investigation used %v; want both errors/http (2026-07-28) and errors/stdio (2025-11-25)", servers(res.Calls))
	}
	if res.Bytes > 9000 {
		t.Errorf("the investigation read %d bytes of tool output; want at most 9,000", res.Bytes)
	}
}

type sourceLine struct {
	n    int
	text string
}

// lineWith finds the line of file holding marker.
func lineWith(t *testing.T, file, marker string) sourceLine {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			return sourceLine{i + 1, l}
		}
	}
	t.Fatalf("%s has no line with %q", file, marker)
	return sourceLine{}
}

func callsTo(calls []call, tool string) []call {
	var out []call
	for _, c := range calls {
		if c.Tool == tool {
			out = append(out, c)
		}
	}
	return out
}

func servers(calls []call) []string {
	var s []string
	for _, c := range calls {
		if !slices.Contains(s, c.Server) {
			s = append(s, c.Server)
		}
	}
	return s
}

func span(first, last string) time.Duration {
	f, err1 := time.Parse(time.RFC3339Nano, first)
	l, err2 := time.Parse(time.RFC3339Nano, last)
	if err1 != nil || err2 != nil {
		return 0
	}
	return l.Sub(f)
}

func itoa(n int) string { return strconv.Itoa(n) }
