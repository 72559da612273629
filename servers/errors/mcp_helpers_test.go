package errorserver

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/getsentry/sentry-go"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// revisions are the protocol revisions every tool is exercised at.
var revisions = []string{"2026-07-28", "2025-11-25"}

// seeded is a local store fed by real sentry-go events, with the ids of its issues.
type seeded struct {
	store      *LocalStore
	dir        string
	charge     string // "card declined": 3 staging + 1 production events
	cart       string // wrapped error, 2 events: a chain of two exceptions
	inventory  string // message "inventory low", 2 events
	slow       string // message "payment provider slow", 1 event
	panicked   string // recovered panic, 1 fatal event
	chargeLine int    // the line chargeCard captures on
}

// seedLocalStore opens a store in dir and sends it the events of the end-to-end test
// with sentry-go through its ingest endpoint: 10 events in 5 issues, project 42.
func seedLocalStore(t *testing.T, dir string) *seeded {
	t.Helper()
	store := openTestStore(t, dir)
	t.Cleanup(func() { store.Close() })
	_, dsn := startIngest(t, store)
	staging := errorstest.NewTestHub(t, dsn, "staging", nil)
	production := errorstest.NewTestHub(t, dsn, "production", nil)
	flush := func(hub *sentry.Hub) {
		if !hub.Flush(10 * time.Second) {
			t.Fatal("sentry-go did not flush")
		}
	}
	sd := &seeded{store: store, dir: dir}
	for range 3 {
		sd.chargeLine = errorstest.ChargeCard(staging)
	}
	errorstest.LoadCart(staging, "ann")
	flush(staging)
	errorstest.LoadCart(staging, "bob")
	staging.CaptureMessage("inventory low")
	staging.CaptureMessage("inventory low")
	staging.CaptureMessage("payment provider slow")
	errorstest.Explode(staging)
	flush(staging)
	errorstest.ChargeCard(production)
	flush(production)

	res, err := store.SearchIssues(t.Context(), backend.SearchIssuesInput{StatsPeriod: "1h", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, is := range res.Issues {
		switch {
		case is.Title == "*errors.errorString: card declined":
			sd.charge = is.ID
		case strings.HasPrefix(is.Title, "*fmt.wrapError: load cart of"):
			sd.cart = is.ID
		case is.Title == "inventory low":
			sd.inventory = is.ID
		case is.Title == "payment provider slow":
			sd.slow = is.ID
		case strings.Contains(is.Title, "assignment to entry in nil map"):
			sd.panicked = is.ID
		}
	}
	if sd.charge == "" || sd.cart == "" || sd.inventory == "" || sd.slow == "" || sd.panicked == "" || len(res.Issues) != 5 {
		t.Fatalf("seeded issues %+v; want the five issues of the end-to-end test", res.Issues)
	}
	return sd
}

// connect serves New(cfg, b) to an in-memory client of the revision.
func connect(t *testing.T, b backend.Backend, cfg Config, revision string) *mcpkittest.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	return mcpkittest.Connect(t, New(cfg, b), revision, nil)
}

// callOK calls a tool, checks that it succeeded and that its text is exactly its
// structuredContent (one compact JSON object), and decodes the result into out.
func callOK(t *testing.T, c *mcpkittest.Client, name string, args map[string]any, out any) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res := c.CallTool(name, args)
	if res.IsError {
		t.Fatalf("%s(%v) at %s: isError: %s", name, args, c.Revision, res.Text())
	}
	if len(res.Content) != 1 || res.Text() != string(res.StructuredContent) {
		t.Fatalf("%s at %s: text and structuredContent differ:\ntext: %s\nstructured: %s", name, c.Revision, res.Text(), res.StructuredContent)
	}
	if strings.Contains(res.Text(), "\n") {
		t.Errorf("%s at %s: result is not compact JSON", name, c.Revision)
	}
	dec := json.NewDecoder(strings.NewReader(res.Text()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%s at %s: decoding %s: %v", name, c.Revision, res.Text(), err)
	}
}

// callErr calls a tool that must fail and returns its message.
func callErr(t *testing.T, c *mcpkittest.Client, name string, args map[string]any) string {
	t.Helper()
	res := c.CallTool(name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) at %s succeeded with %s; want isError", name, args, c.Revision, res.Text())
	}
	return res.Text()
}

// copyDir copies a closed store's data directory, so that each server process of a
// test gets its own (a data directory is locked by the process using it).
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if d.Name() == "LOCK" {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}
