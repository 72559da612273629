package postgres

// Real clients against the server: the official Go SDK client and the Inspector CLI,
// over stdio (the built binary, pointed at a test database with DATABASE_URL) and
// Streamable HTTP (httptest with the server's HTTPHandler).

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// serverBinary builds cmd/mcp-server-postgres once per test run, only when a test
// needs it.
func serverBinary(t *testing.T) string {
	t.Helper()
	return realclient.BuildCommand(t, "./cmd/mcp-server-postgres")
}

// cleanEnv blanks every variable the binary reads (this server's own and
// serve.StandardEnv), so the developer's own settings do not leak into a test; the
// caller's settings are appended after it.
func cleanEnv(extra ...string) []string {
	env := []string{"POSTGRES_ALLOW_WRITES=", "POSTGRES_NO_CONFIRM=", "POSTGRES_ALLOW_SUPERUSER=", "POSTGRES_STATEMENT_TIMEOUT=",
		"POSTGRES_MAX_ROWS=", "POSTGRES_MAX_BYTES=", "POSTGRES_MAX_CONNS=", "PGPASSWORD="}
	for _, name := range serve.StandardEnv() {
		env = append(env, name+"=")
	}
	return append(env, extra...)
}

// readerURL creates the recommended role (login, pg_read_all_data only) in d and
// returns its URL.
func readerURL(t *testing.T, d *pgtest.Database) string {
	t.Helper()
	role := d.CreateRole(t, "reader", "", "")
	d.Exec(t, "GRANT pg_read_all_data TO "+role)
	return d.URLAs(role, "")
}

// targets returns the server as a stdio target (the binary, connecting as url) and
// an HTTP target (New over db), both read-only unless writes.
func targets(t *testing.T, url string, db *DB, writes bool) map[string]realclient.Target {
	t.Helper()
	allow := ""
	if writes {
		allow = "1"
	}
	return map[string]realclient.Target{
		"stdio": {Command: []string{serverBinary(t)}, Env: cleanEnv("DATABASE_URL="+url, "POSTGRES_ALLOW_WRITES="+allow)},
		"http":  realclient.HTTPTarget(t, newServer(db, Config{AllowWrites: writes}).HTTPHandler(nil)),
	}
}

// TestGoSDKClientEveryReadTool: the Go SDK client (v1.8.0) lists the tools and calls
// every read tool, over stdio (the binary connected as the recommended read-only
// role) and HTTP, at 2026-07-28 and 2025-11-25.
func TestGoSDKClientEveryReadTool(t *testing.T) {
	t.Parallel()
	d, _ := shopDB(t, Options{})
	url := readerURL(t, d)
	db := openDB(t, url, Options{})
	for transport, target := range targets(t, url, db, false) {
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				cs := realclient.GoSDK(t, target, rev)
				realclient.CheckGoSDKTools(t, cs, readTools, readTools)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				for _, tc := range readCases {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
					if err != nil {
						t.Errorf("%s: %v", tc.name, err)
						continue
					}
					t.Run(tc.name, func(t *testing.T) {
						tc.check(t, sdkStructured(t, res))
					})
				}
			})
		}
	}
}

// sdkStructured checks a Go SDK tool result (not an error, text equal to the
// structured content) and returns the structured content.
func sdkStructured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	return mustJSONResult(t, "Go SDK", realclient.GoSDKText(res), res.IsError, res.StructuredContent)
}

// TestGoSDKClientConfirmsExecute: execute's confirmation completes with the Go SDK
// client's elicitation handler at 2026-07-28 (input_required, then the SDK's retry),
// over stdio (the binary with POSTGRES_ALLOW_WRITES=1, connected as a role that may
// update the table) and HTTP: accepted, the rows change; declined, nothing changes.
func TestGoSDKClientConfirmsExecute(t *testing.T) {
	t.Parallel()
	d, admin := shopDB(t, Options{})
	role := d.CreateRole(t, "writer", "", "")
	d.Exec(t, "GRANT SELECT, UPDATE ON public.t TO "+role)
	url := d.URLAs(role, "")
	db := openDB(t, url, Options{})
	for transport, target := range targets(t, url, db, true) {
		for _, action := range []string{"decline", "accept"} {
			t.Run(transport+"/"+action, func(t *testing.T) {
				var asked []string
				client := mcp.NewClient(&mcp.Implementation{Name: "postgres-execute-test", Version: "1.0.0"}, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, strings.Split(req.Params.Message, "\n")[2])
						return &mcp.ElicitResult{Action: action, Content: map[string]any{"confirm": true}}, nil
					},
				})
				cs := realclient.GoSDKConnect(t, client, target, "2026-07-28")
				value := transport + "-" + action
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute",
					Arguments: map[string]any{"sql": "UPDATE public.t SET v = $1 WHERE id = 1", "params": []any{value}}})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff([]string{"UPDATE public.t SET v = $1 WHERE id = 1"}, asked); d != "" {
					t.Errorf("statements shown for confirmation (-want +got):\n%s", d)
				}
				var n int64
				if err := admin.Pool().QueryRow(context.Background(), "SELECT count(*) FROM public.t WHERE v = $1", value).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if action == "accept" {
					if out := sdkStructured(t, res); out["command"] != "UPDATE 1" || n != 1 {
						t.Errorf("accepted: result %v, %d rows with the new value; want UPDATE 1 and 1 row", out, n)
					}
				} else if !res.IsError || n != 0 {
					t.Errorf("declined: isError=%v, %d rows with the new value; want an error and no change", res.IsError, n)
				}
			})
		}
	}
}

// inspectorCalls is one call of each read tool for the Inspector CLI.
var inspectorCalls = []readCase{readCases[0], readCases[2], readCases[3], readCases[4], readCases[5], readCases[7]}

// TestInspectorCLI: the Inspector CLI lists the tools (checking their schemas are
// portable) and calls every read tool over stdio and HTTP, in the modern
// (2026-07-28) and legacy eras. Each run starts Node (about a CPU second), so with
// -short only query is called.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	calls := inspectorCalls
	if testing.Short() {
		calls = calls[:1]
	}
	d, _ := shopDB(t, Options{})
	url := readerURL(t, d)
	db := openDB(t, url, Options{})
	for transport, target := range targets(t, url, db, false) {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(transport+"/"+era+"/tools_list", func(t *testing.T) {
				t.Parallel()
				// --strict: every tool schema must be portable across hosts.
				if d := cmp.Diff(readTools, realclient.InspectorStrictToolNames(t, target, era)); d != "" {
					t.Errorf("tools (-want +got):\n%s", d)
				}
			})
			for _, tc := range calls {
				t.Run(transport+"/"+era+"/"+tc.tool, func(t *testing.T) {
					t.Parallel()
					text := realclient.InspectorCallTool(t, target, era, tc.tool, tc.args)
					var out map[string]any
					if err := json.Unmarshal([]byte(text), &out); err != nil {
						t.Fatal(err)
					}
					tc.check(t, out)
				})
			}
		}
	}
}
