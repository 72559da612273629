package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// WriteAccess says whether the connected role could change the database if it were
// not for this server's read-only transactions. The server logs a warning at start
// when CanWrite is true: the recommended setup is a role that has only
// pg_read_all_data, so the database enforces read-only a second time, and a
// superuser in particular can reach the server's file system and processes through
// functions (lo_export, pg_read_file, pg_terminate_backend, …) that no transaction
// mode stops.
type WriteAccess struct {
	Role      string   `json:"role" jsonschema_description:"The connected role (current_user)"`
	Superuser bool     `json:"superuser" jsonschema_description:"True when the role is a superuser"`
	CanWrite  bool     `json:"canWrite" jsonschema_description:"True when the role holds any privilege that writes"`
	Reasons   []string `json:"reasons,omitempty" jsonschema_description:"Examples of what lets the role write (at most a few of each kind)"`
}

// CanWrite inspects the connected role's attributes and privileges.
func (db *DB) CanWrite(ctx context.Context) (*WriteAccess, error) {
	var out *WriteAccess
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		out, err = scanWriteAccess(ctx, tx, db.target.Database)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanWriteAccess is CanWrite's query, in a transaction the caller opened.
func scanWriteAccess(ctx context.Context, tx pgx.Tx, database string) (*WriteAccess, error) {
	out := &WriteAccess{}
	err := func() error {
		var createRole, createDB, writeAll, createInDB bool
		var tables, schemas, sequences, largeObjects []string
		err := tx.QueryRow(ctx, `SELECT current_user::text, r.rolsuper, r.rolcreaterole, r.rolcreatedb,
 CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'pg_write_all_data')
   THEN pg_catalog.pg_has_role('pg_write_all_data', 'USAGE') ELSE false END,
 pg_catalog.has_database_privilege(current_database(), 'CREATE'),
 ARRAY(SELECT n.nspname || '.' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r','p','v','m','f') AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
     AND pg_catalog.has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
   ORDER BY 1 LIMIT 3),
 ARRAY(SELECT n.nspname::text FROM pg_catalog.pg_namespace n
   WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_' AND pg_catalog.has_schema_privilege(n.oid, 'CREATE')
   ORDER BY 1 LIMIT 3),
 ARRAY(SELECT n.nspname || '.' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind = 'S' AND CASE WHEN c.relkind = 'S' THEN pg_catalog.has_sequence_privilege(c.oid, 'UPDATE, USAGE') END
   ORDER BY 1 LIMIT 3),
 ARRAY(SELECT m.oid::text FROM pg_catalog.pg_largeobject_metadata m WHERE m.lomowner = r.oid ORDER BY 1 LIMIT 3)
 FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`).Scan(&out.Role, &out.Superuser, &createRole, &createDB,
			&writeAll, &createInDB, &tables, &schemas, &sequences, &largeObjects)
		if err != nil {
			return err
		}
		add := func(cond bool, reason string) {
			if cond {
				out.Reasons = append(out.Reasons, reason)
			}
		}
		add(out.Superuser, "role is a superuser")
		add(createRole, "role has CREATEROLE")
		add(createDB, "role has CREATEDB")
		add(writeAll, "role is a member of pg_write_all_data")
		add(createInDB, "CREATE on database "+database)
		for _, t := range tables {
			add(true, "INSERT/UPDATE/DELETE/TRUNCATE on "+t)
		}
		for _, s := range schemas {
			add(true, "CREATE on schema "+s)
		}
		for _, s := range sequences {
			add(true, "USAGE/UPDATE on sequence "+s)
		}
		for _, lo := range largeObjects {
			add(true, "owns large object "+lo)
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	out.CanWrite = len(out.Reasons) > 0
	return out, nil
}
