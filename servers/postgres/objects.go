package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// list_objects reads the catalog objects that are not tables: one tool with a kind
// rather than a tool per kind, because every tool definition is paid for by every
// session: seven tools (list_functions, list_triggers, …) would cost the model 2.3 to 4
// times the bytes of this one (689: each between list_schemas' 224 and list_tables' 397;
// docs/context-economy.md), for the same reads.

// Bounds of list_objects.
const (
	maxObjects         = 200      // objects per call
	maxDefinitionBytes = 16 << 10 // a function's or trigger's definition
	maxMayDo           = 100      // privileges listed for the connected role
)

// objectKinds are list_objects' kinds, in the order its description names them.
var objectKinds = []string{"functions", "triggers", "sequences", "extensions", "types", "roles", "settings"}

type listObjectsInput struct {
	dbArg
	Kind   string `json:"kind" jsonschema:"enum=functions,enum=triggers,enum=sequences,enum=extensions,enum=types,enum=roles,enum=settings"`
	Schema string `json:"schema,omitempty" jsonschema_description:"Only this schema"`
	Name   string `json:"name,omitempty" jsonschema_description:"Exact name; for a function, also its full definition"`
}

// ObjectList is list_objects' answer.
type ObjectList struct {
	Kind    string     `json:"kind" jsonschema_description:"The kind listed"`
	Objects []DBObject `json:"objects" jsonschema_description:"The objects, ordered by schema and name (roles: the connected role first)"`
	RowText
	mcpkit.Truncation
}

// DBObject is one catalog object; which fields are set depends on the kind.
type DBObject struct {
	Schema          string   `json:"schema,omitempty"`
	Name            string   `json:"name"`
	Kind            string   `json:"kind,omitempty" jsonschema_description:"function, procedure, aggregate, window; enum, domain, composite, range"`
	Arguments       string   `json:"arguments,omitempty"`
	Returns         string   `json:"returns,omitempty"`
	Language        string   `json:"language,omitempty"`
	Volatility      string   `json:"volatility,omitempty"`
	SecurityDefiner bool     `json:"securityDefiner,omitempty"`
	Table           string   `json:"table,omitempty" jsonschema_description:"A trigger's table"`
	Enabled         *bool    `json:"enabled,omitempty"`
	Definition      string   `json:"definition,omitempty" jsonschema_description:"A trigger's CREATE TRIGGER; with name, a function's CREATE FUNCTION"`
	DataType        string   `json:"dataType,omitempty" jsonschema_description:"A sequence's type, a domain's base type"`
	Start           any      `json:"start,omitempty" jsonschema_description:"A number, or a string beyond 2^53 (as query gives int8)"`
	Increment       any      `json:"increment,omitempty"`
	Max             any      `json:"max,omitempty"`
	LastValue       any      `json:"lastValue,omitempty" jsonschema_description:"Absent when never used or not readable"`
	OwnedBy         string   `json:"ownedBy,omitempty" jsonschema_description:"The column a sequence belongs to"`
	Values          []string `json:"values,omitempty" jsonschema_description:"An enum's labels in order"`
	Version         string   `json:"version,omitempty" jsonschema_description:"An extension's installed version (absent: not installed)"`
	Available       string   `json:"available,omitempty" jsonschema_description:"An extension's default version on the server"`
	Current         bool     `json:"current,omitempty" jsonschema_description:"The role this server is connected as"`
	Attributes      []string `json:"attributes,omitempty" jsonschema_description:"A role's: login, superuser, createdb, createrole, bypassrls, replication"`
	MemberOf        []string `json:"memberOf,omitempty"`
	MayDo           []string `json:"mayDo,omitempty" jsonschema_description:"What the connected role may do here: on the database, schemas and tables"`
	Setting         string   `json:"setting,omitempty"`
	Default         string   `json:"default,omitempty" jsonschema_description:"A setting's built-in default"`
	Source          string   `json:"source,omitempty" jsonschema_description:"Where a setting comes from: configuration file, database, user, …"`
	Comment         string   `json:"comment,omitempty"`
}

// ListObjects lists the catalog objects of one kind (see objectKinds), optionally of
// one schema and of one name, in a read-only transaction like every catalog read.
// Objects that belong to an extension are left out of functions and types (the
// extension is listed instead).
func (db *DB) ListObjects(ctx context.Context, kind, schema, name string) (*ObjectList, error) {
	read, ok := objectReaders[kind]
	if !ok {
		return nil, &RejectError{Reason: fmt.Sprintf("kind %q is not one of %s", kind, strings.Join(objectKinds, ", "))}
	}
	if schema != "" && (kind == "extensions" || kind == "roles" || kind == "settings") {
		return nil, &RejectError{Reason: fmt.Sprintf("schema does not apply to %s: leave it out", kind)}
	}
	limit := min(maxObjects, db.opts.MaxRows)
	out := &ObjectList{Kind: kind, Objects: []DBObject{}}
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if schema != "" {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return &NotFoundError{What: fmt.Sprintf("schema %q does not exist (names are case-sensitive; list_schemas shows the schemas)", schema)}
			}
		}
		var err error
		out.Objects, err = read(ctx, tx, objectFilter{schema: schema, name: name, limit: limit + 1})
		return err
	})
	if err != nil {
		return nil, err
	}
	var cut bool
	if out.Objects, cut = mcpkit.CapSlice(out.Objects, limit); cut {
		out.Cut(fmt.Sprintf("only the first %d %s are listed: pass schema or name", limit, kind))
	}
	for i := range out.Objects {
		out.Objects[i].clean()
	}
	if len(out.Objects) > 0 {
		out.RowText = rowTextIn("objects")
	}
	return out, nil
}

// clean shows hidden characters in every text that comes from the database, and
// bounds the free text.
func (o *DBObject) clean() {
	for _, p := range []*string{&o.Schema, &o.Name, &o.Arguments, &o.Returns, &o.Table, &o.OwnedBy, &o.DataType, &o.Setting, &o.Default} {
		*p, _ = mcpkit.ShowHidden(*p)
	}
	o.Definition = mcpkitClean(o.Definition, maxDefinitionBytes)
	o.Comment = mcpkitClean(o.Comment, maxCommentBytes)
	for _, l := range [][]string{o.Values, o.MemberOf, o.MayDo} {
		for i := range l {
			l[i], _ = mcpkit.ShowHidden(l[i])
		}
	}
}

type objectFilter struct {
	schema, name string
	limit        int
}

type objectReader func(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error)

var objectReaders = map[string]objectReader{
	"functions":  readFunctions,
	"triggers":   readTriggers,
	"sequences":  readSequences,
	"extensions": readExtensions,
	"types":      readTypes,
	"roles":      readRoles,
	"settings":   readSettings,
}

// userSchema is the condition on a namespace n that keeps user schemas.
const userSchema = `n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'`

// notExtensionMember keeps objects (of catalog cat, oid column col) that no extension owns.
func notExtensionMember(cat, col string) string {
	return fmt.Sprintf(`NOT EXISTS (SELECT FROM pg_catalog.pg_depend dep WHERE dep.classid = '%s'::regclass AND dep.objid = %s AND dep.deptype = 'e')`, cat, col)
}

func readFunctions(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	rows, err := tx.Query(ctx, `SELECT n.nspname, p.proname,
 CASE p.prokind WHEN 'f' THEN 'function' WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' WHEN 'w' THEN 'window' END,
 pg_catalog.pg_get_function_arguments(p.oid), COALESCE(pg_catalog.pg_get_function_result(p.oid), ''), l.lanname,
 CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable' ELSE 'volatile' END, p.prosecdef,
 CASE WHEN $2 <> '' AND p.prokind IN ('f','p') THEN left(pg_catalog.pg_get_functiondef(p.oid), $4) ELSE '' END,
 COALESCE(left(pg_catalog.obj_description(p.oid, 'pg_proc'), 2001), '')
 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
 WHERE `+userSchema+` AND ($1 = '' OR n.nspname = $1) AND ($2 = '' OR p.proname = $2) AND `+notExtensionMember("pg_proc", "p.oid")+`
 ORDER BY 1, 2, 4 LIMIT $3`, f.schema, f.name, f.limit, maxDefinitionBytes+1)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		err := r.Scan(&o.Schema, &o.Name, &o.Kind, &o.Arguments, &o.Returns, &o.Language, &o.Volatility, &o.SecurityDefiner, &o.Definition, &o.Comment)
		return o, err
	})
}

func readTriggers(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	rows, err := tx.Query(ctx, `SELECT n.nspname, t.tgname, n.nspname || '.' || c.relname, t.tgenabled <> 'D',
 left(pg_catalog.pg_get_triggerdef(t.oid), $4), COALESCE(left(pg_catalog.obj_description(t.oid, 'pg_trigger'), 2001), '')
 FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE NOT t.tgisinternal AND `+userSchema+` AND ($1 = '' OR n.nspname = $1) AND ($2 = '' OR t.tgname = $2)
 ORDER BY 1, 3, 2 LIMIT $3`, f.schema, f.name, f.limit, maxDefinitionBytes+1)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		var enabled bool
		err := r.Scan(&o.Schema, &o.Name, &o.Table, &enabled, &o.Definition, &o.Comment)
		o.Enabled = &enabled
		return o, err
	})
}

func readSequences(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	// pg_sequences.last_value is NULL for a sequence the role may not read (and one
	// never used); the others come from pg_sequence, readable by everyone.
	rows, err := tx.Query(ctx, `SELECT n.nspname, c.relname, pg_catalog.format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmax,
 CASE WHEN pg_catalog.has_sequence_privilege(c.oid, 'SELECT') THEN (SELECT ps.last_value FROM pg_catalog.pg_sequences ps WHERE ps.schemaname = n.nspname AND ps.sequencename = c.relname) END,
 COALESCE((SELECT d.refobjid::regclass::text || '.' || a.attname FROM pg_catalog.pg_depend d
   JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
   WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a','i') LIMIT 1), ''),
 COALESCE(left(pg_catalog.obj_description(c.oid, 'pg_class'), 2001), '')
 FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE `+userSchema+` AND ($1 = '' OR n.nspname = $1) AND ($2 = '' OR c.relname = $2)
 ORDER BY 1, 2 LIMIT $3`, f.schema, f.name, f.limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		var start, inc, maxv int64
		var last *int64
		err := r.Scan(&o.Schema, &o.Name, &o.DataType, &start, &inc, &maxv, &last, &o.OwnedBy, &o.Comment)
		o.Start, o.Increment, o.Max = jsonInt(start), jsonInt(inc), jsonInt(maxv)
		if last != nil {
			o.LastValue = jsonInt(*last)
		}
		return o, err
	})
}

// jsonInt is n as a JSON number when every JSON reader keeps it exact (|n| ≤ 2^53),
// else as a string of its digits, as query returns int8.
func jsonInt(n int64) any {
	if n > 1<<53 || n < -(1<<53) {
		return strconv.FormatInt(n, 10)
	}
	return n
}

func readExtensions(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	// Installed ones first, then those the server could install.
	rows, err := tx.Query(ctx, `SELECT COALESCE(n.nspname, ''), a.name, COALESCE(a.installed_version, ''), COALESCE(a.default_version, ''), COALESCE(left(a.comment, 2001), '')
 FROM pg_catalog.pg_available_extensions a
 LEFT JOIN pg_catalog.pg_extension e ON e.extname = a.name LEFT JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
 WHERE ($1 = '' OR a.name = $1)
 ORDER BY a.installed_version IS NULL, a.name LIMIT $2`, f.name, f.limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		err := r.Scan(&o.Schema, &o.Name, &o.Version, &o.Available, &o.Comment)
		return o, err
	})
}

func readTypes(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	rows, err := tx.Query(ctx, `SELECT n.nspname, t.typname,
 CASE t.typtype WHEN 'e' THEN 'enum' WHEN 'd' THEN 'domain' WHEN 'c' THEN 'composite' WHEN 'r' THEN 'range' WHEN 'm' THEN 'multirange' ELSE 'base' END,
 CASE WHEN t.typtype = 'd' THEN pg_catalog.format_type(t.typbasetype, t.typtypmod)
      WHEN t.typtype = 'r' THEN (SELECT pg_catalog.format_type(r.rngsubtype, NULL) FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid) ELSE '' END,
 CASE WHEN t.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder)
      WHEN t.typtype = 'c' THEN ARRAY(SELECT a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum)
      WHEN t.typtype = 'd' THEN ARRAY(SELECT pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k WHERE k.contypid = t.oid ORDER BY k.conname)
      ELSE ARRAY[]::text[] END,
 COALESCE(left(pg_catalog.obj_description(t.oid, 'pg_type'), 2001), '')
 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
 WHERE `+userSchema+` AND ($1 = '' OR n.nspname = $1) AND ($2 = '' OR t.typname = $2)
   AND t.typtype IN ('e','d','c','r','m','b') AND t.typelem = 0 AND t.typname !~ '^_'
   AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
   AND `+notExtensionMember("pg_type", "t.oid")+`
 ORDER BY 1, 2 LIMIT $3`, f.schema, f.name, f.limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		err := r.Scan(&o.Schema, &o.Name, &o.Kind, &o.DataType, &o.Values, &o.Comment)
		return o, err
	})
}

func readRoles(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	rows, err := tx.Query(ctx, `SELECT r.rolname, r.rolname = current_user,
 array_remove(ARRAY[CASE WHEN r.rolcanlogin THEN 'login' END, CASE WHEN r.rolsuper THEN 'superuser' END, CASE WHEN r.rolcreatedb THEN 'createdb' END,
   CASE WHEN r.rolcreaterole THEN 'createrole' END, CASE WHEN r.rolbypassrls THEN 'bypassrls' END, CASE WHEN r.rolreplication THEN 'replication' END], NULL),
 ARRAY(SELECT b.rolname::text FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles b ON b.oid = m.roleid WHERE m.member = r.oid ORDER BY 1),
 COALESCE(left(pg_catalog.shobj_description(r.oid, 'pg_authid'), 2001), '')
 FROM pg_catalog.pg_roles r
 WHERE (r.rolname !~ '^pg_' OR r.rolname = current_user) AND ($1 = '' OR r.rolname = $1)
 ORDER BY r.rolname = current_user DESC, r.rolname LIMIT $2`, f.name, f.limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		err := r.Scan(&o.Name, &o.Current, &o.Attributes, &o.MemberOf, &o.Comment)
		return o, err
	})
	if err != nil || len(out) == 0 || !out[0].Current {
		return out, err
	}
	// What the connected role may do here: the database, then each user schema and
	// table it holds a privilege on (directly, through a role, or through PUBLIC).
	err = tx.QueryRow(ctx, `SELECT ARRAY(
 SELECT x FROM (
  SELECT 0 AS o, 'database ' || current_database() || ': ' || array_to_string(array_remove(ARRAY[
    CASE WHEN pg_catalog.has_database_privilege(current_database(), 'CONNECT') THEN 'CONNECT' END,
    CASE WHEN pg_catalog.has_database_privilege(current_database(), 'CREATE') THEN 'CREATE' END,
    CASE WHEN pg_catalog.has_database_privilege(current_database(), 'TEMPORARY') THEN 'TEMPORARY' END], NULL), ', ') AS x, '' AS k
  UNION ALL
  SELECT 1, 'schema ' || n.nspname || ': ' || array_to_string(array_remove(ARRAY[
    CASE WHEN pg_catalog.has_schema_privilege(n.oid, 'USAGE') THEN 'USAGE' END,
    CASE WHEN pg_catalog.has_schema_privilege(n.oid, 'CREATE') THEN 'CREATE' END], NULL), ', '), n.nspname
  FROM pg_catalog.pg_namespace n WHERE `+userSchema+` AND (pg_catalog.has_schema_privilege(n.oid, 'USAGE') OR pg_catalog.has_schema_privilege(n.oid, 'CREATE'))
  UNION ALL
  SELECT 2, 'table ' || n.nspname || '.' || c.relname || ': ' || array_to_string(array_remove(ARRAY[
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'SELECT') THEN 'SELECT' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'INSERT') THEN 'INSERT' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'UPDATE') THEN 'UPDATE' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'DELETE') THEN 'DELETE' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'TRUNCATE') THEN 'TRUNCATE' END], NULL), ', '), n.nspname || '.' || c.relname
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r','v','m','p','f') AND NOT c.relispartition AND `+userSchema+`
    AND pg_catalog.has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE')
 ) p ORDER BY o, k LIMIT $1)`, maxMayDo+1).Scan(&out[0].MayDo)
	if len(out[0].MayDo) > maxMayDo {
		out[0].MayDo = append(out[0].MayDo[:maxMayDo], "… (more tables: ask for them with query and has_table_privilege)")
	}
	return out, err
}

func readSettings(ctx context.Context, tx pgx.Tx, f objectFilter) ([]DBObject, error) {
	// Settings that differ from the built-in defaults as the server is configured:
	// this session's own (client, session) are left out.
	rows, err := tx.Query(ctx, `SELECT s.name, s.setting || COALESCE(' ' || s.unit, ''), COALESCE(s.boot_val, '') || COALESCE(' ' || s.unit, ''), s.source,
 COALESCE(left(s.short_desc, 2001), '')
 FROM pg_catalog.pg_settings s
 WHERE (($1 = '' AND s.source NOT IN ('default', 'override', 'client', 'session')) OR s.name = $1)
 ORDER BY s.name LIMIT $2`, f.name, f.limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DBObject, error) {
		var o DBObject
		err := r.Scan(&o.Name, &o.Setting, &o.Default, &o.Source, &o.Comment)
		return o, err
	})
}
