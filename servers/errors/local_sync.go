package errorserver

import (
	"fmt"
	"os"
	"sync"
)

// walSyncer makes the writer's commits durable beside it. The writer commits with
// synchronous=NORMAL (SQLite writes the WAL but does not fsync it) and hands the
// committed requests here; the syncer fsyncs the WAL file and only then answers them.
// An fsync covers every commit written before it started, so while it runs the writer
// already commits the next batch: the disk's latency no longer stops the writer, and
// each SDK still gets its 200 only once its events are on disk. (SQLite fsyncs the WAL
// itself before every checkpoint and when it starts reusing the file, so a commit is
// never lost between the two.)
type walSyncer struct {
	path string

	mu      sync.Mutex
	waiting []*ingestReq
	failed  error

	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	f    *os.File
}

func newWALSyncer(dbPath string) *walSyncer {
	y := &walSyncer{path: dbPath + "-wal", kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go y.run()
	return y
}

// add queues committed requests for the next fsync.
func (y *walSyncer) add(reqs []*ingestReq) {
	y.mu.Lock()
	y.waiting = append(y.waiting, reqs...)
	y.mu.Unlock()
	select {
	case y.kick <- struct{}{}:
	default:
	}
}

// failure is the error of a failed fsync: after it the store's state on disk is not
// known, and the writer refuses further writes.
func (y *walSyncer) failure() error {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.failed
}

func (y *walSyncer) run() {
	defer close(y.done)
	for {
		select {
		case <-y.kick:
			y.flush()
		case <-y.quit:
			y.flush()
			if y.f != nil {
				y.f.Close()
			}
			return
		}
	}
}

func (y *walSyncer) flush() {
	y.mu.Lock()
	batch := y.waiting
	y.waiting = nil
	failed := y.failed
	y.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	err := failed
	if err == nil {
		if err = y.sync(); err != nil {
			y.mu.Lock()
			y.failed = err
			y.mu.Unlock()
		}
	}
	if err != nil {
		err = fmt.Errorf("could not store durably: %w", err)
	}
	for _, r := range batch {
		r.done <- err
	}
}

func (y *walSyncer) sync() error {
	if y.f == nil {
		f, err := os.OpenFile(y.path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("open the WAL to sync it: %w", err)
		}
		y.f = f
	}
	if err := y.f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", y.path, err)
	}
	return nil
}

// stop answers what is queued (after a last fsync) and ends the syncer.
func (y *walSyncer) stop() {
	close(y.quit)
	<-y.done
}
