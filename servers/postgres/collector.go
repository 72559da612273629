package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Column is one result column.
type Column struct {
	Name string `json:"name" jsonschema_description:"Column name as the query labels it"`
	Type string `json:"type" jsonschema_description:"PostgreSQL type name, e.g. int4, text, numeric, timestamptz, jsonb, int4[]"`
}

// collector receives a statement's results as they stream in and keeps what fits
// under the row and byte caps. Rows past a cap are not decoded.
type collector struct {
	db       *DB
	maxRows  int
	maxBytes int

	cols     []Column
	oids     []uint32
	decoders []decoder
	unknown  []int // indexes of columns whose type is not known yet

	rows      [][]any
	bytes     int
	truncated bool
	bigRow    bool // a single row exceeded the byte cap (or the message size limit)
	tag       string
	hidden    int // hidden characters shown as escapes in rows and column names (rowtext.go)

	checked    bool   // the session-state check ran
	leftover   string // session state the check found
	hypoLoaded bool   // the check found HypoPG loaded and callable in the session
}

func newCollector(db *DB, maxRows, maxBytes int) *collector {
	return &collector{db: db, maxRows: maxRows, maxBytes: maxBytes, rows: [][]any{}}
}

func (c *collector) columns(fields []pgproto3.FieldDescription) {
	c.cols = make([]Column, len(fields))
	c.oids = make([]uint32, len(fields))
	c.decoders = make([]decoder, len(fields))
	for i, f := range fields {
		name, n := showHidden(string(f.Name))
		c.cols[i].Name = name
		c.hidden += n
		c.oids[i] = f.DataTypeOID
		if t, ok := c.db.typeFor(f.DataTypeOID); ok {
			c.cols[i].Type = t.name
			c.decoders[i] = t.decode
			continue
		}
		c.cols[i].Type = fmt.Sprintf("oid %d", f.DataTypeOID)
		c.decoders[i] = decodeString
		c.unknown = append(c.unknown, i)
	}
}

func (c *collector) row(s step, values [][]byte) {
	switch s {
	case stepCheck:
		c.checked = true
		if len(values) >= 2 {
			c.leftover = string(values[1])
		}
		if len(values) >= 3 {
			c.hypoLoaded = string(values[2]) == "t"
		}
		return
	case stepExecute:
	default:
		return
	}
	if c.truncated {
		return
	}
	if len(c.rows) >= c.maxRows {
		c.truncated = true
		return
	}
	size := 2 // [ ] of the row, plus a comma
	for _, v := range values {
		size += len(v) + 3 // quotes and separator, roughly
	}
	if c.bytes+size > c.maxBytes {
		c.truncated = true
		c.bigRow = size > c.maxBytes
		return
	}
	c.bytes += size
	row := make([]any, len(values))
	for i, v := range values {
		if v != nil && i < len(c.decoders) {
			var n int
			row[i], n = showHiddenValue(c.decoders[i](v))
			c.hidden += n
		}
	}
	c.rows = append(c.rows, row)
}

func (c *collector) done(s step, tag string, suspended bool) {
	if s != stepExecute {
		return
	}
	c.tag = tag
	if suspended {
		c.truncated = true // the portal stopped at its row limit: there is more
	}
}

// typeFor finds a type's name and decoder: builtin, or seen before.
func (db *DB) typeFor(oid uint32) (typeInfo, bool) {
	if t, ok := builtinTypes()[oid]; ok {
		return t, true
	}
	db.typesMu.Lock()
	defer db.typesMu.Unlock()
	t, ok := db.types[oid]
	return t, ok
}

// maxCachedTypes bounds the cache of non-builtin types.
const maxCachedTypes = 4096

// resolveTypes looks up the types the collector did not know (enums, arrays of them,
// extension types), on the connection that just ran the statement, names the columns
// and re-decodes array values. It costs a round trip the first time a type is seen.
func (db *DB) resolveTypes(ctx context.Context, conn *pgxpool.Conn, c *collector) error {
	oids := make([]uint32, 0, len(c.unknown))
	for _, i := range c.unknown {
		oids = append(oids, c.oids[i])
	}
	rows, err := conn.Query(ctx, `SELECT t.oid, t.typname, COALESCE(e.oid, 0), COALESCE(e.typname, ''), t.typdelim::text
 FROM pg_catalog.pg_type t
 LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' AND t.typlen = -1
 WHERE t.oid = ANY($1)`, oids)
	if err != nil {
		return fmt.Errorf("looking up result column types: %w", err)
	}
	found := map[uint32]typeInfo{}
	for rows.Next() {
		var oid, elemOID uint32
		var name, elemName string
		var delimText string
		if err := rows.Scan(&oid, &name, &elemOID, &elemName, &delimText); err != nil {
			rows.Close()
			return fmt.Errorf("looking up result column types: %w", err)
		}
		t := typeInfo{name: name, decode: decodeString}
		delim := byte(',')
		if len(delimText) == 1 {
			delim = delimText[0]
		}
		if elemOID != 0 {
			elem := decoder(decodeString)
			if et, ok := db.typeFor(elemOID); ok && !et.isArray {
				elem = et.decode
			}
			t = typeInfo{name: elemName + "[]", decode: arrayDecoder(elem, delim), isArray: true}
		}
		found[oid] = t
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("looking up result column types: %w", err)
	}
	db.typesMu.Lock()
	if len(db.types)+len(found) > maxCachedTypes {
		clear(db.types)
	}
	for oid, t := range found {
		db.types[oid] = t
	}
	db.typesMu.Unlock()

	for _, i := range c.unknown {
		t, ok := found[c.oids[i]]
		if !ok {
			continue
		}
		c.cols[i].Type = t.name
		if !t.isArray {
			continue
		}
		for _, row := range c.rows {
			if s, ok := row[i].(string); ok {
				row[i] = t.decode([]byte(s))
			}
		}
	}
	return nil
}
