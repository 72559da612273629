package filesystem

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// watchWait is generous: the tests wait for events to arrive, they never time them.
const watchWait = 15 * time.Second

type watchRecorder struct {
	changes chan Change
	lists   chan struct{}
}

func startWatch(t *testing.T, rs *Roots, opts WatchOptions) (*Watcher, *watchRecorder) {
	t.Helper()
	rec := &watchRecorder{changes: make(chan Change, 1024), lists: make(chan struct{}, 1024)}
	opts.OnChange = func(c Change) { rec.changes <- c }
	opts.OnListChanged = func() { rec.lists <- struct{}{} }
	opts.Logger = slog.New(slog.DiscardHandler)
	w, err := rs.Watch(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, rec
}

// waitChange collects changes until one matches uri and kind ("" for any kind),
// failing at the deadline.
// It returns everything seen up to and including the match.
func (r *watchRecorder) waitChange(t *testing.T, uri string, kind ChangeKind) []Change {
	t.Helper()
	var seen []Change
	deadline := time.After(watchWait)
	for {
		select {
		case c := <-r.changes:
			seen = append(seen, c)
			if c.URI == uri && (kind == "" || c.Kind == kind) {
				return seen
			}
		case <-deadline:
			t.Fatalf("no %s event for %s within %v; saw %+v", kind, uri, watchWait, seen)
		}
	}
}

func (r *watchRecorder) waitList(t *testing.T) {
	t.Helper()
	select {
	case <-r.lists:
	case <-time.After(watchWait):
		t.Fatalf("no list-changed signal within %v", watchWait)
	}
}

func (r *watchRecorder) drainLists() {
	for {
		select {
		case <-r.lists:
		default:
			return
		}
	}
}

func TestWatcherReportsChanges(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{".gitignore": "*.log\nbuild/\n", "build/": ""})
	w, rec := startWatch(t, rs, WatchOptions{Debounce: 30 * time.Millisecond})
	if got := w.Watches(); got != 1 {
		t.Errorf("watching %d directories; want 1 (build/ is ignored)", got)
	}
	root := rs.List()[0]
	uri := func(rel string) string { return FileURI(root, filepath.FromSlash(rel)) }
	file := filepath.Join(dir, "a.txt")

	if err := os.WriteFile(file, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec.waitChange(t, uri("a.txt"), ChangeCreated)
	rec.waitList(t)

	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" two")
	f.Close()
	rec.waitChange(t, uri("a.txt"), ChangeModified)

	rec.drainLists()
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	rec.waitChange(t, uri("a.txt"), ChangeRemoved)
	rec.waitList(t)

	// A new directory is watched as it appears.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if seen := rec.waitChange(t, uri("sub"), ChangeCreated); !seen[len(seen)-1].Dir {
		t.Errorf("the change for the new directory sub says Dir=false")
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if seen := rec.waitChange(t, uri("sub/b.txt"), ChangeCreated); seen[len(seen)-1].Dir {
		t.Errorf("the change for the new file sub/b.txt says Dir=true")
	}

	// Ignored files and directories are not reported: events arrive in order, so an
	// event for x.log or build/y.txt would come no later than the one for marker.txt.
	os.WriteFile(filepath.Join(dir, "x.log"), []byte("log"), 0o644)
	os.WriteFile(filepath.Join(dir, "build", "y.txt"), []byte("y"), 0o644)
	os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("m"), 0o644)
	for _, c := range rec.waitChange(t, uri("marker.txt"), ChangeCreated) {
		if c.URI == uri("x.log") || c.URI == uri("build/y.txt") {
			t.Errorf("ignored path reported: %+v", c)
		}
	}
}

// TestWatcherAtomicReplace: a save by rename shows as a change of the target (reported
// as created, since the rename creates a new directory entry), and the temporary file's
// create+remove cancel out within the debounce window.
func TestWatcherAtomicReplace(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"doc.txt": "v1"})
	_, rec := startWatch(t, rs, WatchOptions{Debounce: 200 * time.Millisecond})
	if _, err := rs.WriteFile(testCtx(t), WriteFileInput{Path: "doc.txt", Content: "v2"}); err != nil {
		t.Fatal(err)
	}
	root := rs.List()[0]
	seen := rec.waitChange(t, FileURI(root, "doc.txt"), "")
	for _, c := range seen {
		if filepath.Dir(c.Path) == dir && c.Path != filepath.Join(dir, "doc.txt") {
			t.Errorf("temporary file reported: %+v", c)
		}
	}
}

func TestWatcherLimit(t *testing.T) {
	rs, _ := newTestRoot(t, map[string]string{"a/": "", "b/": "", "c/": ""})
	w, _ := startWatch(t, rs, WatchOptions{MaxWatches: 2})
	if w.Watches() != 2 || !w.LimitReached() {
		t.Errorf("watches=%d limitReached=%v; want 2, true", w.Watches(), w.LimitReached())
	}
	w2, _ := startWatch(t, rs, WatchOptions{})
	if w2.Watches() != 4 || w2.LimitReached() {
		t.Errorf("watches=%d limitReached=%v; want 4, false", w2.Watches(), w2.LimitReached())
	}
}
