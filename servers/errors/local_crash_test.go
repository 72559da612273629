//go:build linux

package errorserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/getsentry/sentry-go"
)

// startChildStore runs the ingest endpoint in a child process (this test binary, see
// TestMain) on dir, and returns it with its DSN.
func startChildStore(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=ingest", childDataEnv+"="+dir)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child store did not start: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTEN ")
	if !ok {
		t.Fatalf("child store said %q", line)
	}
	return cmd, fmt.Sprintf("http://%s@%s/42", testKey, addr)
}

// TestLocalStoreSurvivesSIGKILL sends events with sentry-go from several goroutines to
// a store in a child process, kills it with SIGKILL while requests are in flight,
// reopens the data directory and finds every event the child acknowledged.
func TestLocalStoreSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	cmd, dsn := startChildStore(t, dir)
	rec := &ackRecorder{next: http.DefaultTransport.(*http.Transport).Clone()}

	const senders, killAfter = 4, 60
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range senders {
		hub := syncHub(t, sentry.ClientOptions{Dsn: dsn, Environment: fmt.Sprintf("env-%d", w%2), HTTPTransport: rec})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 100000; i++ {
				if i%2 == 0 {
					errorstest.ChargeCard(hub)
				} else {
					errorstest.LoadCart(hub, fmt.Sprintf("user-%d", i))
				}
			}
		}()
	}
	waitFor(t, "acknowledged events", func() bool { return len(rec.acked()) >= killAfter })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child exit = %v, want killed by SIGKILL", err)
	}
	stop.Store(true)
	wg.Wait()
	acked := rec.acked()

	store := openTestStore(t, dir)
	defer store.Close()
	stored := allEventIDs(t, store)
	var missing []string
	for _, id := range acked {
		if !stored[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged events are gone after SIGKILL and restart: %v", len(missing), len(acked), missing)
	}
	t.Logf("%d events acknowledged before SIGKILL, %d stored after restart", len(acked), len(stored))

	// A sample of the acknowledged events reads back whole.
	ctx := context.Background()
	for _, id := range acked[:5] {
		got, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: store.issueOfEvent(t, id), EventID: id})
		if err != nil || got.ID != id || len(got.Exceptions) == 0 {
			t.Errorf("GetEvent(%s) = %+v, %v", id, got, err)
		}
	}
	// And the reopened store keeps accepting events.
	_, dsn2 := startIngest(t, store)
	hub := errorstest.NewTestHub(t, dsn2, "after-restart", nil)
	errorstest.ChargeCard(hub)
	if !hub.Flush(10 * time.Second) {
		t.Fatal("flush after restart failed")
	}
	res, err := store.SearchIssues(ctx, backend.SearchIssuesInput{Environment: []string{"after-restart"}})
	if err != nil || len(res.Issues) != 1 {
		t.Fatalf("after restart: %+v, %v; want one issue", res, err)
	}
}
