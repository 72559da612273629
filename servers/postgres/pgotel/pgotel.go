// Package pgotel traces the postgres server's statements with OpenTelemetry: one
// client span per statement, a child of the tool call's server span (package
// otelmcp), carrying what an operator needs to tell a slow query from a slow model
// and nothing a caller wrote into it: the statement's kind (its first keyword, e.g.
// SELECT), the database, the rows returned and the duration, never the SQL text or
// its parameters.
//
//	postgres.Options{Tracer: pgotel.New(otel.GetTracerProvider())}
package pgotel

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/reference/servers/postgres"
)

const scope = "github.com/mcpkit/reference/servers/postgres/pgotel"

// New returns postgres.Options.Tracer: for each database, a pgx.QueryTracer making
// spans with tp's tracer.
func New(tp trace.TracerProvider) func(postgres.Target) pgx.QueryTracer {
	tr := tp.Tracer(scope)
	return func(t postgres.Target) pgx.QueryTracer {
		return &tracer{tr: tr, base: []attribute.KeyValue{
			attribute.String("db.system.name", "postgresql"),
			attribute.String("db.namespace", t.Database),
			attribute.String("server.address", t.Host),
			attribute.Int("server.port", int(t.Port)),
		}, db: t.Database}
	}
}

type tracer struct {
	tr   trace.Tracer
	base []attribute.KeyValue
	db   string
}

// TraceQueryStart starts the statement's span. data.Args are never read.
func (t *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := Kind(data.SQL)
	attrs := append(t.base[:len(t.base):len(t.base)], attribute.String("db.operation.name", op))
	ctx, _ = t.tr.Start(ctx, op+" "+t.db, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

// TraceQueryEnd ends it with the rows returned or affected and, on failure, the
// SQLSTATE (never the message, which can quote the statement's values).
func (t *tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if data.CommandTag.String() != "" {
		span.SetAttributes(attribute.Int64("db.response.returned_rows", data.CommandTag.RowsAffected()))
	}
	if data.Err != nil {
		errType := "error"
		if code := sqlState(data.Err); code != "" {
			errType = code
			span.SetAttributes(attribute.String("db.response.status_code", code))
		}
		span.SetAttributes(attribute.String("error.type", errType))
		span.SetStatus(codes.Error, errType)
	}
	span.End()
}

// sqlState finds the SQLSTATE of a PostgreSQL error (pgx's, or the server's *SQLError).
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	var se *postgres.SQLError
	if errors.As(err, &se) {
		return se.SQLState
	}
	return ""
}

// kinds are the statement keywords reported as they are; any other first word is
// OTHER, so that no text of the statement beyond a keyword reaches an attribute.
var kinds = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`SELECT WITH INSERT UPDATE DELETE MERGE EXPLAIN SHOW VALUES TABLE CREATE ALTER DROP
		TRUNCATE BEGIN START COMMIT END ROLLBACK SAVEPOINT RELEASE SET RESET PREPARE EXECUTE DEALLOCATE COPY GRANT
		REVOKE COMMENT ANALYZE VACUUM LOCK DO CALL DECLARE FETCH MOVE CLOSE LISTEN NOTIFY UNLISTEN DISCARD REFRESH
		REINDEX CLUSTER SECURITY IMPORT LOAD CHECKPOINT`) {
		kinds[k] = true
	}
}

// Kind is the statement's first keyword in upper case, after white space, comments
// and opening parentheses; OTHER when that is not a known keyword.
func Kind(sql string) string {
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == '\f':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			nl := strings.IndexByte(sql[i:], '\n')
			if nl < 0 {
				return "OTHER"
			}
			i += nl + 1
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return "OTHER"
			}
			i += end + 4
		default:
			j := i
			for j < len(sql) && j-i < 16 && (sql[j]|0x20 >= 'a' && sql[j]|0x20 <= 'z') {
				j++
			}
			if w := strings.ToUpper(sql[i:j]); kinds[w] {
				return w
			}
			return "OTHER"
		}
	}
	return "OTHER"
}
