package errorserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
)

// The page in a real browser: Debian's headless Chromium, driven by its command line
// (no Go dependency): --dump-dom gives the DOM after any script ran, --screenshot an
// image, and --enable-logging=stderr prints every console message, including a
// Content-Security-Policy refusal, as a line with ":CONSOLE" in it:
//
//	[…:INFO:CONSOLE:1] "Executing inline script violates the following Content Security Policy directive …", source: http://… (1)
//
// .ci/run installs the chromium package; under CI (CI set) a missing browser fails
// the test, elsewhere it skips.

// browserTimeout bounds one Chromium run, so that a wedged browser fails the test
// instead of hanging it.
const browserTimeout = 90 * time.Second

// findChromium returns the browser's path, failing under CI and skipping elsewhere
// when there is none.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "chromium-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no headless Chromium (chromium, chromium-browser or chromium-headless-shell) on PATH: .ci/run installs Debian's chromium package")
	}
	t.Skip("no Chromium on PATH (apt-get install chromium): the page is not tested in a browser here; under CI this fails")
	return ""
}

type browserRun struct {
	dom     string
	console []string // the console messages (CSP refusals among them)
}

// runChromium loads url in a fresh profile with args (such as --dump-dom or
// --screenshot=FILE) and returns the DOM it printed and the console lines it logged.
func runChromium(t *testing.T, chromium, url string, args ...string) browserRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--disable-background-networking", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, chromium, append(all, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.Bytes())
	}
	r := browserRun{dom: stdout.String()}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			r.console = append(r.console, line)
		}
	}
	return r
}

// TestBrowserHarnessSeesScript proves the harness can fail: an inline script under
// the page's CSP is refused and the refusal is seen on the console; the same script
// without the CSP runs and the DOM shows what it did. The page's own checks below
// (a clean console, no trace of a payload in the DOM) would see either.
func TestBrowserHarnessSeesScript(t *testing.T) {
	chromium := findChromium(t)
	const doc = `<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body><p>fixture</p><script>document.body.dataset.pwned="1"</script></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/csp" {
			w.Header().Set("Content-Security-Policy", pageCSP)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, doc)
	}))
	defer srv.Close()

	refused := runChromium(t, chromium, srv.URL+"/csp", "--dump-dom")
	if !containsAny(refused.console, "Content Security Policy") {
		t.Errorf("the CSP refusal of an inline script is not on the console as captured: %q", refused.console)
	}
	if strings.Contains(refused.dom, "data-pwned") {
		t.Error("the inline script ran under the page's CSP")
	}
	ran := runChromium(t, chromium, srv.URL+"/plain", "--dump-dom")
	if !strings.Contains(ran.dom, `data-pwned="1"`) {
		t.Errorf("a script that ran is not seen in the dumped DOM:\n%s", ran.dom)
	}
}

func containsAny(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// buildNight builds the checkout example's night (the shop's real handler with
// sentry-go) as a release is built: -trimpath, so frames carry module paths and no
// source lines, and the page reads them through the code mapping.
func buildNight(t *testing.T) (bin, shopDir string) {
	t.Helper()
	shopDir, err := filepath.Abs(filepath.Join("..", "..", "examples", "checkout", "shop"))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(t.TempDir(), "night")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/night")
	cmd.Dir = shopDir
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the checkout example's night: %v\n%s", err, out)
	}
	return bin, shopDir
}

// failingLine is the line of payment.go that divides by the missing rate.
func failingLine(t *testing.T, shopDir string) (int, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shopDir, "checkout", "payment.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "/ centsPerUnit[currency]") {
			return i + 1, strings.TrimSpace(l)
		}
	}
	t.Fatal("payment.go has no division by centsPerUnit[currency]")
	return 0, ""
}

func TestPageInBrowser(t *testing.T) {
	chromium := findChromium(t)
	night, shopDir := buildNight(t)
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	base, dsn := startPage(t, store, PageConfig{CodeMappings: []event.CodeMapping{{StackRoot: "example.com/shop", SourceRoot: shopDir}}})

	// The payloads first, two hours back: the night's checkout issue is the latest.
	plantPayloads(t, dsn, time.Now().Add(-2*time.Hour))
	cmd := exec.Command(night)
	cmd.Env = append(os.Environ(), "SENTRY_DSN="+dsn)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("night: %v\n%s", err, out)
	}
	line, code := failingLine(t, shopDir)

	// The list: the checkout issue first, with its 30 events.
	list := runChromium(t, chromium, base+"/", "--dump-dom")
	rows := regexp.MustCompile(`(?s)<tr class="issue" data-issue="([0-9a-f]+)">(.*?)</tr>`).FindAllStringSubmatch(list.dom, -1)
	if len(rows) < 4 {
		t.Fatalf("the list shows %d issues, want the checkout issue, the gift card and the planted ones:\n%s", len(rows), list.dom)
	}
	first := rows[0][2]
	if !strings.Contains(first, "integer divide by zero") || !strings.Contains(first, `<td class="num count">30</td>`) {
		t.Errorf("the first issue is not the checkout issue with 30 events:\n%s", first)
	}
	if !strings.Contains(first, `<td class="trend"><svg class="chart"`) || !strings.Contains(first, `aria-label="30 events, per hour, from `) {
		t.Errorf("the checkout issue has no trend of its 30 events in the list:\n%s", first)
	}
	if !strings.Contains(first, "errors://issues/"+rows[0][1]) {
		t.Errorf("the checkout issue does not name its MCP resource errors://issues/%s", rows[0][1])
	}

	// The checkout issue: its count, the failing frame with its source line, in a
	// screenshot too.
	shot := filepath.Join(t.TempDir(), "page.png")
	if p := os.Getenv("ERRORS_PAGE_SCREENSHOT"); p != "" {
		shot = p
	}
	issueURL := base + "/issues/" + rows[0][1]
	issue := runChromium(t, chromium, issueURL, "--dump-dom")
	runChromium(t, chromium, issueURL, "--screenshot="+shot, "--window-size=1280,900", "--hide-scrollbars")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Errorf("screenshot %s: %v (size %d)", shot, err, sizeOf(st))
	}
	frame := fmt.Sprintf("checkout/payment.go:%d", line)
	current := regexp.MustCompile(`<span class="line current"><span class="ln">(\d+)</span><span class="code">([^<]*)</span></span>`).FindStringSubmatch(issue.dom)
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"the count 30", strings.Contains(issue.dom, `<dd id="issue-count">30</dd>`)},
		{"a chart of the 30 events per hour", hourChartSum(issue.dom) == 30},
		{"the frame " + frame, strings.Contains(issue.dom, "example.com/shop/"+frame)},
		{"the frame's local file", strings.Contains(issue.dom, filepath.Join(shopDir, "checkout", "payment.go")+":"+fmt.Sprint(line))},
		{"the source line " + code + " as the frame's line", current != nil && current[1] == fmt.Sprint(line) && strings.TrimSpace(current[2]) == code},
		{"the currency tag", strings.Contains(issue.dom, `<span class="tv">EUR</span>`)},
		{"the MCP resource", strings.Contains(issue.dom, `<code id="issue-uri">errors://issues/`+rows[0][1]+`</code>`)},
		{"a link to the MCP resource", strings.Contains(issue.dom, `<a href="errors://issues/`+rows[0][1]+`">`)},
		{"a link to the frame's local file in the editor", strings.Contains(issue.dom,
			`<a class="editor" href="vscode://file`+filepath.ToSlash(filepath.Join(shopDir, "checkout", "payment.go"))+":"+fmt.Sprint(line)+`">`)},
	} {
		if !c.ok {
			t.Errorf("the checkout issue's page lacks %s", c.what)
		}
	}

	// Every page, the planted ones included: no script ran (no trace in the DOM) and
	// none was refused (the console is clean).
	runs := map[string]browserRun{"/": list, "/issues/" + rows[0][1]: issue}
	for _, r := range rows[1:] {
		runs["/issues/"+r[1]] = runChromium(t, chromium, base+"/issues/"+r[1], "--dump-dom")
	}
	runs["/setup"] = runChromium(t, chromium, base+"/setup", "--dump-dom")
	runs["/?q=<script>"] = runChromium(t, chromium, base+"/?q=%3Cscript%3Ealert(1)%3C/script%3E", "--dump-dom")
	planted := 0
	for path, r := range runs {
		if len(r.console) > 0 {
			t.Errorf("%s: the console is not clean: %q", path, r.console)
		}
		if strings.Contains(r.dom, "data-pwned") {
			t.Errorf("%s: a planted script ran", path)
		}
		if m := markupLeft(r.dom); m != "" {
			t.Errorf("%s: %q is in the DOM", path, m)
		}
		if strings.Contains(r.dom, "dataset.pwned") {
			planted++ // shown as text
		}
	}
	if planted < 3 {
		t.Errorf("the planted payloads are shown as text on %d pages, want every planted issue's", planted)
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return 0
	}
	return st.Size()
}

// hourChartSum adds up the counts of the bars of an issue page's hourly chart (their
// titles, "2026-05-02 11:00: 2"), or -1 without one.
func hourChartSum(dom string) int {
	fig := regexp.MustCompile(`(?s)<figure class="hours">.*?</figure>`).FindString(dom)
	if fig == "" {
		return -1
	}
	sum := 0
	for _, m := range regexp.MustCompile(`<rect [^>]*><title>[^<]*: (\d+)</title></rect>`).FindAllStringSubmatch(fig, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	return sum
}
