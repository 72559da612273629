// Package postgrestest gives tests outside this module a real PostgreSQL the way this
// module's own tests get one (internal/pgtest): the server named by
// MCPKIT_TEST_DATABASE_URL, or else a throwaway cluster started once per test binary
// from the machine's PostgreSQL binaries, with a fresh database per test. A test that
// cannot get a PostgreSQL fails when CI is set and is skipped otherwise.
//
// Stop the throwaway cluster when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(postgrestest.Main(m)) }
package postgrestest

import (
	"testing"

	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// Main runs the tests of a package and stops the throwaway cluster afterwards.
func Main(m *testing.M) int { return pgtest.Main(m) }

// NewDatabase creates a fresh database for t, runs the trusted fixture SQL in it as
// the superuser (simple protocol: several statements are fine) and returns its URL.
// The database is dropped when t ends.
func NewDatabase(t testing.TB, fixtureSQL string) string {
	t.Helper()
	d := pgtest.NewDatabase(t)
	if fixtureSQL != "" {
		d.Exec(t, fixtureSQL)
	}
	return d.URL
}
