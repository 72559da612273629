package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// TableDescription is everything needed to write correct SQL against one table.
type TableDescription struct {
	Schema         string            `json:"schema" jsonschema_description:"Schema name"`
	Name           string            `json:"name" jsonschema_description:"Table name"`
	Kind           string            `json:"kind" jsonschema_description:"table, view, materialized view, partitioned table or foreign table"`
	RowEstimate    *int64            `json:"rowEstimate,omitempty" jsonschema_description:"Planner's row estimate; absent when never analyzed or a view"`
	Comment        string            `json:"comment,omitempty" jsonschema_description:"The table's comment"`
	Columns        []ColumnInfo      `json:"columns" jsonschema_description:"Columns in table order"`
	PrimaryKey     *PrimaryKey       `json:"primaryKey,omitempty" jsonschema_description:"The primary key, if any"`
	ForeignKeys    []ForeignKey      `json:"foreignKeys,omitempty" jsonschema_description:"Foreign keys from this table to others"`
	ReferencedBy   []ForeignKey      `json:"referencedBy,omitempty" jsonschema_description:"Foreign keys in other tables that reference this one (useful for joins)"`
	Indexes        []Index           `json:"indexes,omitempty" jsonschema_description:"Indexes with their definitions"`
	Constraints    []TableConstraint `json:"constraints,omitempty" jsonschema_description:"Check, unique and exclusion constraints"`
	ViewDefinition string            `json:"viewDefinition,omitempty" jsonschema_description:"The SELECT a view or materialized view is defined by"`
	RowText
	mcpkit.Truncation
}

// ColumnInfo is one column of a table.
type ColumnInfo struct {
	Name      string  `json:"name" jsonschema_description:"Column name"`
	Type      string  `json:"type" jsonschema_description:"Type with modifiers, as format_type prints it, e.g. character varying(80), numeric(10,2)"`
	Nullable  bool    `json:"nullable" jsonschema_description:"False when the column is NOT NULL"`
	Default   *string `json:"default,omitempty" jsonschema_description:"Default expression (or the generation expression of a generated column)"`
	Identity  string  `json:"identity,omitempty" jsonschema_description:"always or by default for identity columns" jsonschema:"enum=always,enum=by default"`
	Generated bool    `json:"generated,omitempty" jsonschema_description:"True for a stored generated column (default holds its expression)"`
	Comment   string  `json:"comment,omitempty" jsonschema_description:"The column's comment"`
}

// PrimaryKey is a table's primary key.
type PrimaryKey struct {
	Name    string   `json:"name" jsonschema_description:"Constraint name"`
	Columns []string `json:"columns" jsonschema_description:"Key columns in order"`
}

// ForeignKey is a foreign key constraint.
type ForeignKey struct {
	Name              string   `json:"name" jsonschema_description:"Constraint name"`
	Table             string   `json:"table" jsonschema_description:"Schema-qualified referencing table"`
	Columns           []string `json:"columns" jsonschema_description:"Referencing columns in order"`
	ReferencedTable   string   `json:"referencedTable" jsonschema_description:"Schema-qualified referenced table"`
	ReferencedColumns []string `json:"referencedColumns" jsonschema_description:"Referenced columns, matching columns in order"`
	OnUpdate          string   `json:"onUpdate" jsonschema_description:"Action on update of the referenced key"`
	OnDelete          string   `json:"onDelete" jsonschema_description:"Action on delete of the referenced row"`
}

// Index is one index of a table.
type Index struct {
	Name       string `json:"name" jsonschema_description:"Index name"`
	Definition string `json:"definition" jsonschema_description:"CREATE INDEX statement, as pg_get_indexdef prints it"`
	Unique     bool   `json:"unique" jsonschema_description:"True for a unique index"`
	Primary    bool   `json:"primary,omitempty" jsonschema_description:"True for the primary key's index"`
	Invalid    bool   `json:"invalid,omitempty" jsonschema_description:"True for an index that is not valid (a failed CREATE INDEX CONCURRENTLY): the planner does not use it"`
}

// TableConstraint is a check, unique or exclusion constraint.
type TableConstraint struct {
	Name       string   `json:"name" jsonschema_description:"Constraint name"`
	Type       string   `json:"type" jsonschema_description:"check, unique or exclusion" jsonschema:"enum=check,enum=unique,enum=exclusion"`
	Columns    []string `json:"columns,omitempty" jsonschema_description:"Columns the constraint is on"`
	Definition string   `json:"definition" jsonschema_description:"Definition as pg_get_constraintdef prints it"`
}

var fkActions = map[string]string{
	"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT",
}

var constraintTypes = map[string]string{"c": "check", "u": "unique", "x": "exclusion"}

// DescribeTable describes one table, view, materialized view, partitioned or foreign
// table. With schema empty, the table is looked up on the search path.
func (db *DB) DescribeTable(ctx context.Context, schema, table string) (*TableDescription, error) {
	if table == "" {
		return nil, &RejectError{Reason: "table is empty: pass a table name (list_tables shows them)"}
	}
	d := &TableDescription{Columns: []ColumnInfo{}}
	capped := false
	err := db.catalogTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var oid uint32
		var kind string
		var est *float64
		var viewDef *string
		err := tx.QueryRow(ctx, `SELECT c.oid, n.nspname, c.relname, c.relkind::text,
 CASE WHEN c.relkind = 'p' THEN (SELECT sum(p.reltuples) FILTER (WHERE p.reltuples >= 0)::float8
     FROM pg_catalog.pg_partition_tree(c.oid) t JOIN pg_catalog.pg_class p ON p.oid = t.relid WHERE t.isleaf)
   WHEN c.relkind IN ('r','m','f') AND c.reltuples >= 0 THEN c.reltuples::float8 END,
 COALESCE(left(pg_catalog.obj_description(c.oid, 'pg_class'), 2001), ''),
 CASE WHEN c.relkind IN ('v','m') THEN left(pg_catalog.pg_get_viewdef(c.oid, true), 16385) END
 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname = $2 AND c.relkind IN ('r','v','m','p','f')
   AND CASE WHEN $1 = '' THEN pg_catalog.pg_table_is_visible(c.oid) ELSE n.nspname = $1 END`,
			schema, table).Scan(&oid, &d.Schema, &d.Name, &kind, &est, &d.Comment, &viewDef)
		if errors.Is(err, pgx.ErrNoRows) {
			where := "on the search path"
			if schema != "" {
				where = fmt.Sprintf("in schema %q", schema)
			}
			return &NotFoundError{What: fmt.Sprintf("table %q not found %s (names are case-sensitive; list_tables shows the tables)", table, where)}
		}
		if err != nil {
			return err
		}
		d.Kind = relKinds[kind]
		if est != nil {
			n := int64(*est)
			d.RowEstimate = &n
		}
		d.Comment = mcpkitClean(d.Comment, maxCommentBytes)
		if viewDef != nil {
			var cut bool
			d.ViewDefinition, _ = showHidden(*viewDef)
			d.ViewDefinition, cut = mcpkit.TruncateText(d.ViewDefinition, maxViewDefBytes)
			capped = capped || cut
		}
		if err := db.describeColumns(ctx, tx, oid, d); err != nil {
			return err
		}
		if err := db.describeConstraints(ctx, tx, oid, d); err != nil {
			return err
		}
		if err := db.describeReferencedBy(ctx, tx, oid, d); err != nil {
			return err
		}
		return db.describeIndexes(ctx, tx, oid, d)
	})
	if err != nil {
		return nil, err
	}
	var cut bool
	d.ForeignKeys, cut = mcpkit.CapSlice(d.ForeignKeys, db.opts.MaxRows)
	capped = capped || cut
	d.ReferencedBy, cut = mcpkit.CapSlice(d.ReferencedBy, db.opts.MaxRows)
	capped = capped || cut
	d.Indexes, cut = mcpkit.CapSlice(d.Indexes, db.opts.MaxRows)
	capped = capped || cut
	d.Constraints, cut = mcpkit.CapSlice(d.Constraints, db.opts.MaxRows)
	capped = capped || cut
	if capped {
		d.Cut(fmt.Sprintf("lists were cut at %d entries (and a view definition at %d bytes); query pg_catalog for the rest", db.opts.MaxRows, maxViewDefBytes))
	}
	d.RowText = commentText(true)
	if d.ViewDefinition != "" {
		d.Untrusted += ", viewDefinition"
	}
	return d, nil
}

func (db *DB) describeColumns(ctx context.Context, tx pgx.Tx, oid uint32, d *TableDescription) error {
	rows, err := tx.Query(ctx, `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
 pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), a.attidentity::text, a.attgenerated::text,
 COALESCE(left(pg_catalog.col_description(a.attrelid, a.attnum), 2001), '')
 FROM pg_catalog.pg_attribute a
 LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
 WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum`, oid)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c ColumnInfo
		var identity, generated string
		if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &c.Default, &identity, &generated, &c.Comment); err != nil {
			return err
		}
		switch identity {
		case "a":
			c.Identity = "always"
		case "d":
			c.Identity = "by default"
		}
		c.Generated = generated == "s"
		c.Comment = mcpkitClean(c.Comment, maxCommentBytes)
		d.Columns = append(d.Columns, c)
	}
	return rows.Err()
}

// keyColumns renders the names of a constraint's key columns in key order.
const keyColumns = `ARRAY(SELECT a.attname FROM unnest(%[1]s) WITH ORDINALITY k(attnum, ord)
   JOIN pg_catalog.pg_attribute a ON a.attrelid = %[2]s AND a.attnum = k.attnum ORDER BY k.ord)::text[]`

func (db *DB) describeConstraints(ctx context.Context, tx pgx.Tx, oid uint32, d *TableDescription) error {
	rows, err := tx.Query(ctx, `SELECT con.conname, con.contype::text, pg_catalog.pg_get_constraintdef(con.oid, true),
 `+fmt.Sprintf(keyColumns, "con.conkey", "con.conrelid")+`,
 COALESCE(fn.nspname || '.' || fc.relname, ''),
 `+fmt.Sprintf(keyColumns, "con.confkey", "con.confrelid")+`,
 con.confupdtype::text, con.confdeltype::text
 FROM pg_catalog.pg_constraint con
 LEFT JOIN pg_catalog.pg_class fc ON fc.oid = con.confrelid
 LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = fc.relnamespace
 WHERE con.conrelid = $1 AND con.contype IN ('p','f','c','u','x')
 ORDER BY con.contype, con.conname
 LIMIT $2`, oid, 3*db.opts.MaxRows+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	self := d.Schema + "." + d.Name
	for rows.Next() {
		var name, typ, def, refTable, onUpd, onDel string
		var cols, refCols []string
		if err := rows.Scan(&name, &typ, &def, &cols, &refTable, &refCols, &onUpd, &onDel); err != nil {
			return err
		}
		switch typ {
		case "p":
			d.PrimaryKey = &PrimaryKey{Name: name, Columns: cols}
		case "f":
			d.ForeignKeys = append(d.ForeignKeys, ForeignKey{Name: name, Table: self, Columns: cols,
				ReferencedTable: refTable, ReferencedColumns: refCols, OnUpdate: fkActions[onUpd], OnDelete: fkActions[onDel]})
		default:
			d.Constraints = append(d.Constraints, TableConstraint{Name: name, Type: constraintTypes[typ], Columns: cols,
				Definition: mcpkitClean(def, maxCommentBytes)})
		}
	}
	return rows.Err()
}

func (db *DB) describeReferencedBy(ctx context.Context, tx pgx.Tx, oid uint32, d *TableDescription) error {
	rows, err := tx.Query(ctx, `SELECT con.conname, n.nspname || '.' || c.relname,
 `+fmt.Sprintf(keyColumns, "con.conkey", "con.conrelid")+`,
 `+fmt.Sprintf(keyColumns, "con.confkey", "con.confrelid")+`,
 con.confupdtype::text, con.confdeltype::text
 FROM pg_catalog.pg_constraint con
 JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE con.confrelid = $1 AND con.contype = 'f' AND NOT c.relispartition
 ORDER BY n.nspname, c.relname, con.conname
 LIMIT $2`, oid, db.opts.MaxRows+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	self := d.Schema + "." + d.Name
	for rows.Next() {
		fk := ForeignKey{ReferencedTable: self}
		var onUpd, onDel string
		if err := rows.Scan(&fk.Name, &fk.Table, &fk.Columns, &fk.ReferencedColumns, &onUpd, &onDel); err != nil {
			return err
		}
		fk.OnUpdate, fk.OnDelete = fkActions[onUpd], fkActions[onDel]
		d.ReferencedBy = append(d.ReferencedBy, fk)
	}
	return rows.Err()
}

func (db *DB) describeIndexes(ctx context.Context, tx pgx.Tx, oid uint32, d *TableDescription) error {
	rows, err := tx.Query(ctx, `SELECT i.relname, pg_catalog.pg_get_indexdef(ix.indexrelid), ix.indisunique, ix.indisprimary, NOT ix.indisvalid
 FROM pg_catalog.pg_index ix JOIN pg_catalog.pg_class i ON i.oid = ix.indexrelid
 WHERE ix.indrelid = $1
 ORDER BY i.relname
 LIMIT $2`, oid, db.opts.MaxRows+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ix Index
		if err := rows.Scan(&ix.Name, &ix.Definition, &ix.Unique, &ix.Primary, &ix.Invalid); err != nil {
			return err
		}
		d.Indexes = append(d.Indexes, ix)
	}
	return rows.Err()
}
