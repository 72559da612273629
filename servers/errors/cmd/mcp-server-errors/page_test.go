package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getsentry/sentry-go"
)

// getText fetches a URL and returns its status and body.
func getText(t *testing.T, method, u string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPageOnTheIngestAddress: the process that ingests serves the page on its ingest
// address (the MCP server on stdio here; the collector in TestCollectorAndReaders),
// events sent by sentry-go are on it, the page refuses other methods while the
// ingest endpoints keep working, and --page=false leaves only the ingest endpoints.
func TestPageOnTheIngestAddress(t *testing.T) {
	for _, on := range []bool{true, false} {
		args := []string{"--data", t.TempDir(), "--ingest", "127.0.0.1:0"}
		if !on {
			args = append(args, "--page=false")
		}
		r := start(t, args, map[string]string{"HOME": t.TempDir()}, "2026-07-28")
		dsn := r.dsn(t)
		u, _ := url.Parse(dsn)
		base := "http://" + u.Host
		client, err := sentry.NewClient(sentry.ClientOptions{Dsn: dsn, Transport: sentry.NewHTTPSyncTransport()})
		if err != nil {
			t.Fatal(err)
		}
		client.CaptureMessage("shown on the page", nil, sentry.NewScope())
		client.Flush(5 * time.Second)
		status, body := getText(t, "GET", base+"/")
		switch {
		case on && (status != 200 || !strings.Contains(body, "shown on the page")):
			t.Errorf("GET / with the page on: %d\n%s", status, body)
		case !on && status != 404:
			t.Errorf("GET / with --page=false: %d, want the ingest endpoints' 404\n%s", status, body)
		}
		if status, _ := getText(t, "POST", base+"/"); on && status != 405 {
			t.Errorf("POST / with the page on: %d, want 405", status)
		}
		// Checked once the listener answered: the line is logged before it serves (the
		// DSN line, which start waits for, comes earlier).
		if got := strings.Contains(r.stderr.String(), "page="+base+"/"); got != on {
			t.Errorf("--page=%v: the page's address logged: %v\n%s", on, got, r.stderr.String())
		}
	}
}
