package errorserver

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/getsentry/sentry-go"
)

// startPage serves the store's page in front of its ingest endpoints, as the
// collector does, and returns the base URL and a DSN for project 42.
func startPage(t testing.TB, s *LocalStore, cfg PageConfig) (base, dsn string) {
	t.Helper()
	srv := httptest.NewServer(s.PageHandler(cfg, ingest.Handler(s)))
	t.Cleanup(srv.Close)
	return srv.URL, fmt.Sprintf("http://%s@%s/42", testKey, srv.Listener.Addr())
}

// getPage fetches a page with an optional Host header and method.
func getPage(t testing.TB, method, url, host string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// plantPayloads sends, through sentry-go and as a raw envelope (for frames, which
// sentry-go takes from the real stack), text that would run script, change markup
// or reorder what is shown if the page let it through. at is the events' time (zero:
// now).
func plantPayloads(t *testing.T, dsn string, at time.Time) {
	t.Helper()
	if at.IsZero() {
		at = time.Now()
	}
	hub := errorstest.NewTestHub(t, dsn, "prod<script>document.body.dataset.pwned='env'</script>", func(s *sentry.Scope) {
		s.SetTag("evil", `"><img src=x onerror="document.body.dataset.pwned='tag'">`)
		s.SetTag("bidi", "safe\u202Eexe.txt")
		s.SetUser(sentry.User{ID: "<b>u</b>"})
		s.AddEventProcessor(func(e *sentry.Event, _ *sentry.EventHint) *sentry.Event {
			e.Timestamp = at
			return e
		})
	})
	hub.CaptureMessage("<script>document.body.dataset.pwned='message'</script> and \u202Egnp.exe")
	hub.CaptureException(fmt.Errorf("<img src=x onerror=\"document.body.dataset.pwned='exception'\">\u2066hidden\u2069"))
	if !hub.Flush(10 * time.Second) {
		t.Fatal("hub did not flush")
	}
	ev := testEvent(hexID(777), "<svg onload=\"document.body.dataset.pwned='type'\">", "value</pre><script>document.body.dataset.pwned='value'</script>",
		"fn<script>document.body.dataset.pwned='frame'</script>\u202E", map[string]string{"k<script>": "<script>document.body.dataset.pwned='tagvalue'</script>"})
	ev = strings.Replace(ev, "2026-01-01T00:00:00Z", at.UTC().Format(time.RFC3339), 1)
	u := strings.Replace(dsn, testKey+"@", "", 1)
	u = strings.Replace(u, "/42", "/api/42/envelope/", 1)
	if code, body := postEnvelope(t, u, envelopeOf(hexID(777), [2]string{"event", ev}), nil); code != http.StatusOK {
		t.Fatalf("planted envelope: %d %s", code, body)
	}
}

// scriptLeft finds markup the payloads would have added to the page: any script,
// event handler attribute, svg or img element, or a raw bidirectional control.
var scriptLeft = regexp.MustCompile(`(?i)<script|<img|<svg|<[a-z][^>]*\son[a-z]+\s*=|[\x{202A}-\x{202E}\x{2066}-\x{2069}\x{200E}\x{200F}]`)

// pageChart is the opening tag of the page's own charts (chart in page_funcs.go):
// the one svg element the page draws, with no attribute a payload could bring.
var pageChart = regexp.MustCompile(`<svg class="chart" viewBox="0 0 \d+ \d+" preserveAspectRatio="none" role="img" aria-label="[0-9,]+ events, per (hour|day), from [0-9: -]+ \(UTC\)">`)

// markupLeft is scriptLeft's first match in a page with its own charts taken out.
func markupLeft(page string) string {
	return scriptLeft.FindString(pageChart.ReplaceAllString(page, ""))
}

func TestPageEscapesEventText(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	base, dsn := startPage(t, store, PageConfig{})
	plantPayloads(t, dsn, time.Time{})

	pages := []string{"/", "/?q=" + "%3Cscript%3E%E2%80%AE", "/setup"}
	ids := map[string]bool{}
	_, list := getPage(t, http.MethodGet, base+"/", "")
	for _, m := range regexp.MustCompile(`href="/issues/([0-9a-f]+)"`).FindAllStringSubmatch(list, -1) {
		ids[m[1]] = true
	}
	if len(ids) < 3 {
		t.Fatalf("list shows %d issues, want the 3 planted ones:\n%s", len(ids), list)
	}
	for id := range ids {
		pages = append(pages, "/issues/"+id)
	}
	sawMark := false
	for _, p := range pages {
		resp, body := getPage(t, http.MethodGet, base+p, "")
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", p, resp.StatusCode)
		}
		if m := markupLeft(body); m != "" {
			i := strings.Index(body, m)
			t.Errorf("GET %s: %q survived: ...%s...", p, m, body[max(0, i-80):min(len(body), i+80)])
		}
		sawMark = sawMark || strings.Contains(html.UnescapeString(body), "⟨U+202E⟩")
	}
	if !sawMark {
		t.Error("no page shows the planted U+202E as the visible ⟨U+202E⟩")
	}
	// The payloads are shown, as text.
	_, all := getPage(t, http.MethodGet, base+"/issues/"+store.issueOfEvent(t, hexID(777)), "")
	for _, want := range []string{"value&lt;/pre&gt;&lt;script&gt;", "fn&lt;script&gt;", "⟨U&#43;202E⟩"} {
		if !strings.Contains(all, want) {
			t.Errorf("issue page lacks %q", want)
		}
	}
}

func TestPageHeadersMethodsAndHosts(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	base, dsn := startPage(t, store, PageConfig{Hosts: []string{"errors.test"}, DSN: "http://k3y@127.0.0.1:8970/1"})
	hub := errorstest.NewTestHub(t, dsn, "production", nil)
	errorstest.ChargeCard(hub)
	hub.Flush(10 * time.Second)
	port := base[strings.LastIndex(base, ":")+1:]
	cases := []struct {
		method, path, host string
		status             int
	}{
		{"GET", "/", "", 200},
		{"HEAD", "/", "", 200},
		{"GET", "/setup", "", 200},
		{"GET", "/page.css", "", 200},
		{"GET", "/issues/nosuchissue", "", 404},
		{"GET", "/?q=OR", "", 400},
		{"POST", "/", "", 405},
		{"PUT", "/issues/abc", "", 405},
		{"DELETE", "/setup", "", 405},
		{"GET", "/", "localhost:" + port, 200},
		{"GET", "/", "[::1]:" + port, 200},
		{"GET", "/", "errors.test:" + port, 200},
		{"GET", "/", "attacker.example:" + port, 421},
		{"GET", "/", "127.0.0.1.attacker.example", 421},
		{"GET", "/api/42/envelope/", "", 405}, // the ingest endpoint's own answer, unchanged
		{"GET", "/nothing", "", 404},
	}
	// The README quotes the policy; it must be the one sent.
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), "`Content-Security-Policy: "+pageCSP+"`") {
		t.Errorf("README.md does not quote the page's Content-Security-Policy, %s", pageCSP)
	}
	for _, c := range cases {
		resp, body := getPage(t, c.method, base+c.path, c.host)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s (Host %q): %d, want %d: %s", c.method, c.path, c.host, resp.StatusCode, c.status, body)
		}
		page := !strings.HasPrefix(c.path, "/api/") && c.path != "/nothing"
		if csp := resp.Header.Get("Content-Security-Policy"); page && csp != pageCSP {
			t.Errorf("%s %s: Content-Security-Policy %q", c.method, c.path, csp)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if got := resp.Header.Get(k); page && got != v {
				t.Errorf("%s %s: %s %q, want %q", c.method, c.path, k, got, v)
			}
		}
		// The README: the page's responses are not stored (the stylesheet is cached).
		if got := resp.Header.Get("Cache-Control"); page && c.path != "/page.css" && got != "no-store" {
			t.Errorf("%s %s: Cache-Control %q, want no-store", c.method, c.path, got)
		}
		if c.status == 405 && page && resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", c.method, c.path, resp.Header.Get("Allow"))
		}
	}
	// Fetch Metadata: another site's scripts and images are refused; a person who
	// follows a link from another site, a same-origin request and one without the
	// headers are served.
	for _, c := range []struct {
		site, mode string
		status     int
	}{
		{"cross-site", "cors", 403},
		{"cross-site", "no-cors", 403},
		{"cross-site", "navigate", 200},
		{"same-site", "no-cors", 200},
		{"same-origin", "cors", 200},
		{"none", "navigate", 200},
		{"", "", 200},
	} {
		req, _ := http.NewRequest("GET", base+"/?q=is:unresolved", nil)
		if c.site != "" {
			req.Header.Set("Sec-Fetch-Site", c.site)
			req.Header.Set("Sec-Fetch-Mode", c.mode)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("GET / with Sec-Fetch-Site %q, Sec-Fetch-Mode %q: %d, want %d", c.site, c.mode, resp.StatusCode, c.status)
		}
	}
	// Events still arrive through the same handler.
	code, body := postEnvelope(t, base+"/api/42/envelope/", envelopeOf(hexID(5), [2]string{"event", testEvent(hexID(5), "E", "v", "f", nil)}), nil)
	if code != 200 {
		t.Errorf("envelope through the page's handler: %d %s", code, body)
	}
	// The setup page gives the DSN of each project that sent events.
	if _, setup := getPage(t, "GET", base+"/setup", ""); !strings.Contains(setup, "http://k3y@127.0.0.1:8970/42") {
		t.Errorf("/setup lacks project 42's DSN:\n%s", setup)
	}
	// No inline style or script anywhere: the CSP would refuse them.
	_, list := getPage(t, "GET", base+"/", "")
	if regexp.MustCompile(`(?i)<script|\sstyle=|<style`).MatchString(list) {
		t.Errorf("the page has inline script or style:\n%s", list)
	}
}

func TestPageFiltersAndPaging(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	base, dsn := startPage(t, store, PageConfig{})
	staging := errorstest.NewTestHub(t, dsn, "staging", nil)
	production := errorstest.NewTestHub(t, dsn, "production", nil)
	for range 60 {
		errorstest.ChargeCard(production)
	}
	errorstest.LoadCart(staging, "ann")
	staging.Flush(10 * time.Second)
	production.Flush(10 * time.Second)
	issueLinks := regexp.MustCompile(`href="/issues/([0-9a-f]+)"`)
	count := func(q string) int {
		resp, body := getPage(t, "GET", base+"/?"+q, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET /?%s: %d", q, resp.StatusCode)
		}
		return len(issueLinks.FindAllString(body, -1))
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{"", 2},
		{"environment=staging", 1},
		{"q=" + "card+declined", 1},
		{"q=" + "environment%3Aproduction+times_seen%3A%3E50", 1},
		{"q=" + "!environment%3Aproduction", 1},
		{"project=42", 2},
		{"project=7", 0},
		{"period=1h&sort=freq", 2},
	} {
		if got := count(c.query); got != c.want {
			t.Errorf("/?%s: %d issues, want %d", c.query, got, c.want)
		}
	}
	// The card issue's 60 events, 50 a page, each once.
	card := ""
	_, list := getPage(t, "GET", base+"/?q=card+declined", "")
	if m := issueLinks.FindStringSubmatch(list); m != nil {
		card = m[1]
	}
	eventLinks := regexp.MustCompile(`href="/issues/[0-9a-f]+\?[^"]*event=([0-9a-f]+)`)
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`)
	seen := map[string]bool{}
	url, pages := base+"/issues/"+card, 0
	for url != "" {
		_, body := getPage(t, "GET", url, "")
		pages++
		for _, m := range eventLinks.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("event %s on two pages", m[1])
			}
			seen[m[1]] = true
		}
		url = ""
		if m := next.FindStringSubmatch(body); m != nil {
			url = base + strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(seen) != 60 || pages != 2 {
		t.Errorf("paged through %d events in %d pages, want 60 in 2", len(seen), pages)
	}
}

func TestPageFrameSourceFromCodeMapping(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "checkout")
	os.MkdirAll(src, 0o755)
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("// line %d", i))
	}
	lines[52] = "\treturn usdCents * 100 / centsPerUnit[currency] // \u202E trojan"
	os.WriteFile(filepath.Join(src, "payment.go"), []byte(strings.Join(lines, "\n")), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.go")
	os.WriteFile(outside, []byte(strings.Repeat("TOP SECRET\n", 60)), 0o644)
	os.Symlink(outside, filepath.Join(src, "link.go"))

	store := openTestStore(t, t.TempDir())
	defer store.Close()
	base, dsn := startPage(t, store, PageConfig{CodeMappings: []event.CodeMapping{{StackRoot: "example.com/shop/", SourceRoot: root}}})
	ingest := strings.Replace(strings.Replace(dsn, testKey+"@", "", 1), "/42", "/api/42/envelope/", 1)
	frame := func(file string, line int) map[string]any {
		return map[string]any{"function": "convert", "module": "example.com/shop/checkout", "filename": file, "abs_path": file, "lineno": line, "in_app": true}
	}
	for i, frames := range [][]any{
		{frame("example.com/shop/checkout/payment.go", 53)},
		{frame("example.com/shop/checkout/link.go", 5)},
		{frame("example.com/shop/../../../etc/passwd", 1)},
	} {
		ev := fmt.Sprintf(`{"event_id":%q,"level":"error","platform":"go","exception":[{"type":"E%d","value":"v","stacktrace":{"frames":%s}}]}`,
			hexID(100+i), i, mustJSON(frames))
		if code, body := postEnvelope(t, ingest, envelopeOf(hexID(100+i), [2]string{"event", ev}), nil); code != 200 {
			t.Fatalf("envelope: %d %s", code, body)
		}
	}
	_, page := getPage(t, "GET", base+"/issues/"+store.issueOfEvent(t, hexID(100)), "")
	for _, want := range []string{
		`local file <a class="file" href="file://` + filepath.ToSlash(filepath.Join(src, "payment.go")) + `"><code>` + filepath.Join(src, "payment.go") + ":53</code></a>",
		`<a class="editor" href="vscode://file` + filepath.ToSlash(filepath.Join(src, "payment.go")) + `:53">open in VS Code</a>`,
		`<span class="line current"><span class="ln">53</span><span class="code">	return usdCents * 100 / centsPerUnit[currency] // ⟨U+202E⟩ trojan</span></span>`,
		"lines read from the local file now",
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("issue page lacks %q", want)
		}
	}
	for _, id := range []string{hexID(101), hexID(102)} {
		_, page := getPage(t, "GET", base+"/issues/"+store.issueOfEvent(t, id), "")
		if strings.Contains(page, "TOP SECRET") || strings.Contains(page, "root:") {
			t.Errorf("event %s: the page shows a file outside the source root", id)
		}
	}
}

func TestMarkHidden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\tand\nlines", "plain text\tand\nlines"},
		{"a\u202Eb", "a⟨U+202E⟩b"},
		{"\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"},
		{"zero\u200bwidth\u200f", "zero⟨U+200B⟩width⟨U+200F⟩"},
		{"nul\x00bell\x07", "nul⟨U+0000⟩bell⟨U+0007⟩"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"ünïcødé 日本", "ünïcødé 日本"},
	} {
		if got := backend.MarkHidden(c.in); got != c.want {
			t.Errorf("markHidden(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
