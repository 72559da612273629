package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(noopServerEnv) == "1" { // a subprocess of BenchmarkQueryVsTypeScript
		os.Exit(serveNoopStdio())
	}
	code := pgtest.Main(m)
	realclient.CleanupBuilds() // the server binary built by serverBinary
	os.Exit(code)
}

// openDB opens a DB on url for t and closes it when t ends.
func openDB(t testing.TB, url string, opts Options) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, url, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}
