package postgres

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestGateVerdictRemembered: a statement the gate passed is remembered and runs again
// without the gate's Parse, with the same result; one the gate refused is refused
// every time (a refusal is never remembered). The pool has one connection, whose
// protocol messages are traced, so the test sees whether the gate's Parse of
// "EXPLAIN " + SQL was sent in each call.
func TestGateVerdictRemembered(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{MaxConns: 1})
	ctx := context.Background()

	// traced runs fn with the messages of the pool's only connection written to a
	// buffer, and returns them.
	traced := func(fn func()) string {
		t.Helper()
		fe := onlyConn(t, db).Frontend()
		var buf bytes.Buffer
		fe.Trace(&buf, pgproto3.TracerOptions{SuppressTimestamps: true})
		defer fe.Untrace()
		fn()
		return buf.String()
	}

	const ok = "SELECT 1 AS one"
	for i := range 2 {
		trace := traced(func() {
			res, err := db.Query(ctx, ok, nil)
			if err != nil || res.RowCount != 1 {
				t.Fatalf("run %d: %v %+v", i, err, res)
			}
		})
		if !strings.Contains(trace, `"`+ok+`"`) {
			t.Fatalf("run %d: the call did not Parse %q on the traced connection:\n%s", i, ok, trace)
		}
		gateSent := strings.Contains(trace, `"EXPLAIN `+ok+`"`)
		if i == 0 && !gateSent {
			t.Fatalf("run %d: the gate's Parse was not sent for a new statement:\n%s", i, trace)
		}
		if i > 0 && gateSent {
			t.Fatalf("run %d: the gate's Parse was sent again for a statement it had passed:\n%s", i, trace)
		}
		if !db.plannable.known(ok) {
			t.Fatalf("run %d: a statement the gate passed was not remembered", i)
		}
	}
	for i := range 2 {
		const set = "SET search_path = public"
		trace := traced(func() {
			_, err := db.Query(ctx, set, nil)
			var rej *RejectError
			if !errors.As(err, &rej) {
				t.Fatalf("run %d: SET was not refused by the gate: %v", i, err)
			}
		})
		if !strings.Contains(trace, `"EXPLAIN `+set+`"`) {
			t.Fatalf("run %d: the gate's Parse was not sent for a statement it refused before:\n%s", i, trace)
		}
		if db.plannable.known(set) {
			t.Fatalf("run %d: a refused statement was remembered", i)
		}
	}
}
