package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// step names what a pipelined protocol message is for, so a reply (or an error) can be
// attributed to it.
type step uint8

const (
	stepClose     step = iota // Close of cached statements evicted or dropped since the last call (stmtcache.go)
	stepBegin                 // BEGIN READ ONLY / READ WRITE
	stepSetup                 // SET LOCAL statement_timeout and output formats
	stepUserParse             // Parse of the caller's SQL on its own (exact error positions)
	stepGateParse             // Parse of "EXPLAIN " + SQL: proves the SQL is a plannable query
	stepGateClose             // Close of the gate statement, so nothing named outlives the call
	stepMainParse             // Parse of the statement that is executed (EXPLAIN … in explain calls); none for a cached statement
	stepBind                  // Bind of the caller's params
	stepDescribe              // Describe of the portal: the result columns
	stepExecute               // Execute: the rows
	stepEnd                   // ROLLBACK (or COMMIT for confirmed writes)
	stepCheck                 // leftover session state check (before ROLLBACK; after it when the statement failed)
	stepHypoReset             // hypopg_reset() on a connection that resets HypoPG in every call (hypopg.go)
	stepSync                  // Sync: the server is ready again
)

// op is one protocol message whose reply is awaited, in the order sent.
type op struct {
	step step
	kind byte // 'P' parse, 'B' bind, 'C' close, 'D' describe, 'E' execute, 'S' sync
}

// pipeline batches extended-protocol messages so a whole call (begin, setup, the
// statement, rollback, check) costs one network round trip. Everything goes through
// Parse/Bind/Execute: the simple query protocol, which runs several statements from
// one string, is never used.
type pipeline struct {
	fe  *pgproto3.Frontend
	ops []op
}

func newPipeline(pc *pgconn.PgConn) *pipeline {
	return &pipeline{fe: pc.Frontend(), ops: make([]op, 0, 24)}
}

func (p *pipeline) parse(s step, name, sql string) {
	p.fe.SendParse(&pgproto3.Parse{Name: name, Query: sql})
	p.ops = append(p.ops, op{s, 'P'})
}

func (p *pipeline) bind(s step, stmt string, params [][]byte) {
	// No format codes: every parameter is sent, and every result column returned, as
	// text. Text needs no per-type codec on either side, works for every type
	// including extension types, and the server's own text output is exact.
	p.fe.SendBind(&pgproto3.Bind{PreparedStatement: stmt, Parameters: params})
	p.ops = append(p.ops, op{s, 'B'})
}

func (p *pipeline) describePortal(s step) {
	p.fe.SendDescribe(&pgproto3.Describe{ObjectType: 'P'})
	p.ops = append(p.ops, op{s, 'D'})
}

func (p *pipeline) execute(s step, maxRows uint32) {
	p.fe.SendExecute(&pgproto3.Execute{MaxRows: maxRows})
	p.ops = append(p.ops, op{s, 'E'})
}

func (p *pipeline) closeStatement(s step, name string) {
	p.fe.SendClose(&pgproto3.Close{ObjectType: 'S', Name: name})
	p.ops = append(p.ops, op{s, 'C'})
}

// run is parse + bind + execute of a fixed statement of ours.
func (p *pipeline) run(s step, sql string, params ...[]byte) {
	p.parse(s, "", sql)
	p.bind(s, "", params)
	p.execute(s, 0)
}

// runPrepared is bind + execute of a statement prepared on the connection.
func (p *pipeline) runPrepared(s step, name string, params ...[]byte) {
	p.bind(s, name, params)
	p.execute(s, 0)
}

func (p *pipeline) sync() {
	p.fe.SendSync(&pgproto3.Sync{})
	p.ops = append(p.ops, op{stepSync, 'S'})
}

// handler receives what the server returns for a pipeline.
type handler interface {
	// columns is called with the row description of the stepDescribe portal.
	columns(fields []pgproto3.FieldDescription)
	// row is called for each data row of stepExecute and stepCheck; values are only
	// valid during the call.
	row(s step, values [][]byte)
	// done is called when stepExecute finishes: with the command tag, or suspended
	// when the portal stopped at its row limit.
	done(s step, tag string, suspended bool)
}

// reply is the outcome of one round trip.
type reply struct {
	err      *pgconn.PgError // the first error the server reported
	errStep  step            // the step that error belongs to
	txStatus byte            // from ReadyForQuery: 'I' idle, 'T' in transaction, 'E' failed transaction
}

// errBroken marks a connection that can no longer be trusted (I/O error, protocol
// confusion, a FATAL from the server): the caller must close it.
type errBroken struct {
	err error
	// notRun says the server certainly processed none of the round trip's messages:
	// nothing at all was written, or the first thing read back was a FATAL error,
	// sent before any reply to the first message (PostgreSQL answers messages in
	// order and sends a FATAL after the replies it has already queued).
	notRun bool
}

func (e *errBroken) Error() string { return "connection to PostgreSQL lost: " + e.err.Error() }
func (e *errBroken) Unwrap() error { return e.err }

// roundTrip flushes the pipeline and reads every reply up to ReadyForQuery. The
// messages are read with no context of their own: cancellation is arranged once per
// call by watchContext, which keeps per-row overhead out of the loop.
func (p *pipeline) roundTrip(pc *pgconn.PgConn, h handler) (reply, error) {
	var r reply
	if err := p.fe.Flush(); err != nil {
		return r, &errBroken{err: err, notRun: pgconn.SafeToRetry(err)} // SafeToRetry: not a byte was written
	}
	i := 0 // index of the op whose reply comes next
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			var pe *pgconn.PgError
			first := i == 0 && r.err == nil // no reply to the first message yet
			return r, &errBroken{err: err, notRun: first && errors.As(err, &pe) && fatal(pe)}
		}
		if i >= len(p.ops) {
			return r, &errBroken{err: fmt.Errorf("unexpected %T after the last reply", msg)}
		}
		cur := p.ops[i]
		switch m := msg.(type) {
		case *pgproto3.ParseComplete, *pgproto3.BindComplete, *pgproto3.CloseComplete:
			i++
		case *pgproto3.NoData:
			i++
		case *pgproto3.RowDescription:
			if cur.kind == 'D' {
				h.columns(m.Fields)
				i++
			}
			// A RowDescription during Execute (no Describe sent) carries nothing new.
		case *pgproto3.DataRow:
			h.row(cur.step, m.Values)
		case *pgproto3.CommandComplete:
			h.done(cur.step, string(m.CommandTag), false)
			i++
		case *pgproto3.EmptyQueryResponse:
			h.done(cur.step, "", false)
			i++
		case *pgproto3.PortalSuspended:
			h.done(cur.step, "", true)
			i++
		case *pgproto3.ErrorResponse:
			if r.err == nil {
				r.err = pgconn.ErrorResponseToPgError(m)
				r.errStep = cur.step
			}
			// After an error the server skips everything up to Sync.
			i = len(p.ops) - 1
		case *pgproto3.ReadyForQuery:
			if cur.kind != 'S' {
				return r, &errBroken{err: errors.New("ReadyForQuery before all replies arrived")}
			}
			r.txStatus = m.TxStatus
			p.ops = p.ops[:0]
			return r, nil
		case *pgproto3.CopyInResponse:
			// Only a confirmed write can get here (the read path never executes
			// COPY). The server aborts the copy at our next pipelined message.
		case *pgproto3.NoticeResponse, *pgproto3.ParameterStatus, *pgproto3.NotificationResponse,
			*pgproto3.CopyOutResponse, *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.ParameterDescription:
			// Not part of the result.
		default:
			return r, &errBroken{err: fmt.Errorf("unexpected message %T", msg)}
		}
	}
}

// watchContext arranges that when ctx ends while a call is in flight, PostgreSQL is
// asked to cancel the statement and, should it not answer, reads stop after a grace
// period. The returned stop must be called when the call is over; it reports whether
// ctx ended during the call (the connection must then be closed).
func watchContext(ctx context.Context, pc *pgconn.PgConn) (stop func() bool) {
	fired := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		close(fired)
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = pc.CancelRequest(cctx)
		_ = pc.Conn().SetDeadline(time.Now().Add(2 * time.Second))
	})
	return func() bool {
		if stopAfter() {
			return false
		}
		<-fired
		return true
	}
}
