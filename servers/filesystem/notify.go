package filesystem

import (
	"context"
	"strings"
	"sync"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// WatchChanges watches the roots now and turns file changes into change notifications
// of s: notifications/resources/updated for each changed file (a subscription to a
// directory's URI also covers the files below it), and
// notifications/resources/list_changed when files appeared or disappeared. mcpkit
// delivers both to 2026-07-28 subscriptions/listen streams and to legacy sessions that
// subscribed with resources/subscribe. The watcher debounces bursts and bounds its
// number of directory watches (see WatchOptions); close it when the server stops.
//
// Directories themselves get no resources/updated: they are not resources, and their
// creation or removal is already a list change.
func WatchChanges(s *mcpkit.Server, rs *Roots, opts WatchOptions) (*Watcher, error) {
	if opts.Logger == nil {
		opts.Logger = s.Logger()
	}
	opts.OnChange = func(c Change) {
		if c.Dir {
			return
		}
		s.NotifyResourceUpdated(c.URI)
	}
	opts.OnListChanged = s.NotifyResourcesListChanged
	return rs.Watch(opts) // it logs a warning once if MaxWatches is reached
}

// LazyWatcher starts WatchChanges the first time a client touches resources.
type LazyWatcher struct {
	s    *mcpkit.Server
	rs   *Roots
	opts WatchOptions

	mu      sync.Mutex
	started bool
	closed  bool
	w       *Watcher
}

// WatchOnDemand arranges for WatchChanges to start on the first resources/* or
// subscriptions/listen request, before that request is handled (so a listen stream is
// acknowledged only once its changes are watched). Until then the server walks no
// directory and holds no inotify watch: most hosts only call tools, and a client that
// never listed or subscribed to resources cannot be waiting for their changes. Call it
// before serving; Close stops the watcher.
func WatchOnDemand(s *mcpkit.Server, rs *Roots, opts WatchOptions) *LazyWatcher {
	lw := &LazyWatcher{s: s, rs: rs, opts: opts}
	s.Use(func(next mcpkit.MethodHandler) mcpkit.MethodHandler {
		return func(ctx context.Context, req *mcpkit.Request) (any, error) {
			if strings.HasPrefix(req.Method, "resources/") || req.Method == "subscriptions/listen" {
				lw.start()
			}
			return next(ctx, req)
		}
	})
	return lw
}

func (lw *LazyWatcher) start() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.started || lw.closed {
		return
	}
	lw.started = true
	w, err := WatchChanges(lw.s, lw.rs, lw.opts)
	if err != nil {
		lw.s.Logger().Warn("change notifications are off: cannot watch the directories", "err", err)
		return
	}
	lw.w = w
}

// Started reports whether the watcher has been started.
func (lw *LazyWatcher) Started() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w != nil
}

// Close stops the watcher if it runs; it will not start afterwards.
func (lw *LazyWatcher) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.closed = true
	if lw.w == nil {
		return nil
	}
	return lw.w.Close()
}
