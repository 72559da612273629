// Package sentrytest is a fake Sentry REST API for tests: it serves recorded answers
// (testdata, embedded) the way sentry.io would, under an optional path prefix, and
// records every request. The tests of sentryapi, of the tools and of the command use
// it; no non-test code imports it. It imports sentryapi (NewBackend), nothing else of
// this module.
package sentrytest

import (
	stdcmp "cmp"
	"embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/sentryapi"
)

// fixtures are the Sentry API answers the fake serves (testdata/README.md says where
// they come from).
//
//go:embed testdata/*.json
var fixtures embed.FS

// Token is the API token the fake accepts.
const Token = "sntrys_test_0123456789abcdef"

// Server serves the fixtures in testdata the way the Sentry API would, under
// an optional path prefix (self-hosted installs), and records every request.
type Server struct {
	t      *testing.T
	prefix string

	mu       sync.Mutex
	requests []*url.URL
	// override, when set for a path (without prefix), answers instead of the fixtures.
	override map[string]http.HandlerFunc
}

func New(t *testing.T, prefix string) (*Server, *httptest.Server) {
	f := &Server{t: t, prefix: prefix, override: map[string]http.HandlerFunc{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *Server) SetOverride(path string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.override[path] = h
}

func (f *Server) Seen() []*url.URL {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*url.URL(nil), f.requests...)
}

func Fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// link renders Sentry's Link header for a page whose next cursor is next.
func link(base, next string, more bool) string {
	return fmt.Sprintf(`<%s?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <%s?cursor=%s>; rel="next"; results="%t"; cursor="%s"`, base, base, next, more, next)
}

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u := *r.URL
	f.mu.Lock()
	f.requests = append(f.requests, &u)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+Token {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"detail": "Invalid token"}`))
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, f.prefix)
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	f.mu.Lock()
	h := f.override[path]
	f.mu.Unlock()
	if h != nil {
		h(w, r)
		return
	}
	serve := func(name string) { w.Write(Fixture(f.t, name)) }
	switch path {
	case "/api/0/organizations/":
		serve("organizations.json")
	case "/api/0/organizations/acme/projects/":
		serve("projects.json")
	case "/api/0/organizations/acme/issues/":
		base := "https://sentry.io/api/0/organizations/acme/issues/"
		switch r.URL.Query().Get("cursor") {
		case "":
			w.Header().Set("Link", link(base, "0:2:0", true))
			serve("issues_page1.json")
		case "0:2:0":
			w.Header().Set("Link", link(base, "0:4:0", true))
			serve("issues_page2.json")
		case "0:4:0":
			w.Header().Set("Link", link(base, "0:6:0", false))
			serve("issues_page3.json")
		default:
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"detail": "Invalid cursor parameter."}`))
		}
	default:
		m := fakeIssuePath.FindStringSubmatch(path)
		if m == nil {
			notFound(w)
			return
		}
		id, rest := m[1], m[2]
		switch {
		case rest == "":
			f.serveFixture(w, "issue_"+id+".json")
		case rest == "events/":
			w.Header().Set("Link", link("https://sentry.io/api/0/organizations/acme/issues/"+id+"/events/", "1777730281000:0:0", false))
			f.serveFixture(w, "issue_"+id+"_events.json")
		case rest == "events/latest/":
			f.serveFixture(w, "event_"+id+"_latest.json")
		case rest == "tags/":
			f.serveFixture(w, "issue_"+id+"_tags.json")
		default:
			t := fakeTagPath.FindStringSubmatch(rest)
			if t == nil {
				notFound(w)
				return
			}
			f.serveTag(w, r, id, t[1], t[2] != "")
		}
	}
}

var (
	fakeIssuePath = regexp.MustCompile(`^/api/0/organizations/acme/issues/([0-9]+)/(.*)$`)
	fakeTagPath   = regexp.MustCompile(`^tags/([^/]+)/(values/)?$`)
)

func notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte(`{"detail": "The requested resource does not exist"}`))
}

// serveFixture serves testdata/name, or 404 as Sentry answers for what does not exist.
func (f *Server) serveFixture(w http.ResponseWriter, name string) {
	b, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		notFound(w)
		return
	}
	w.Write(b)
}

// serveTag answers an issue's tag details (/tags/KEY/) or its values (/tags/KEY/values/)
// from issue_ID_tag_KEY[_values].json, else from the key's entry in issue_ID_tags.json.
// Values are ordered as Sentry orders them (see sentryTagValueOrder).
func (f *Server) serveTag(w http.ResponseWriter, r *http.Request, issue, key string, values bool) {
	name := "issue_" + issue + "_tag_" + key
	if values {
		name += "_values"
	}
	var detail struct {
		TopValues []map[string]any `json:"topValues"`
	}
	var list []map[string]any
	if b, err := fixtures.ReadFile("testdata/" + name + ".json"); err == nil {
		if !values {
			w.Write(b)
			return
		}
		if err := json.Unmarshal(b, &list); err != nil {
			f.t.Errorf("fixture %s: %v", name, err)
		}
	} else {
		var tags []json.RawMessage
		if err := json.Unmarshal(Fixture(f.t, "issue_"+issue+"_tags.json"), &tags); err != nil {
			f.t.Errorf("fixture issue_%s_tags.json: %v", issue, err)
		}
		found := false
		for _, raw := range tags {
			var k struct{ Key string }
			if json.Unmarshal(raw, &k) == nil && k.Key == key {
				found = true
				if !values {
					w.Write(raw)
					return
				}
				json.Unmarshal(raw, &detail)
				list = detail.TopValues
			}
		}
		if !found {
			notFound(w)
			return
		}
	}
	sentryTagValueOrder(list, r.URL.Query().Get("sort"))
	b, _ := json.Marshal(list)
	w.Write(b)
}

// sentryTagValueOrder orders tag values the way Sentry's "List a Tag's Values for an
// Issue" endpoint does (GroupTagKeyValuesEndpoint and its Snuba tag store): sort=date
// by last seen, age by first seen, count by times seen, each descending; any other
// value ("-count" too) or none becomes order_by "-id", which the tag store serves by
// first seen, descending.
func sentryTagValueOrder(list []map[string]any, sort string) {
	field := map[string]string{"date": "lastSeen", "age": "firstSeen", "count": "count"}[sort]
	if field == "" {
		field = "firstSeen"
	}
	slices.SortStableFunc(list, func(a, b map[string]any) int {
		if field == "count" {
			x, _ := a["count"].(float64)
			y, _ := b["count"].(float64)
			return stdcmp.Compare(int64(y), int64(x))
		}
		x, _ := a[field].(string)
		y, _ := b[field].(string)
		return strings.Compare(y, x) // RFC 3339 in UTC: text order is time order
	})
}

func NewBackend(t *testing.T, baseURL string, mod ...func(*sentryapi.Config)) *sentryapi.Backend {
	t.Helper()
	cfg := sentryapi.Config{BaseURL: baseURL, Token: Token, Organization: "acme", Logger: slog.New(slog.DiscardHandler),
		CallTimeout: 5 * time.Second, AttemptTimeout: 2 * time.Second, MaxRetryWait: 2 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	b, err := sentryapi.New(cfg)
	if err != nil {
		t.Fatalf("NewSentryBackend: %v", err)
	}
	return b
}
