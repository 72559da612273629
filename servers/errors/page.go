package errorserver

import (
	"bytes"
	"embed"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
)

// The page: what the local store holds, for the person whose application sends the
// errors, in a browser, on the ingest address (http://127.0.0.1:8970/), as Spotlight
// shows its events on http://localhost:8969/. It is server-rendered with html/template
// (every value escaped by context) and a stylesheet, with no script at all, and it only
// reads: every page is a GET, forms are GET forms, nothing changes state.
//
//	GET /                 issues seen in a window (project, environment, period and
//	                      the search syntax of search_issues), most recent first
//	GET /issues/{id}      one issue: counts, tag distributions, an event (the latest,
//	                      or ?event=ID) with its exception chain, frames (in-app
//	                      first, with source lines and local paths), breadcrumbs,
//	                      request and user, and its events paged 50 at a time
//	GET /setup            the DSN per project and how to point an SDK at it
//	GET /page.css         the stylesheet
//
// Other paths go to the ingest endpoints unchanged.

//go:embed page_templates
var pageFS embed.FS

// pageCSP forbids every script (inline or not), every plug-in and every frame, allows
// the stylesheet from this origin and images from this origin and data: URLs (the
// empty icon), and keeps forms on this origin.
const pageCSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// PageConfig configures the page.
type PageConfig struct {
	// DSN is the DSN applications send to (its project number is replaced per
	// project on the setup page). Empty: the page does not show one.
	DSN string
	// SpotlightURL is where SDKs with their spotlight option on send ("" when off).
	SpotlightURL string
	// CodeMappings and InApp are the server's (see Config): frames show the local
	// path the mappings give, in-app frames come first.
	CodeMappings []event.CodeMapping
	InApp        []string
	// Hosts are names besides localhost, 127.0.0.1 and ::1 that the page answers to
	// in the Host header (such as the address the listener was given). Any other
	// name is refused, so that a web site cannot read the page through DNS
	// rebinding (its own name resolving to 127.0.0.1).
	Hosts []string
	// Logger receives the page's errors. nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock. nil: time.Now.
	Now func() time.Time
}

type page struct {
	store  *LocalStore
	cfg    PageConfig
	codes  *event.CodeMap
	hosts  map[string]bool
	logger *slog.Logger
	now    func() time.Time
	tmpl   map[string]*template.Template
	css    []byte
	next   http.Handler
}

// PageHandler serves the page on its paths and hands every other request to next
// (the ingest endpoints: IngestHandler).
func (s *LocalStore) PageHandler(cfg PageConfig, next http.Handler) http.Handler {
	p := &page{store: s, cfg: cfg, codes: event.NewCodeMap(cfg.CodeMappings, cfg.InApp), next: next,
		hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}, logger: cfg.Logger, now: cfg.Now}
	for _, h := range cfg.Hosts {
		if h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]")); h != "" {
			p.hosts[h] = true
		}
	}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	if p.now == nil {
		p.now = time.Now
	}
	p.tmpl = parsePageTemplates()
	p.css, _ = pageFS.ReadFile("page_templates/page.css")
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", p.guard(p.serveList))
	mux.HandleFunc("/issues/{id}", p.guard(p.serveIssue))
	mux.HandleFunc("/setup", p.guard(p.serveSetup))
	mux.HandleFunc("/page.css", p.guard(p.serveCSS))
	mux.Handle("/", next)
	return mux
}

// parsePageTemplates parses each page with the shared layout. The templates are part
// of the binary: a parse error is a bug that every test of the page finds.
func parsePageTemplates() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"list", "issue", "setup", "error"} {
		t := template.New("layout.tmpl").Funcs(pageFuncs)
		out[name] = template.Must(t.ParseFS(pageFS, "page_templates/layout.tmpl", "page_templates/"+name+".tmpl"))
	}
	return out
}

// guard applies what every page response shares: the headers, the Host check and
// the methods (GET and HEAD only: nothing on the page changes state).
func (p *page) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", pageCSP)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cache-Control", "no-store")
		if !p.hostAllowed(r.Host) {
			hd.Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusMisdirectedRequest)
			w.Write([]byte("This page answers to localhost, 127.0.0.1 and [::1] only, not to the host name this request was sent to: open it as http://localhost:PORT/ on the machine the collector runs on. (A page of another site that made its name resolve to this machine must not read your errors.)\n"))
			return
		}
		if crossSiteSubresource(r) {
			hd.Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte("This page is not served to other sites' scripts, images or frames: open it yourself, at http://localhost:PORT/.\n"))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			hd.Set("Allow", "GET, HEAD")
			hd.Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusMethodNotAllowed)
			w.Write([]byte("The page only reads: use GET. (SDKs send events to /api/<project>/envelope/.)\n"))
			return
		}
		h(w, r)
	}
}

// crossSiteSubresource reports a request a browser made for another site's page
// other than by following a link: a fetch, an image, a script, a frame (Fetch
// Metadata: Sec-Fetch-Site cross-site, Sec-Fetch-Mode not navigate). Such a page
// cannot read the answer (no CORS header, and the Host check stops DNS rebinding),
// but it could make the collector run searches over and over; a person following a
// link from anywhere still gets the page. Requests without the header (curl, older
// browsers) are served.
func crossSiteSubresource(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.Header.Get("Sec-Fetch-Mode") != "navigate"
}

// hostAllowed reports whether the Host header names this machine's loopback or a
// configured name.
func (p *page) hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return p.hosts[strings.ToLower(strings.Trim(host, "[]"))]
}

func (p *page) serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	w.Write(p.css)
}

// render executes a page into a buffer first, so that a failure midway gives an
// error page rather than half a page.
func (p *page) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := p.tmpl[name].Execute(&buf, data); err != nil {
		p.logger.Error("page: render", "page", name, "error", err.Error())
		buf.Reset()
		status = http.StatusInternalServerError
		p.tmpl["error"].Execute(&buf, errorPage{pageBase: p.base("Error"), Status: status, Message: "the page could not be rendered: " + err.Error()})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// pageBase is what the layout needs on every page.
type pageBase struct {
	Title string
	Now   string
}

func (p *page) base(title string) pageBase {
	return pageBase{Title: backend.MarkHidden(title), Now: backend.FormatTime(p.now())}
}

type errorPage struct {
	pageBase
	Status  int
	Message string
}

func (p *page) fail(w http.ResponseWriter, status int, msg string) {
	p.render(w, status, "error", errorPage{pageBase: p.base(http.StatusText(status)), Status: status, Message: backend.MarkHidden(msg)})
}
