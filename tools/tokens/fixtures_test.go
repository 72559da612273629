package tokens

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	errorserver "github.com/mcpkit/reference/servers/errors"
	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/filesystem"
	"github.com/mcpkit/reference/servers/github"
	"github.com/mcpkit/reference/servers/postgres"
	"github.com/mcpkit/reference/servers/postgres/postgrestest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixedTime is every fixture file's modification time, so listings measure the same.
var fixedTime = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

// The filesystem fixture: the file a stack trace points at, a directory of 50
// entries and 20 lines that a content search finds.
const (
	fsSourceFile = "src/checkout/payment.go"
	fsListDir    = "web/assets"
	fsSearchText = "checkout.ErrDeclined"
)

// fsTree writes the filesystem fixture into a new temporary directory.
func fsTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fixedTime, fixedTime); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join("testdata", "payment.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	write(fsSourceFile, string(src))
	// 50 entries: 44 files of a web app's assets and 6 directories.
	kinds := []string{"icon-%s.svg", "banner-%s.webp", "%s.css", "%s.js"}
	words := []string{"cart", "checkout", "payment", "shipping", "account", "search", "product", "review", "wishlist", "promo", "footer"}
	n := 0
	for _, w := range words {
		for _, k := range kinds {
			write(fsListDir+"/"+fmt.Sprintf(k, w), strings.Repeat("x", 200+37*n))
			n++
		}
	}
	for _, d := range []string{"fonts", "images", "vendor", "locales", "legacy", "print"} {
		p := filepath.Join(dir, fsListDir, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Chtimes(p, fixedTime, fixedTime)
	}
	// 20 matching lines in five handlers.
	for f := range 5 {
		var b strings.Builder
		fmt.Fprintf(&b, "package api\n\nimport (\n\t\"errors\"\n\t\"net/http\"\n\n\t\"example.com/shop/checkout\"\n)\n\n")
		for i := range 4 {
			fmt.Fprintf(&b, "func handle%d%d(w http.ResponseWriter, err error) {\n", f, i)
			fmt.Fprintf(&b, "\tif errors.Is(err, %s) {\n\t\thttp.Error(w, \"payment declined\", http.StatusPaymentRequired)\n\t\treturn\n\t}\n", fsSearchText)
			b.WriteString("\thttp.Error(w, \"internal error\", http.StatusInternalServerError)\n}\n\n")
		}
		write(fmt.Sprintf("src/api/handler_%d.go", f), b.String())
	}
	return dir
}

// fsServer is the filesystem server over dir.
func fsServer(t testing.TB, dir string, writes bool) *mcpkit.Server {
	t.Helper()
	roots, err := filesystem.OpenRoots(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { roots.Close() })
	return filesystem.New(filesystem.Config{AllowWrites: writes, Logger: quiet}, roots)
}

// pgFixture is an orders table of 30 rows.
const pgFixture = `
CREATE TABLE orders (
	id bigint PRIMARY KEY,
	customer_email text NOT NULL,
	status text NOT NULL,
	total numeric(10,2) NOT NULL,
	currency char(3) NOT NULL,
	created_at timestamptz NOT NULL
);
INSERT INTO orders
SELECT i, 'customer' || i || '@example.com',
	(ARRAY['paid','pending','declined','refunded'])[1 + i % 4],
	round((19.99 + i * 7.5)::numeric, 2), 'EUR',
	timestamptz '2026-11-01 08:00:00+00' + i * interval '37 minutes'
FROM generate_series(1, 30) AS i;
`

// pgQuery returns 20 rows.
const pgQuery = "SELECT id, customer_email, status, total, currency, created_at FROM orders ORDER BY id LIMIT 20"

// pgServer is the postgres server over a fresh database with pgFixture.
func pgServer(t testing.TB, writes bool) *mcpkit.Server {
	t.Helper()
	url := postgrestest.NewDatabase(t, pgFixture)
	db, err := postgres.Open(t.Context(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return postgres.New(postgres.Config{AllowWrites: writes, Logger: quiet}, db)
}

// pgThreeServer is the postgres server over three fresh databases with pgFixture, each
// with a description and none the default: the most a server with several databases
// adds to what the model reads (a database argument on every tool, required, and the
// databases named once in the instructions).
func pgThreeServer(t testing.TB, writes bool) *mcpkit.Server {
	t.Helper()
	var list []postgres.NamedDB
	for _, d := range []struct{ name, description string }{
		{"app", "the local app database"}, {"staging", "staging replica, read only"}, {"reports", "daily reporting database"},
	} {
		db, err := postgres.Open(t.Context(), postgrestest.NewDatabase(t, pgFixture), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		list = append(list, postgres.NamedDB{Name: d.name, Description: d.description, DB: db})
	}
	s, err := postgres.NewMulti(postgres.Config{AllowWrites: writes, Logger: quiet}, list, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// errorsKey is the fixture store's DSN public key.
const errorsKey = "0123456789abcdef0123456789abcdef"

// errorsStore is the local event store with a checkout failure (three events), a
// timeout (two) and a message (one), sent through its ingest endpoint as an SDK sends
// them.
func errorsStore(t testing.TB) *errorserver.LocalStore {
	t.Helper()
	store, err := errorserver.OpenLocal(errorserver.LocalConfig{DataDir: t.TempDir(), PublicKeys: []string{errorsKey}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := httptest.NewServer(ingest.Handler(store))
	defer srv.Close()
	now := time.Now().UTC()
	send := func(i int, ev map[string]any) {
		ev["event_id"] = fmt.Sprintf("%032x", 0xe000+i)
		ev["timestamp"] = now.Add(time.Duration(i-10) * time.Minute).Format(time.RFC3339)
		body := compactJSON(ev)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/42/store/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Sentry-Auth", "Sentry sentry_version=7, sentry_key="+errorsKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ingest: %d %s", resp.StatusCode, b)
		}
	}
	for i, user := range []string{"ann", "bob", "cy"} {
		send(i, checkoutEvent(user))
	}
	for i := range 2 {
		ev := checkoutEvent("dee")
		ev["exception"].(map[string]any)["values"].([]any)[0].(map[string]any)["type"] = "*url.Error"
		ev["exception"].(map[string]any)["values"].([]any)[0].(map[string]any)["value"] = "Post \"https://psp.example.com/v1/charges\": context deadline exceeded"
		send(3+i, ev)
	}
	send(5, map[string]any{"level": "warning", "platform": "go", "environment": "production", "release": "shop@1.4.2",
		"message": map[string]any{"formatted": "inventory low for sku 4711"}, "tags": map[string]string{"server_name": "web-2"}})
	// The store indexes what it acknowledged; wait until all six events are searchable.
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := store.SearchIssues(t.Context(), backend.SearchIssuesInput{StatsPeriod: "1h", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		events := int64(0)
		for _, is := range res.Issues {
			events += is.Count
		}
		if events == 6 {
			return store
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store indexed %d of 6 events", events)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkoutEvent is a Go SDK event of a declined card in the checkout service: the
// exception with its stack (in-app frames with source context), breadcrumbs, the
// request, the user, tags and contexts.
func checkoutEvent(user string) map[string]any {
	src := strings.Split(paymentSource, "\n")
	frame := func(fn, module, file string, line int, inApp bool) map[string]any {
		f := map[string]any{"function": fn, "module": module, "filename": file, "abs_path": "/src/shop/" + file, "lineno": line, "in_app": inApp}
		if inApp && file == "checkout/payment.go" {
			f["context_line"] = src[line-1]
			f["pre_context"] = src[line-6 : line-1]
			f["post_context"] = src[line : line+5]
		}
		return f
	}
	frames := []any{
		frame("main", "main", "cmd/shop/main.go", 41, true),
		frame("(*Server).Serve", "net/http", "net/http/server.go", 3285, false),
		frame("(*conn).serve", "net/http", "net/http/server.go", 2092, false),
		frame("serverHandler.ServeHTTP", "net/http", "net/http/server.go", 3210, false),
		frame("(*Mux).ServeHTTP", "github.com/go-chi/chi/v5", "chi/v5/mux.go", 90, false),
		frame("(*Handlers).PostCheckout", "example.com/shop/api", "api/checkout.go", 77, true),
		frame("(*Service).PlaceOrder", "example.com/shop/checkout", "checkout/service.go", 58, true),
		frame("(*Charger).Charge", "example.com/shop/checkout", "checkout/payment.go", 64, true),
	}
	crumbs := []any{}
	for i, c := range []string{"GET /cart", "POST /checkout", "SELECT orders WHERE id = $1", "POST https://psp.example.com/v1/charges", "card declined"} {
		crumbs = append(crumbs, map[string]any{"timestamp": fixedTime.Add(time.Duration(i) * time.Second).Format(time.RFC3339), "category": []string{"http", "http", "query", "http", "log"}[i], "message": c, "level": "info"})
	}
	return map[string]any{
		"level": "error", "platform": "go", "environment": "production", "release": "shop@1.4.2", "server_name": "web-1",
		"exception": map[string]any{"values": []any{map[string]any{
			"type": "*errors.errorString", "value": "card declined: insufficient_funds",
			"stacktrace": map[string]any{"frames": frames},
		}}},
		"breadcrumbs": map[string]any{"values": crumbs},
		"request":     map[string]any{"method": "POST", "url": "https://shop.example.com/checkout", "headers": map[string]string{"Content-Type": "application/json", "User-Agent": "Mozilla/5.0"}},
		"user":        map[string]any{"id": user, "email": user + "@example.com"},
		"tags":        map[string]string{"payment.provider": "psp", "order.currency": "EUR"},
		"contexts":    map[string]any{"os": map[string]any{"name": "linux"}, "runtime": map[string]any{"name": "go", "version": "go1.26.0"}},
		"sdk":         map[string]any{"name": "sentry.go", "version": "0.46.2"},
	}
}

// paymentSource is the fixture source file the checkout event's frames point into.
var paymentSource = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "payment.go.txt"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// errorsServer is the errors server over the fixture store.
func errorsServer(t testing.TB, store *errorserver.LocalStore) *mcpkit.Server {
	return errorserver.New(errorserver.Config{Logger: quiet}, store)
}

// githubFake is an HTTP fake of the GitHub Enterprise REST API (every path under
// /api/v3/) serving the github server's own test fixtures for octo/hello.
func githubFake(t testing.TB) *httptest.Server {
	t.Helper()
	data := filepath.Join("..", "..", "servers", "github", "testdata")
	mux := http.NewServeMux()
	serve := func(pattern, file string) {
		body, err := os.ReadFile(filepath.Join(data, file))
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("X-RateLimit-Limit", "5000")
			w.Header().Set("X-RateLimit-Remaining", "4999")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(time.Hour).Unix()))
			w.Write(body)
		})
	}
	const r = "GET /api/v3/repos/octo/hello"
	serve(r, "repo_hello.json")
	serve(r+"/issues/7", "issue_7.json")
	serve(r+"/issues/7/comments", "issue_7_comments.json")
	serve(r+"/pulls/4", "pull_4.json")
	serve(r+"/pulls/4/files", "pull_4_files.json")
	serve(r+"/pulls/4/reviews", "pull_4_reviews.json")
	serve(r+"/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/status", "status_e5bd.json")
	serve(r+"/commits/e5bd3914e2e596debea16f433f57875b5b90bcd6/check-runs", "check_runs_e5bd.json")
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// githubServer is the github server over the fake: the default toolsets, or with all
// every toolset (issue 29).
func githubServer(t testing.TB, fake *httptest.Server, writes bool, all ...bool) *mcpkit.Server {
	t.Helper()
	var sel github.Selection
	if len(all) > 0 && all[0] {
		var err error
		if sel, err = github.ParseSelection("all", ""); err != nil {
			t.Fatal(err)
		}
	}
	b, err := github.NewBackend(github.BackendConfig{Token: "ghp_TOKENS0123456789abcdef0123456789ab", Host: fake.URL, Timeout: 10 * time.Second, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return github.New(github.Config{Selection: sel, AllowWrites: writes, Logger: quiet}, b)
}
