package postgres

import (
	"fmt"
	"strings"
)

// ReaderRoleSQL is the recommended setup: a login role that can read every table and
// nothing else, so PostgreSQL refuses writes a second time, whatever this server does.
// The README adds a connection limit and a role-level statement timeout.
const ReaderRoleSQL = "CREATE ROLE mcp_reader LOGIN PASSWORD '…'; GRANT pg_read_all_data TO mcp_reader;"

// RolePolicy is what the operator allowed at start-up.
type RolePolicy struct {
	AllowWrites    bool // --allow-writes
	AllowSuperuser bool // --allow-superuser
}

// CheckRole decides, from what the connected role may do, whether the server starts,
// and what it should warn about.
//
// A superuser is refused unless AllowSuperuser: read-only transactions stop writes,
// but a superuser can still read any file the database server can
// (pg_read_file, pg_ls_dir, pg_stat_file) and signal other sessions
// (pg_terminate_backend), none of which a READ ONLY transaction forbids or a
// rollback undoes. A role that can write is allowed (this server's read-only
// transactions hold the line), with a warning naming the recommended role.
func CheckRole(a *WriteAccess, p RolePolicy) (warnings []string, err error) {
	if a.Superuser && !p.AllowSuperuser {
		return nil, fmt.Errorf("refusing to start: role %q is a superuser. Read-only transactions stop writes, but a superuser can still read "+
			"the database server's files (pg_read_file, pg_ls_dir) and end other sessions (pg_terminate_backend) from a read-only query. "+
			"Connect as a role with only pg_read_all_data (%s), or pass --allow-superuser (POSTGRES_ALLOW_SUPERUSER=1) to accept this risk",
			a.Role, ReaderRoleSQL)
	}
	if a.Superuser {
		warnings = append(warnings, fmt.Sprintf("role %q is a superuser (allowed by --allow-superuser): queries can read the database server's files and end other sessions", a.Role))
	}
	switch {
	case p.AllowWrites && !a.CanWrite:
		warnings = append(warnings, fmt.Sprintf("--allow-writes is set but role %q holds no write privilege: execute calls will fail with permission errors", a.Role))
	case !p.AllowWrites && a.CanWrite && !a.Superuser:
		warnings = append(warnings, fmt.Sprintf("role %q can write (%s); every query runs in a READ ONLY transaction that is rolled back, "+
			"but the recommended setup is a role with only pg_read_all_data, so PostgreSQL refuses writes a second time: %s",
			a.Role, strings.Join(a.Reasons, "; "), ReaderRoleSQL))
	}
	return warnings, nil
}
