package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Resource URIs. Each name is one path segment, percent-encoded (url.PathEscape),
// so schemas and tables whose names hold '/', '?', '#', '%', spaces or any Unicode
// have URIs that read back exactly:
//
//	postgres://<database>/overview                 schemas and tables of the database
//	postgres://<database>/<schema>/<table>/schema  one table, as describe_table returns it

// TableURI is the URI of a table's schema resource.
func TableURI(database, schema, table string) string {
	return "postgres://" + url.PathEscape(database) + "/" + url.PathEscape(schema) + "/" + url.PathEscape(table) + "/schema"
}

// OverviewURI is the URI of the database overview resource.
func OverviewURI(database string) string {
	return "postgres://" + url.PathEscape(database) + "/overview"
}

const jsonMIME = "application/json"

// Overview is the database overview resource: its schemas and tables.
type Overview struct {
	Database string         `json:"database"`
	Schemas  []Schema       `json:"schemas"`
	Tables   []TableSummary `json:"tables"`
	mcpkit.Truncation
}

// addResources registers the overview, the per-table template and the lister that
// pages through every table of the user schemas.
func addResources(s *mcpkit.Server, db *DB, pageSize int) {
	name := db.Target().Database
	addDatabaseResources(s, name, db)
	if pageSize <= 0 {
		pageSize = 100
	}
	s.SetResourceLister(func(ctx context.Context, _ *mcpkit.Request, cursor string) ([]mcpkit.Resource, string, error) {
		after, err := decodeTableCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		out, more, err := tableResources(ctx, name, db, after[0], after[1], pageSize)
		if err != nil {
			return nil, "", err
		}
		next := ""
		if more {
			last := out[len(out)-1].table
			next = encodeTableCursor(last.Schema, last.Name)
		}
		return resourcesOf(out), next, nil
	})
}

// addDatabaseResources registers the overview and the table template of one database,
// served under name.
func addDatabaseResources(s *mcpkit.Server, name string, db *DB) {
	overview := OverviewURI(name)
	s.AddResource(&mcpkit.Resource{
		URI:         overview,
		Name:        "overview",
		Title:       "Database overview",
		Description: "Schemas and tables of database " + name + " with row estimates and comments",
		MIMEType:    jsonMIME,
	}, func(ctx context.Context, _ *mcpkit.Request, uri string, _ map[string]string) (*mcpkit.ReadResourceResult, error) {
		schemas, err := db.ListSchemas(ctx)
		if err != nil {
			return nil, resourceError(uri, err)
		}
		tables, err := db.ListTables(ctx, "")
		if err != nil {
			return nil, resourceError(uri, err)
		}
		o := Overview{Database: name, Schemas: schemas.Schemas, Tables: tables.Tables}
		if schemas.Truncated || tables.Truncated {
			o.Cut(strings.Trim(schemas.Hint+"; "+tables.Hint, "; "))
		}
		return jsonResource(uri, o)
	})

	s.AddResourceTemplate(&mcpkit.ResourceTemplate{
		URITemplate: "postgres://" + url.PathEscape(name) + "/{schema}/{table}/schema",
		Name:        "table",
		Title:       "Table schema",
		Description: "Columns, keys, indexes, constraints and comments of one table or view (as describe_table returns them); names percent-encoded",
		MIMEType:    jsonMIME,
	}, func(ctx context.Context, _ *mcpkit.Request, uri string, vars map[string]string) (*mcpkit.ReadResourceResult, error) {
		schema, err1 := url.PathUnescape(vars["schema"])
		table, err2 := url.PathUnescape(vars["table"])
		if err1 != nil || err2 != nil {
			return nil, mcpkit.InvalidParams("resource URI %q has a bad percent-escape; expected %s", uri, TableURI(name, "SCHEMA", "TABLE"))
		}
		if schema == "" || table == "" {
			return nil, mcpkit.ResourceNotFound(uri)
		}
		d, err := db.DescribeTable(ctx, schema, table)
		if err != nil {
			return nil, resourceError(uri, err)
		}
		return jsonResource(uri, d)
	})

}

// tableResource is one table's resource, with the table it lists (for the cursor).
type tableResource struct {
	res   mcpkit.Resource
	table TableSummary
}

// tableResources lists up to limit tables of db after (afterSchema, afterName) as
// resources of the database served under name, and whether more follow.
func tableResources(ctx context.Context, name string, db *DB, afterSchema, afterName string, limit int) ([]tableResource, bool, error) {
	tables, more, err := db.TablesAfter(ctx, afterSchema, afterName, limit)
	if err != nil {
		return nil, false, mcpkit.Errorf(mcpkit.CodeInternalError, "listing tables: %v", err)
	}
	out := make([]tableResource, len(tables))
	for i, t := range tables {
		desc := t.Kind
		if t.Comment != "" {
			c, _ := mcpkit.TruncateText(t.Comment, 200)
			desc += ": " + c
		}
		out[i] = tableResource{res: mcpkit.Resource{URI: TableURI(name, t.Schema, t.Name), Name: t.Schema + "." + t.Name, Description: desc, MIMEType: jsonMIME}, table: t}
	}
	return out, more, nil
}

func resourcesOf(trs []tableResource) []mcpkit.Resource {
	out := make([]mcpkit.Resource, len(trs))
	for i, tr := range trs {
		out[i] = tr.res
	}
	return out
}

// encodeTableCursor makes the opaque cursor of the table listing: the last table
// listed, from which the next page continues (keyset pagination).
func encodeTableCursor(schema, table string) string {
	return mcpkit.EncodeCursorState([2]string{schema, table})
}

func decodeTableCursor(cursor string) ([2]string, error) {
	var after [2]string
	if cursor == "" {
		return after, nil
	}
	err := mcpkit.DecodeCursorState(cursor, &after)
	return after, err
}

// resourceError maps a database error to the protocol error of a resource read.
func resourceError(uri string, err error) error {
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return mcpkit.ResourceNotFound(uri)
	}
	return mcpkit.Errorf(mcpkit.CodeInternalError, "reading %s: %v", uri, err)
}

// jsonResource renders v as the JSON text of a resource, encoded as tool results are.
func jsonResource(uri string, v any) (*mcpkit.ReadResourceResult, error) {
	text, err := mcpkit.JSONText(v)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", uri, err)
	}
	return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{mcpkit.TextContents(uri, jsonMIME, text)}}, nil
}
