package errorserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
)

// A stack as sentry-go reports it, outermost call first, for a shop whose module is
// example.com/shop: main calls net/http, which calls the SDK's middleware, which calls
// the handler, which calls checkout.Charge, which fails inside strconv.
//
// trimpathFrames is a -trimpath build: files are module paths and sentry-go marks no
// frame in-app (the GOROOT it compares with is empty in such a binary).
// buildFrames is the same stack of a build made in /home/ci/build/shop: absolute paths,
// with sentry-go marking every frame outside GOROOT in-app, the module cache included.
var (
	trimpathFrames = []any{
		frame("main", "main", "example.com/shop/cmd/shop/main.go", "", 38, false),
		frame("HandlerFunc.ServeHTTP", "net/http", "net/http/server.go", "", 2286, false),
		frame("(*Handler).handle.func1", "github.com/getsentry/sentry-go/http", "github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go", "", 124, false),
		frame("handleCheckout", "main", "example.com/shop/cmd/shop/main.go", "", 22, false),
		frame("Charge", "example.com/shop/checkout", "example.com/shop/checkout/payment.go", "", 53, false),
		frame("ParseFloat", "strconv", "strconv/atof.go", "", 700, false),
	}
	buildFrames = []any{
		frame("main", "main", "", "/home/ci/build/shop/cmd/shop/main.go", 38, true),
		frame("HandlerFunc.ServeHTTP", "net/http", "", "/usr/local/go/src/net/http/server.go", 2286, false),
		frame("(*Handler).handle.func1", "github.com/getsentry/sentry-go/http", "", "/root/go/pkg/mod/github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go", 124, true),
		frame("handleCheckout", "main", "", "/home/ci/build/shop/cmd/shop/main.go", 22, true),
		frame("Charge", "example.com/shop/checkout", "", "/home/ci/build/shop/checkout/payment.go", 53, true),
		frame("ParseFloat", "strconv", "", "/usr/local/go/src/strconv/atof.go", 700, false),
	}
)

func frame(fn, module, file, abs string, line int, inApp bool) map[string]any {
	f := map[string]any{"function": fn, "module": module, "lineno": line, "in_app": inApp}
	if file != "" {
		f["filename"] = file
	}
	if abs != "" {
		f["abs_path"] = abs
	}
	return f
}

// checkoutEvent is a sentry-go event of the failing EUR checkout.
func checkoutEvent(id string, at time.Time, user string, frames []any) string {
	ev := map[string]any{
		"event_id": id, "timestamp": at.UTC().Format(time.RFC3339Nano), "level": "error", "platform": "go",
		"environment": "production", "release": "shop@1.4.0", "server_name": "shop-1",
		"tags": map[string]string{"currency": "EUR"},
		"user": map[string]any{"id": user},
		"request": map[string]any{"method": "POST", "url": "http://shop.example/checkout", "query_string": "currency=EUR",
			"headers": map[string]string{"Content-Type": "application/json", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0"}},
		"contexts": map[string]any{"os": map[string]any{"name": "linux"}, "runtime": map[string]any{"name": "go", "version": "go1.26.8"}},
		"exception": []any{
			map[string]any{"type": "*strconv.NumError", "value": `strconv.ParseFloat: parsing "": invalid syntax`, "mechanism": map[string]any{"type": "chained"}},
			map[string]any{"type": "*fmt.wrapError", "value": `charge cart c-1: no exchange rate for EUR: strconv.ParseFloat: parsing "": invalid syntax`,
				"mechanism": map[string]any{"type": "generic", "handled": true}, "stacktrace": map[string]any{"frames": frames}},
		},
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// storeWith opens a local store and sends it n checkout events with the given frames,
// ten minutes old, from users u-0 to u-11.
func storeWith(t *testing.T, n int, frames []any) *LocalStore {
	t.Helper()
	store := openTestStore(t, t.TempDir())
	t.Cleanup(func() { store.Close() })
	srv, _ := startIngest(t, store)
	at := time.Now().Add(-10 * time.Minute)
	for i := range n {
		id := hexID(1000 + i)
		if code, body := postEnvelope(t, srv.URL+"/api/42/envelope/", envelopeOf(id, [2]string{"event", checkoutEvent(id, at.Add(time.Duration(i)*time.Second), fmt.Sprintf("u-%d", i%12), frames)}), nil); code != http.StatusOK {
			t.Fatalf("ingest: %d %s", code, body)
		}
	}
	return store
}

// shownFrame is what the tests compare of a frame.
type shownFrame struct {
	Function, Where string
	Line            int
	InApp           bool
}

func shownFrames(ev *backend.Event) []shownFrame {
	var out []shownFrame
	for _, f := range ev.Exceptions[0].Frames {
		out = append(out, shownFrame{f.Function, event.FirstNonEmpty(f.Path, "file "+f.File), f.Line, f.InApp})
	}
	return out
}

// shopRoot is a checkout of the shop on this machine, with payment.go's line 53.
func shopRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	var src strings.Builder
	for i := 1; i <= 60; i++ {
		if i == 53 {
			src.WriteString("\trate := rates[c.Currency] // line 53\n")
			continue
		}
		fmt.Fprintf(&src, "// line %d\n", i)
	}
	if err := os.MkdirAll(filepath.Join(root, "checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "checkout", "payment.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func latestEvent(t *testing.T, store *LocalStore, cfg Config) *backend.Event {
	t.Helper()
	c := connect(t, store, cfg, revisions[0])
	var search backend.IssueList
	callOK(t, c, ToolSearchIssues, map[string]any{"statsPeriod": "1h"}, &search)
	if len(search.Issues) != 1 {
		t.Fatalf("issues = %+v; want the checkout issue", search.Issues)
	}
	var ev backend.Event
	callOK(t, c, ToolGetEvent, map[string]any{"issueId": search.Issues[0].ID}, &ev)
	return &ev
}

// TestCodeMappingOfTrimpathBuild: a -trimpath build reports module paths; the mapping
// of the module path gives every frame of the shop its file on this machine, which
// can be opened as it is, and makes those frames in-app (first).
func TestCodeMappingOfTrimpathBuild(t *testing.T) {
	root := shopRoot(t)
	store := storeWith(t, 1, trimpathFrames)
	ev := latestEvent(t, store, Config{CodeMappings: []event.CodeMapping{{StackRoot: "example.com/shop/", SourceRoot: root}}})
	payment := filepath.Join(root, "checkout", "payment.go")
	want := []shownFrame{
		{"Charge", payment, 53, true},
		{"handleCheckout", filepath.Join(root, "cmd", "shop", "main.go"), 22, true},
		{"main", filepath.Join(root, "cmd", "shop", "main.go"), 38, true},
		{"ParseFloat", "file strconv/atof.go", 700, false},
		{"(*Handler).handle.func1", "file github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go", 124, false},
		{"HandlerFunc.ServeHTTP", "file net/http/server.go", 2286, false},
	}
	if d := cmp.Diff(want, shownFrames(ev)); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	if ev.Notice != "" {
		t.Errorf("notice %q; want none: the frames are mapped", ev.Notice)
	}
	// The path is the file itself: line 53 of it is the failing line.
	b, err := os.ReadFile(ev.Exceptions[0].Frames[0].Path)
	if err != nil {
		t.Fatalf("the mapped path does not open as it is: %v", err)
	}
	if lines := strings.Split(string(b), "\n"); !strings.Contains(lines[53-1], "line 53") {
		t.Errorf("line 53 of %s = %q", ev.Exceptions[0].Frames[0].Path, lines[53-1])
	}
}

// TestCodeMappingOfBuildDirectory: a build made in another directory reports its
// absolute paths; mapping that directory gives local paths, and the module cache,
// which sentry-go calls in-app, is not the application's code.
func TestCodeMappingOfBuildDirectory(t *testing.T) {
	root := shopRoot(t)
	store := storeWith(t, 1, buildFrames)
	for _, stackRoot := range []string{"/home/ci/build/shop", "/home/ci/build/shop/"} {
		ev := latestEvent(t, store, Config{CodeMappings: []event.CodeMapping{{StackRoot: stackRoot, SourceRoot: root}}})
		main := filepath.Join(root, "cmd", "shop", "main.go")
		want := []shownFrame{
			{"Charge", filepath.Join(root, "checkout", "payment.go"), 53, true},
			{"handleCheckout", main, 22, true},
			{"main", main, 38, true},
			{"ParseFloat", "file /usr/local/go/src/strconv/atof.go", 700, false},
			{"(*Handler).handle.func1", "file /root/go/pkg/mod/github.com/getsentry/sentry-go@v0.46.2/http/sentryhttp.go", 124, false},
			{"HandlerFunc.ServeHTTP", "file /usr/local/go/src/net/http/server.go", 2286, false},
		}
		if d := cmp.Diff(want, shownFrames(ev)); d != "" {
			t.Errorf("stack root %s: frames (-want +got):\n%s", stackRoot, d)
		}
	}
}

// TestNoCodeMappingSaysHowToAddOne: without a mapping the frames keep the build's
// paths and the result names the flag, its variable and the stack root to map.
func TestNoCodeMappingSaysHowToAddOne(t *testing.T) {
	store := storeWith(t, 1, trimpathFrames)
	ev := latestEvent(t, store, Config{InApp: []string{"example.com/shop"}})
	for _, f := range ev.Exceptions[0].Frames {
		if f.Path != "" {
			t.Errorf("frame %s has path %q without a code mapping", f.Function, f.Path)
		}
	}
	for _, want := range []string{"no code mappings are set", "--code-mapping example.com/shop/checkout/=DIR", "ERRORS_CODE_MAPPINGS"} {
		if !strings.Contains(ev.Notice, want) {
			t.Errorf("notice %q; want it to contain %q", ev.Notice, want)
		}
	}
	// A mapping that covers none of the frames says so too.
	ev = latestEvent(t, store, Config{CodeMappings: []event.CodeMapping{{StackRoot: "example.com/other/", SourceRoot: t.TempDir()}}, InApp: []string{"example.com/shop"}})
	if !strings.Contains(ev.Notice, "no code mapping covers") || !strings.Contains(ev.Notice, "--code-mapping example.com/shop/checkout/=DIR") {
		t.Errorf("notice %q; want it to say no mapping covers the files", ev.Notice)
	}
}

// TestInAppPrefixesOrderFrames: sentry-go marks no frame of a -trimpath build in-app,
// so the innermost frame (in strconv) comes first; --in-app puts the shop's own
// frames first, innermost first.
func TestInAppPrefixesOrderFrames(t *testing.T) {
	store := storeWith(t, 1, trimpathFrames)
	names := func(ev *backend.Event) (out []string) {
		for _, f := range ev.Exceptions[0].Frames {
			out = append(out, fmt.Sprintf("%s inApp=%t", f.Function, f.InApp))
		}
		return out
	}
	sdk := names(latestEvent(t, store, Config{}))
	if d := cmp.Diff([]string{"ParseFloat inApp=false", "Charge inApp=false", "handleCheckout inApp=false", "(*Handler).handle.func1 inApp=false", "HandlerFunc.ServeHTTP inApp=false", "main inApp=false"}, sdk); d != "" {
		t.Errorf("frames with the SDK's in_app (-want +got):\n%s", d)
	}
	for _, prefix := range []string{"example.com/shop", "example.com/shop/"} {
		got := names(latestEvent(t, store, Config{InApp: []string{prefix, "example.com/other"}}))
		want := []string{"Charge inApp=true", "handleCheckout inApp=true", "main inApp=true", "ParseFloat inApp=false", "(*Handler).handle.func1 inApp=false", "HandlerFunc.ServeHTTP inApp=false"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("--in-app %s: frames (-want +got):\n%s", prefix, d)
		}
	}
	// A prefix ends at a path or module boundary: example.com/sho is not the shop.
	if got := names(latestEvent(t, store, Config{InApp: []string{"example.com/sho"}})); got[0] != "ParseFloat inApp=false" {
		t.Errorf("--in-app example.com/sho matched the shop: %v", got)
	}
}
