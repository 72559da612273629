package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// TestActivity blocks one session behind another's lock and checks Activity reports
// both sessions, who blocks whom, and the waiting lock.
func TestActivity(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, "CREATE TABLE t (id int)")
	db := openDB(t, d.URL, Options{})
	ctx := context.Background()

	holder := connectAdmin(t, d.URL)
	waiter := connectAdmin(t, d.URL)
	var holderPID, waiterPID int32
	if err := holder.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	if err := waiter.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&waiterPID); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, "BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "SELECT count(*) FROM t /* waiting */")
		waited <- err
	}()
	defer func() {
		holder.Exec(ctx, "ROLLBACK")
		if err := <-waited; err != nil {
			t.Errorf("blocked query: %v", err)
		}
	}()

	// Wait (bounded) until the server shows the waiter blocked, in pg_locks and in
	// pg_stat_activity, and the holder settled in its wait for the client: between its
	// statement's end and that wait, a backend is "idle in transaction" with no wait
	// event for a moment. pg_stat_activity is read first, so a snapshot can show the
	// waiter's lock request while its session is not yet reported active.
	var report *ActivityReport
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r, err := db.Activity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		blocked, waiting, settled := false, false, false
		for _, l := range r.WaitingLocks {
			blocked = blocked || l.PID == waiterPID
		}
		for _, s := range r.Sessions {
			waiting = waiting || s.PID == waiterPID && s.WaitEventType == "Lock"
			settled = settled || s.PID == holderPID && s.WaitEventType == "Client"
		}
		if blocked && waiting && settled {
			report = r
			break
		}
	}
	if report == nil {
		t.Fatal("the blocked session (behind a holder waiting for its client) never showed up in Activity")
	}

	type brief struct {
		PID       int32
		State     string
		WaitType  string
		Query     string
		BlockedBy []int32
	}
	var got []brief
	for _, s := range report.Sessions {
		if s.PID != holderPID && s.PID != waiterPID {
			continue // other tests run in parallel
		}
		got = append(got, brief{s.PID, s.State, s.WaitEventType, s.Query, s.BlockedByPIDs})
		if s.Database != d.Name || s.User != "postgres" {
			t.Errorf("session %d: database %q user %q", s.PID, s.Database, s.User)
		}
	}
	want := []brief{
		{holderPID, "idle in transaction", "Client", "BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE", nil},
		{waiterPID, "active", "Lock", "SELECT count(*) FROM t /* waiting */", []int32{holderPID}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	var gotLocks []LockWait
	for _, l := range report.WaitingLocks {
		if l.PID == waiterPID {
			gotLocks = append(gotLocks, l)
		}
	}
	wantLocks := []LockWait{{PID: waiterPID, LockType: "relation", Mode: "AccessShareLock", Relation: "t", BlockedByPIDs: []int32{holderPID}}}
	if diff := cmp.Diff(wantLocks, gotLocks); diff != "" {
		t.Errorf("waiting locks (-want +got):\n%s", diff)
	}
}
