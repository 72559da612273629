package postgres

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// shopSQL is the fixture the MCP tests read: two related tables with comments, a
// sequence, a table t for the bypass and write tests, and a table whose name needs
// quoting and percent-encoding (never analyzed, so it has no row estimate).
const shopSQL = `
CREATE SCHEMA shop;
COMMENT ON SCHEMA shop IS 'Online shop';
CREATE TABLE shop.customers (id bigint PRIMARY KEY, name text NOT NULL, email text UNIQUE);
COMMENT ON TABLE shop.customers IS 'People who buy things';
CREATE TABLE shop.orders (
  id bigint PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES shop.customers(id),
  total numeric(10,2) NOT NULL,
  status text NOT NULL DEFAULT 'new');
COMMENT ON COLUMN shop.orders.status IS 'new, paid or shipped';
INSERT INTO shop.customers VALUES (1, 'Ada', 'ada@example.com'), (2, 'Linus', 'linus@example.com');
INSERT INTO shop.orders VALUES (10, 1, 12.50, 'paid'), (11, 1, 3.20, 'new'), (12, 2, 99.99, 'paid');
CREATE SEQUENCE shop.s;
CREATE TABLE public.t (id int PRIMARY KEY, v text);
INSERT INTO public.t SELECT g, 'v' || g FROM generate_series(1, 5) g;
ANALYZE;
CREATE TABLE shop."Order Items/2024?#%" (x int);
`

var elicitCaps = map[string]any{"elicitation": map[string]any{}}

// quietLogger drops the server's logs: tests assert on results, not on log lines.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// shopDB creates a database with shopSQL and opens a DB on it as the superuser
// (a role that can write: the server, not the role, must hold the line).
func shopDB(t *testing.T, opts Options) (*pgtest.Database, *DB) {
	t.Helper()
	d := pgtest.NewDatabase(t)
	d.Exec(t, shopSQL)
	return d, openDB(t, d.URL, opts)
}

// newServer builds the MCP server over db with quiet logs.
func newServer(db *DB, cfg Config) *mcpkit.Server {
	cfg.Logger = quietLogger()
	return New(cfg, db)
}

// structured checks a tool result (a success whose text is the same JSON object as its
// structuredContent) and returns the structuredContent; a failed check ends the test.
func structured(t *testing.T, what string, res *mcpkittest.ToolResult) map[string]any {
	t.Helper()
	return mustJSONResult(t, what, res.Text(), res.IsError, res.StructuredContent)
}

// mustJSONResult is realclient.CheckJSONResult, ending the test when a check fails.
func mustJSONResult(t *testing.T, what, text string, isError bool, structured any) map[string]any {
	t.Helper()
	m := realclient.CheckJSONResult(t, what, text, isError, structured)
	if m == nil {
		t.FailNow()
	}
	return m
}

// callTool is c.CallTool without the client's re-encoding of the arguments (which
// turns numbers into float64): json.Number arguments reach the server digit for digit.
func callTool(t *testing.T, c *mcpkittest.Client, name string, args map[string]any) *mcpkittest.ToolResult {
	t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if c.Revision == mcpkit.Revision20260728 {
		params["_meta"] = c.Meta()
	}
	r := c.RequestRaw("tools/call", params)
	if r.Error != nil {
		t.Fatalf("tools/call %s: %d %s", name, r.Error.Code, r.Error.Message)
	}
	var res mcpkittest.ToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// jsonAt re-encodes part of a decoded result, for compact comparisons.
func jsonAt(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rowCount counts rows of a table directly (pgx, not the server under test).
func rowCount(t *testing.T, db *DB, sql string) int64 {
	t.Helper()
	var n int64
	if err := db.Pool().QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}
