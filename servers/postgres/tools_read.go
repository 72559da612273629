package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Params are positional values for $1, $2, … of a statement. They are kept as raw
// JSON and decoded with UseNumber, so a number reaches PostgreSQL with every digit
// the caller wrote (12345678901234567890.5 stays exact for a numeric placeholder).
type Params []json.RawMessage

// JSONSchema publishes each param as anyOf string, number, boolean, null or array, in
// that order, each branch one type. This is the form agent frameworks convert without
// changing it: OpenAI's strict mode cannot express an open object and falls back to a
// non-strict tool when it meets {"type":"object"}, and LangChain's adapter collapses
// an anyOf that has an object branch into that branch (so [2] was refused). An object
// for a json or jsonb placeholder is passed as its JSON text, a string: PostgreSQL
// receives the same text it got when an object was sent (encodeParams renders an
// object as its JSON), so no value that could be passed before is lost.
func (Params) JSONSchema() *jsonschema.Schema {
	item := &jsonschema.Schema{}
	for _, t := range []string{"string", "number", "boolean", "null", "array"} {
		item.AnyOf = append(item.AnyOf, &jsonschema.Schema{Type: t})
	}
	return &jsonschema.Schema{Type: "array", Items: item}
}

// values decodes the params for encodeParams.
func (p Params) values() ([]any, error) {
	if len(p) == 0 {
		return nil, nil
	}
	out := make([]any, len(p))
	for i, raw := range p {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("params[%d] (for $%d) is not a JSON value: %v", i, i+1, err)
		}
	}
	return out, nil
}

// Tool inputs. Descriptions use jsonschema_description, which may contain commas.

type queryInput struct {
	dbArg
	SQL    string `json:"sql" jsonschema_description:"One statement: SELECT, WITH, VALUES or TABLE, with $1, $2, … for values"`
	Params Params `json:"params,omitempty"`
}

type listTablesInput struct {
	dbArg
	Schema string `json:"schema,omitempty" jsonschema_description:"Only this one (case-sensitive); omitted: every user schema"`
}

type describeTableInput struct {
	dbArg
	Table  string `json:"table" jsonschema_description:"Table, view or materialized view name (case-sensitive, unquoted)"`
	Schema string `json:"schema,omitempty" jsonschema_description:"Omitted: found on the search path"`
}

type explainInput struct {
	dbArg
	SQL     string `json:"sql" jsonschema_description:"One statement: SELECT, WITH, VALUES, TABLE, INSERT, UPDATE, DELETE or MERGE, without EXPLAIN"`
	Params  Params `json:"params,omitempty"`
	Analyze bool   `json:"analyze,omitempty" jsonschema_description:"Also run it (EXPLAIN ANALYZE) for actual times and rows, in a read-only transaction rolled back (writes fail); it takes as long as the statement"`
}

// dbOnlyInput is the input of a tool that takes no argument but the database (which
// a single-database server does not publish). Such a tool sets noArgsSchema itself:
// generated from this type, its schema would carry an empty "properties".
type dbOnlyInput struct {
	dbArg
}

var noArgsSchema = json.RawMessage(`{"additionalProperties":false,"type":"object"}`)

// writeScope is the OAuth scope execute (every tool not marked read-only) needs over
// authorized HTTP (db:write): New's server adds it to each such tool, so a token with
// only the deployment's --auth-scopes can query but not write.
var writeScope = mcpkit.WriteScope("db")

type topQueriesInput struct {
	dbArg
	OrderBy      string `json:"orderBy,omitempty" jsonschema:"enum=total_time,enum=mean_time,enum=calls,enum=io" jsonschema_description:"Rank by (default total_time); io: blocks read and spilled"`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"How many, at most 50 (default 10)"`
	MinCalls     int64  `json:"minCalls,omitempty" jsonschema_description:"Only statements called at least this often"`
	AllDatabases bool   `json:"allDatabases,omitempty" jsonschema_description:"All databases, not just this one"`
}

type healthInput struct {
	dbArg
	Checks []string `json:"checks,omitempty" jsonschema:"enum=indexes,enum=vacuum,enum=sequences,enum=constraints,enum=connections,enum=cache,enum=replication" jsonschema_description:"Checks to run; omit for all"`
}

type suggestIndexesInput struct {
	dbArg
	SQL      string `json:"sql,omitempty" jsonschema_description:"One statement to tune, without EXPLAIN; omit for the top queries"`
	Params   Params `json:"params,omitempty" jsonschema_description:"Values for $1, $2, … as in query; omit for a generic plan"`
	Limit    int    `json:"limit,omitempty" jsonschema_description:"Without sql: top queries to tune, at most 10 (default 5)"`
	MinCalls int64  `json:"minCalls,omitempty" jsonschema_description:"Without sql: only those called at least this often"`
}

// tools is the server's tool table in tools/list order: the read tools, each run in
// a READ ONLY transaction that is rolled back (see readonly.go and catalog.go), then
// execute, which a ReadOnly server (no --allow-writes) leaves out and which needs
// writeScope.
func tools(ds *databases, confirm bool) []mcpkit.ServerTool {
	o := ds.list[0].DB.Options()
	return []mcpkit.ServerTool{
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "query",
			Description: fmt.Sprintf("Run one read-only SQL query and get the rows as JSON with column names and types; check names with describe_table first. "+
				"At most %d rows come back: add a LIMIT. Runs in a READ ONLY transaction that is always rolled back.", o.MaxRows),
			Annotations: mcpkit.ReadOnly(),
			TaskSupport: mcpkit.TaskOptional, // a long query: a task for clients with the Tasks extension
		}, func(ctx context.Context, req *mcpkit.Request, in queryInput) (*QueryResult, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			params, err := in.Params.values()
			if err != nil {
				return nil, err
			}
			defer reportRunning(ctx, req, "query")()
			return db.Query(ctx, in.SQL, params)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "list_schemas",
			Description: "List the database's schemas with owners, table counts and comments. Use it first when you do not know where the tables are.",
			Annotations: mcpkit.ReadOnly(),
			InputSchema: noArgsSchema,
		}, func(ctx context.Context, _ *mcpkit.Request, in dbOnlyInput) (*SchemaList, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			list, err := db.ListSchemas(ctx)
			if err == nil && ds.multi() {
				list.Database, list.Databases = ds.nameOf(db), ds.infos()
			}
			return list, err
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "list_tables",
			Description: "List tables, views, materialized views, partitioned and foreign tables with row estimates and comments, optionally of one schema. Use it to find the table that holds what you need.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, _ *mcpkit.Request, in listTablesInput) (*TableList, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.ListTables(ctx, in.Schema)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "describe_table",
			Description: "Describe one table or view: columns with types, nullability and defaults, primary and foreign keys (also those referencing it), indexes, constraints, comments and a view's definition. Use it before writing SQL against the table.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, _ *mcpkit.Request, in describeTableInput) (*TableDescription, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.DescribeTable(ctx, in.Schema, in.Table)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "explain_query",
			Description: "Show the plan of one statement as EXPLAIN (FORMAT JSON) returns it: scans, joins, indexes used, estimated costs and rows. " +
				"Use it before a query that may be slow or to find why one is slow. The statement is not run unless analyze is true.",
			Annotations: mcpkit.ReadOnly(),
			TaskSupport: mcpkit.TaskOptional, // EXPLAIN ANALYZE runs the statement
		}, func(ctx context.Context, req *mcpkit.Request, in explainInput) (*ExplainResult, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			params, err := in.Params.values()
			if err != nil {
				return nil, err
			}
			defer reportRunning(ctx, req, "explain_query")()
			return db.Explain(ctx, in.SQL, params, in.Analyze)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "activity",
			Description: "Show what the database server is doing now: sessions running or idle in a transaction, with their queries and how long they have run, " +
				"and lock waits with the sessions blocking them. Use it to investigate slow, stuck or blocked queries.",
			Annotations: mcpkit.ReadOnly(),
			InputSchema: noArgsSchema,
		}, func(ctx context.Context, _ *mcpkit.Request, in dbOnlyInput) (*ActivityReport, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.Activity(ctx)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "top_queries",
			Description: "The statements that cost the most, from pg_stat_statements: by total or mean time, calls or I/O, with normalized text. Use it to find what to tune.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, _ *mcpkit.Request, in topQueriesInput) (*TopQueries, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.TopQueries(ctx, in.OrderBy, in.Limit, in.MinCalls, in.AllDatabases)
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "health",
			Description: "Database health checks, each ok, warning or critical with the numbers and thresholds: indexes (invalid, duplicate, unused), " +
				"vacuum (dead tuples, wraparound), sequences near their limit, unvalidated constraints, connections, cache hit rate, replication.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, req *mcpkit.Request, in healthInput) (*HealthReport, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.Health(ctx, in.Checks, func(done, total int, check string) {
				req.Progress(float64(done), float64(total), "checked "+check)
			})
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "suggest_indexes",
			Description: "Suggest indexes for one statement, or for the top queries if sql is omitted: columns of the plan's filters, joins and sorts, " +
				"measured as HypoPG hypothetical indexes (planner cost before/after, size). Returns CREATE INDEX CONCURRENTLY statements; creates nothing.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, req *mcpkit.Request, in suggestIndexesInput) (*IndexAdvice, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			params, err := in.Params.values()
			if err != nil {
				return nil, err
			}
			return db.SuggestIndexes(ctx, in.SQL, params, in.Limit, in.MinCalls, func(done, total int, msg string) {
				req.Progress(float64(done), float64(total), msg)
			})
		}),
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name: "list_objects",
			Description: "List catalog objects other than tables, by kind: functions and procedures (signatures, language, volatility), triggers, sequences, " +
				"extensions (installed, then available), types (enums, domains, composites), roles (yours first, with what it may do) or settings that differ from the defaults.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, _ *mcpkit.Request, in listObjectsInput) (*ObjectList, error) {
			db, err := ds.db(in.Database)
			if err != nil {
				return nil, err
			}
			return db.ListObjects(ctx, in.Kind, in.Schema, in.Name)
		}),
		executeTool(ds, confirm),
	}
}

// sizeText writes a byte count the way a person reads it: 1 MiB, 64 KiB, 1500 bytes.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// progressEvery is how often a running statement reports progress: to a client that
// asked for progress, how long it has run (in seconds, increasing; no total, since
// PostgreSQL cannot tell how much is left); for a call running as a task, as its
// statusMessage. The statement itself is cancelled on the server (a cancel request)
// when the call's context ends: see watchContext.
const progressEvery = 250 * time.Millisecond

func reportRunning(ctx context.Context, req *mcpkit.Request, what string) (stop func()) {
	return mcpkit.ReportElapsed(ctx, req, progressEvery, what)
}
