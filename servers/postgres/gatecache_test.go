package postgres

import (
	"context"
	"errors"
	"testing"
)

// TestGateVerdictRemembered: a statement the gate passed is remembered and runs again
// without the gate's Parse, with the same result; one the gate refused is refused
// every time (a refusal is never remembered).
func TestGateVerdictRemembered(t *testing.T) {
	t.Parallel()
	_, db := shopDB(t, Options{})
	ctx := context.Background()
	const ok = "SELECT 1 AS one"
	for i := range 2 {
		res, err := db.Query(ctx, ok, nil)
		if err != nil || res.RowCount != 1 {
			t.Fatalf("run %d: %v %+v", i, err, res)
		}
		if !db.plannable.known(ok) {
			t.Fatalf("run %d: a statement the gate passed was not remembered", i)
		}
	}
	for i := range 2 {
		_, err := db.Query(ctx, "SET search_path = public", nil)
		var rej *RejectError
		if !errors.As(err, &rej) {
			t.Fatalf("run %d: SET was not refused by the gate: %v", i, err)
		}
		if db.plannable.known("SET search_path = public") {
			t.Fatalf("run %d: a refused statement was remembered", i)
		}
	}
}
