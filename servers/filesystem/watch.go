package filesystem

import (
	"context"
	"errors"
	"log/slog"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// DefaultDebounce is how long the watcher waits for a burst of events to settle.
	DefaultDebounce = 100 * time.Millisecond
	// DefaultMaxWatches bounds how many directories are watched (inotify watches are a
	// per-user kernel resource).
	DefaultMaxWatches = 8192
)

// ChangeKind says what happened to a file.
type ChangeKind string

// The kinds of change a Watcher reports.
const (
	ChangeCreated  ChangeKind = "created"
	ChangeModified ChangeKind = "modified"
	ChangeRemoved  ChangeKind = "removed"
)

// Change is one debounced change to a file or directory under a root.
type Change struct {
	URI  string     // file:// URI, as ListFileResources names it
	Path string     // absolute display path
	Kind ChangeKind // created, modified or removed
	Dir  bool       // the entry is (or, when removed, was) a watched directory
}

// WatchOptions configures a Watcher. OnChange and OnListChanged are called from the
// watcher's goroutine, one at a time; they must return quickly and must not call Close.
type WatchOptions struct {
	Debounce       time.Duration // wait for events to settle; default 100 ms
	MaxWatches     int           // most directories watched; default 8192
	IncludeIgnored bool          // also watch what .gitignore ignores, and .git
	OnChange       func(Change)  // each debounced change
	OnListChanged  func()        // after a batch that created or removed something, or after lost events
	Logger         *slog.Logger  // defaults to slog.Default()
}

// Watcher reports changes under the roots. It watches every directory recursively (new
// directories are added as they appear) up to MaxWatches; past that limit directories
// are not watched, changes inside them are not reported, and a warning is logged once.
// Events are merged per path over the debounce window: created+modified is created,
// removed+created is modified (a file replaced by rename), created+removed is nothing.
type Watcher struct {
	rs      *Roots
	opts    WatchOptions
	fw      *fsnotify.Watcher
	log     *slog.Logger
	mu      sync.Mutex
	watched map[string]*watchedDir // by absolute real path
	limit   bool
	done    chan struct{}
	wg      sync.WaitGroup
}

type watchedDir struct {
	root *Root
	rel  string // slash, "" for the root
	ign  ignoreStack
}

type pendingChange struct {
	root  *Root
	rel   string
	kind  ChangeKind
	isDir bool
}

// Watch starts watching every root. The Roots must stay open until Close.
func (rs *Roots) Watch(opts WatchOptions) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxWatches <= 0 {
		opts.MaxWatches = DefaultMaxWatches
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{rs: rs, opts: opts, fw: fw, log: opts.Logger, watched: map[string]*watchedDir{}, done: make(chan struct{})}
	for _, r := range rs.roots {
		w.addTree(r, "", nil)
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Close stops watching. Pending changes are dropped.
func (w *Watcher) Close() error {
	select {
	case <-w.done:
		return nil
	default:
	}
	close(w.done)
	err := w.fw.Close()
	w.wg.Wait()
	return err
}

// Watches returns how many directories are watched.
func (w *Watcher) Watches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

// LimitReached reports whether some directories are not watched because of MaxWatches.
func (w *Watcher) LimitReached() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit
}

// addTree watches the directory rel of root and everything below it. parentIgn is the
// rule stack of its parent directory.
func (w *Watcher) addTree(root *Root, rel string, parentIgn ignoreStack) {
	ign := parentIgn
	if !w.opts.IncludeIgnored {
		if rel == "" {
			ign = nil
		}
		if data := readRootFile(root, path.Join(rel, ".gitignore")); data != nil {
			ign = ign.push(parseGitignore(rel, data))
		}
	}
	if !w.addDir(root, rel, ign) {
		return
	}
	osRel := "."
	if rel != "" {
		osRel = filepath.FromSlash(rel)
	}
	walkTree(context.Background(), root, osRel, walkOptions{gitignore: !w.opts.IncludeIgnored}, func(e *walkEntry) error {
		if !e.info.IsDir() {
			return nil
		}
		child := path.Join(rel, e.rel)
		cign := e.ign
		if !w.opts.IncludeIgnored {
			if data := readSmallFile(e.dir, filepath.Join(e.name, ".gitignore"), maxGitignoreBytes); data != nil {
				cign = cign.push(parseGitignore(child, data))
			}
		}
		if !w.addDir(root, child, cign) {
			return errStopWalk
		}
		return nil
	})
}

// addDir watches one directory; false once the limit is reached.
func (w *Watcher) addDir(root *Root, rel string, ign ignoreStack) bool {
	abs := filepath.Join(root.real, filepath.FromSlash(rel))
	w.mu.Lock()
	if _, ok := w.watched[abs]; ok {
		w.mu.Unlock()
		return true
	}
	if len(w.watched) >= w.opts.MaxWatches {
		first := !w.limit
		w.limit = true
		w.mu.Unlock()
		if first {
			w.log.Warn("directory watch limit reached; changes in directories beyond it are not reported", "maxWatches", w.opts.MaxWatches)
		}
		return false
	}
	w.mu.Unlock()
	if err := w.fw.Add(abs); err != nil {
		w.log.Debug("cannot watch directory", "path", abs, "err", err)
		return true
	}
	// inotify follows symlinks: if the directory was swapped for a link since it was
	// listed, drop the watch (names of changes are all it could have leaked).
	osRel := filepath.FromSlash(rel)
	if rel == "" {
		osRel = "."
	}
	if st, err := root.os.Lstat(osRel); err != nil || !st.IsDir() {
		w.fw.Remove(abs)
		return true
	}
	w.mu.Lock()
	w.watched[abs] = &watchedDir{root: root, rel: rel, ign: ign}
	w.mu.Unlock()
	return true
}

// locate maps an event path to its root and slash path, and the rules of its directory.
func (w *Watcher) locate(abs string) (*Root, string, ignoreStack, bool) {
	dir := filepath.Dir(abs)
	w.mu.Lock()
	wd, ok := w.watched[dir]
	w.mu.Unlock()
	if !ok {
		return nil, "", nil, false
	}
	rel, ok := within(wd.root.real, abs)
	if !ok || rel == "." {
		return nil, "", nil, false
	}
	return wd.root, filepath.ToSlash(rel), wd.ign, true
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	pending := map[string]*pendingChange{}
	var order []string
	var timer *time.Timer
	var timerC <-chan time.Time
	var first time.Time
	maxDelay := 10 * w.opts.Debounce
	for {
		select {
		case <-w.done:
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			order = w.handle(ev, pending, order)
			if len(pending) == 0 {
				continue
			}
			wait := w.opts.Debounce
			if timerC == nil {
				first = time.Now()
				timer = time.NewTimer(wait)
				timerC = timer.C
			} else {
				timer.Reset(min(wait, max(0, maxDelay-time.Since(first))))
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.log.Warn("file watcher error", "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) && w.opts.OnListChanged != nil {
				w.opts.OnListChanged() // events were lost: clients should list again
			}
		case <-timerC:
			timerC = nil
			w.flush(pending, order)
			clear(pending)
			order = order[:0]
		}
	}
}

// handle merges one event into the pending set and keeps directory watches current.
func (w *Watcher) handle(ev fsnotify.Event, pending map[string]*pendingChange, order []string) []string {
	root, rel, ign, ok := w.locate(ev.Name)
	if !ok {
		return order
	}
	var kind ChangeKind
	switch {
	case ev.Has(fsnotify.Create):
		kind = ChangeCreated
	case ev.Has(fsnotify.Write):
		kind = ChangeModified
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		kind = ChangeRemoved
	default:
		return order // chmod: content unchanged
	}
	isDir := false
	if kind != ChangeRemoved {
		st, err := root.os.Lstat(filepath.FromSlash(rel))
		if err != nil {
			return order // already gone; its removal event follows
		}
		isDir = st.IsDir()
		if isOwnTempFile(path.Base(rel), st.Mode()) {
			return order // an atomic write's temporary file: hidden like in listings
		}
	} else {
		w.mu.Lock()
		_, isDir = w.watched[ev.Name]
		w.mu.Unlock()
		if !isDir && isOwnTempName(path.Base(rel)) {
			return order // (renamed into place or removed)
		}
	}
	if !w.opts.IncludeIgnored {
		if strings.HasPrefix(rel, ".git/") || rel == ".git" || strings.Contains(rel, "/.git/") || strings.HasSuffix(rel, "/.git") {
			return order
		}
		if ign.ignored(rel, isDir) {
			return order
		}
	}
	if isDir {
		switch kind {
		case ChangeCreated:
			w.addTree(root, rel, ign)
		case ChangeRemoved:
			w.forgetTree(ev.Name)
		}
	}
	if p, ok := pending[ev.Name]; ok {
		p.isDir = isDir
		p.kind = mergeKinds(p.kind, kind)
		if p.kind == "" {
			delete(pending, ev.Name)
		}
		return order
	}
	pending[ev.Name] = &pendingChange{root: root, rel: rel, kind: kind, isDir: isDir}
	return append(order, ev.Name)
}

// mergeKinds folds a new event into a pending one; "" means they cancel out.
func mergeKinds(prev, next ChangeKind) ChangeKind {
	switch {
	case prev == ChangeCreated && next == ChangeRemoved:
		return ""
	case prev == ChangeCreated:
		return ChangeCreated
	case prev == ChangeRemoved && next == ChangeCreated:
		return ChangeModified
	case next == ChangeRemoved:
		return ChangeRemoved
	}
	return ChangeModified
}

// forgetTree drops the watches of a removed or renamed directory and its subdirectories.
func (w *Watcher) forgetTree(abs string) {
	w.mu.Lock()
	var gone []string
	for p := range w.watched {
		if p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
			gone = append(gone, p)
			delete(w.watched, p)
		}
	}
	w.mu.Unlock()
	for _, p := range gone {
		w.fw.Remove(p) // may already be gone with the directory
	}
}

func (w *Watcher) flush(pending map[string]*pendingChange, order []string) {
	listChanged := false
	for _, key := range order {
		p, ok := pending[key]
		if !ok {
			continue
		}
		if p.kind != ChangeModified {
			listChanged = true
		}
		if w.opts.OnChange != nil {
			osRel := filepath.FromSlash(p.rel)
			w.opts.OnChange(Change{URI: FileURI(p.root, osRel), Path: p.root.Join(osRel), Kind: p.kind, Dir: p.isDir})
		}
	}
	if listChanged && w.opts.OnListChanged != nil {
		w.opts.OnListChanged()
	}
}
