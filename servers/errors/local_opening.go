package errorserver

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// IngestLock is a data directory's ingest lock, taken ahead of OpenLocal (see
// LocalConfig.Lock): a process knows at once whether it will ingest, and so its DSN,
// while the store itself opens in the background.
type IngestLock struct{ f *os.File }

// LockIngest takes the ingest lock of dataDir (creating the directory), or fails
// with an error wrapping ErrIngestedElsewhere when another process holds it.
func LockIngest(dataDir string) (*IngestLock, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	f, err := lockIngest(dataDir)
	if err != nil {
		return nil, err
	}
	return &IngestLock{f: f}, nil
}

// Release gives the lock up; for a lock OpenLocal did not take over (it failed, or was
// never called).
func (l *IngestLock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// OpeningStore is the Backend of a local store that is still opening (in the
// background, so that the server answers discovery, initialize and tools/list at
// once): every call waits until it has opened, then goes to the store, or fails with
// the reason it did not open.
//
// It is also how an MCP server swaps in the store it opened again after the one it
// ingested into was deleted or replaced under it (Reopened).
type OpeningStore struct {
	done  chan struct{}
	store atomic.Pointer[LocalStore]
	err   error
}

var _ backend.Backend = (*OpeningStore)(nil)

// NewOpeningStore returns a store that is opening; call Opened once when it has.
func NewOpeningStore() *OpeningStore { return &OpeningStore{done: make(chan struct{})} }

// Opened records the outcome of opening the store and releases the calls waiting.
func (o *OpeningStore) Opened(s *LocalStore, err error) {
	o.store.Store(s)
	o.err = err
	close(o.done)
}

// Reopened sends every call from now on to s, a store opened again on the data
// directory (after the store opened first has). A call already running finishes on
// the store it started with.
func (o *OpeningStore) Reopened(s *LocalStore) { o.store.Store(s) }

// Wait waits until the store has opened (or ctx ends) and returns it.
func (o *OpeningStore) Wait(ctx context.Context) (*LocalStore, error) {
	select {
	case <-o.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: the local store is still opening: %w", backend.ErrUnavailable, ctx.Err())
	}
	if o.err != nil {
		return nil, fmt.Errorf("the local store could not be opened: %w", o.err)
	}
	return o.store.Load(), nil
}

// ListProjects waits for the store, then lists its projects.
func (o *OpeningStore) ListProjects(ctx context.Context, in backend.ListProjectsInput) (*backend.ProjectList, error) {
	return whenOpen(ctx, o, in, (*LocalStore).ListProjects)
}

// SearchIssues waits for the store, then searches it.
func (o *OpeningStore) SearchIssues(ctx context.Context, in backend.SearchIssuesInput) (*backend.IssueList, error) {
	return whenOpen(ctx, o, in, (*LocalStore).SearchIssues)
}

// GetIssue waits for the store, then reads the issue.
func (o *OpeningStore) GetIssue(ctx context.Context, in backend.GetIssueInput) (*backend.IssueDetail, error) {
	return whenOpen(ctx, o, in, (*LocalStore).GetIssue)
}

// GetEvent waits for the store, then reads the event.
func (o *OpeningStore) GetEvent(ctx context.Context, in backend.GetEventInput) (*backend.Event, error) {
	return whenOpen(ctx, o, in, (*LocalStore).GetEvent)
}

// ListIssueEvents waits for the store, then lists the issue's events.
func (o *OpeningStore) ListIssueEvents(ctx context.Context, in backend.ListIssueEventsInput) (*backend.EventList, error) {
	return whenOpen(ctx, o, in, (*LocalStore).ListIssueEvents)
}

// GetTagValues waits for the store, then counts the tag's values.
func (o *OpeningStore) GetTagValues(ctx context.Context, in backend.GetTagValuesInput) (*backend.TagValueList, error) {
	return whenOpen(ctx, o, in, (*LocalStore).GetTagValues)
}

// whenOpen waits for the store, then makes the call on it.
func whenOpen[In, Out any](ctx context.Context, o *OpeningStore, in In, call func(*LocalStore, context.Context, In) (Out, error)) (Out, error) {
	s, err := o.Wait(ctx)
	if err != nil {
		var zero Out
		return zero, err
	}
	return call(s, ctx, in)
}
