package filesystem

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// staleTemp is an own temporary file name as the writer makes it.
const staleTemp = ".notes.txt.tmp-0123456789ab"

// makeFile writes a file under dir with the given age (modification time that long ago).
func makeFile(t testing.TB, dir, rel string, age time.Duration) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("half a write needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setAge(t, p, age)
	return p
}

func setAge(t testing.TB, p string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestOwnTempNamePattern(t *testing.T) {
	for name, want := range map[string]bool{
		staleTemp:            true,
		"..tmp-0123456789ab": true, // a target named "..."
		"." + strings.Repeat("a", 64) + ".tmp-0123456789ab": true,
		"." + strings.Repeat("a", 65) + ".tmp-0123456789ab": false, // the writer keeps 64 bytes
		".notes.txt.tmp-0123456789a":                        false, // 11 digits
		".notes.txt.tmp-0123456789abc":                      false, // 13 digits
		".notes.txt.tmp-0123456789AB":                       false, // capitals
		".notes.txt.tmp-0123456789ag":                       false,
		"notes.txt.tmp-0123456789ab":                        false, // no leading dot
		"..notes.txt.tmp-0123456789ab":                      false, // the writer strips leading dots
		".notes.txt.tmp0123456789ab":                        false,
		".notes.txt-tmp-0123456789ab":                       false,
		".notes.txt.tmp-0123456789ab.bak":                   false,
		"":                                                  false,
		".tmp-0123456789ab":                                 false,
	} {
		if got := isOwnTempName(name); got != want {
			t.Errorf("isOwnTempName(%q) = %v; want %v", name, got, want)
		}
	}
}

// TestTempSiblingMatchesOwnPattern: every name the writer makes is recognized, so
// listings hide and the cleanup finds exactly the writer's files.
func TestTempSiblingMatchesOwnPattern(t *testing.T) {
	for _, rel := range []string{"a.txt", "dir/b", ".env", "...", "..x", strings.Repeat("é", 40), strings.Repeat("x", 200) + ".go", "sub/" + staleTemp} {
		tmp, err := tempSibling(filepath.FromSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(tmp) != filepath.Dir(filepath.FromSlash(rel)) {
			t.Errorf("tempSibling(%q) = %q: not a sibling", rel, tmp)
		}
		if !isOwnTempName(filepath.Base(tmp)) {
			t.Errorf("tempSibling(%q) = %q, which isOwnTempName does not recognize", rel, tmp)
		}
	}
}

// TestStaleTempCleanupRemovesOnlyOwnStaleFiles: a pass removes regular files of the
// exact pattern that are old enough, wherever they are in the tree, and nothing else:
// not a fresh one (a write in flight), not a look-alike name, not a directory or a
// symbolic link of the pattern, not what a link points to, nothing outside the root.
func TestStaleTempCleanupRemovesOnlyOwnStaleFiles(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	hour := time.Hour
	stale := []string{
		makeFile(t, dir, staleTemp, hour),
		makeFile(t, dir, "sub/deeper/.main.go.tmp-aaaaaaaaaaaa", hour),
		makeFile(t, dir, "build/.out.bin.tmp-bbbbbbbbbbbb", hour), // ignored by .gitignore: writes can go there
		makeFile(t, dir, ".git/.config.tmp-cccccccccccc", hour),
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := []string{
		makeFile(t, dir, ".fresh.txt.tmp-0123456789ab", 0),               // a write in flight
		makeFile(t, dir, "sub/.recent.tmp-dddddddddddd", StaleTempAge/2), // younger than the bound
		makeFile(t, dir, ".notes.txt.tmp-0123456789a", hour),             // 11 digits
		makeFile(t, dir, ".notes.txt.tmp-0123456789abc", hour),           // 13 digits
		makeFile(t, dir, ".notes.txt.tmp-0123456789AB", hour),
		makeFile(t, dir, "notes.txt.tmp-0123456789ab", hour),
		makeFile(t, dir, "..notes.txt.tmp-0123456789ab", hour),
		makeFile(t, dir, "target.txt", hour),
		makeFile(t, outside, staleTemp, hour),
		makeFile(t, outside, ".other.tmp-eeeeeeeeeeee", hour),
	}
	dirOfPattern := filepath.Join(dir, ".adir.tmp-ffffffffffff")
	if err := os.Mkdir(dirOfPattern, 0o755); err != nil {
		t.Fatal(err)
	}
	setAge(t, dirOfPattern, hour)
	kept = append(kept, dirOfPattern)
	for link, target := range map[string]string{
		".link.tmp-111111111111": "target.txt",                              // a link of the pattern, to a file inside
		".out.tmp-222222222222":  filepath.Join(outside, staleTemp),         // to a stale temp file outside
		"outlink":                outside,                                   // a directory outside with stale temp files
		".dead.tmp-333333333333": filepath.Join(outside, "nothing-is-here"), // dangling
	} {
		p := filepath.Join(dir, link)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p)
	}

	rs := openTestRoots(t, dir)
	rep := rs.removeStaleTemps(testCtx(t), TempCleanOptions{})
	for _, p := range stale {
		if exists(p) {
			t.Errorf("stale temporary file %s was kept", p)
		}
	}
	for _, p := range kept {
		if !exists(p) {
			t.Errorf("%s was removed; only stale temporary files of the exact pattern may be", p)
		}
	}
	if rep.removed != len(stale) || len(rep.young) != 2 || rep.cut {
		t.Errorf("report: removed %d, young %d, cut %v; want %d, 2, false", rep.removed, len(rep.young), rep.cut, len(stale))
	}

	// Bounded: a pass that may examine only one entry stops and says so.
	makeFile(t, dir, "z/"+staleTemp, hour)
	if rep := rs.removeStaleTemps(testCtx(t), TempCleanOptions{MaxEntries: 1}); !rep.cut || rep.visited > 2 {
		t.Errorf("MaxEntries=1: cut %v after %d entries; want a cut after at most 2", rep.cut, rep.visited)
	}
	if !exists(filepath.Join(dir, "z", staleTemp)) {
		t.Error("a pass cut at MaxEntries still reached z/")
	}
}

// TestTempCleanupRevisitsRecentFiles: a file of the pattern too recent at start is
// removed once it reaches the age bound, never before.
func TestTempCleanupRevisitsRecentFiles(t *testing.T) {
	dir := t.TempDir()
	const minAge = 1500 * time.Millisecond
	p := makeFile(t, dir, "sub/"+staleTemp, 0)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	due := st.ModTime().Add(minAge)
	rs := openTestRoots(t, dir)
	stop := StartTempCleanup(rs, TempCleanOptions{MinAge: minAge, Logger: slog.New(slog.DiscardHandler)})
	defer stop()
	deadline := time.Now().Add(minAge + 15*time.Second)
	for exists(p) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still there %v after it became stale", p, time.Since(due))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if now := time.Now(); now.Before(due) {
		t.Fatalf("removed %v before it was %v old", due.Sub(now), minAge)
	}
}

// TestOwnTempFilesHidden: list_directory, directory_tree, search_files,
// search_file_contents and resources/list never show a temporary file of the pattern,
// whatever its age; look-alikes (another digit count, a directory or a link of the
// pattern) are shown.
func TestOwnTempFilesHidden(t *testing.T) {
	dir := t.TempDir()
	makeFile(t, dir, staleTemp, time.Hour)
	makeFile(t, dir, "sub/.fresh.go.tmp-0123456789ab", 0)
	makeFile(t, dir, "sub/real.txt", 0)
	lookalike := makeFile(t, dir, ".notes.txt.tmp-0123456789a", 0)
	if err := os.Mkdir(filepath.Join(dir, ".adir.tmp-ffffffffffff"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/real.txt", filepath.Join(dir, ".link.tmp-111111111111")); err != nil {
		t.Fatal(err)
	}
	wantShown := []string{"sub/real.txt", filepath.Base(lookalike), ".adir.tmp-ffffffffffff", ".link.tmp-111111111111"}
	hidden := func(what string, names []string) {
		t.Helper()
		for _, n := range names {
			if isOwnTempName(filepath.Base(n)) && !strings.Contains(n, ".adir.") && !strings.Contains(n, ".link.") {
				t.Errorf("%s shows the temporary file %s", what, n)
			}
		}
	}
	rs := openTestRoots(t, dir)
	ctx := testCtx(t)

	ls, err := rs.ListDirectory(ctx, ListDirectoryInput{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ls.Entries {
		names = append(names, e.Name)
	}
	hidden("list_directory", names)
	if ls.Total != len(names) || len(names) != 4 { // .adir, .link, the look-alike and sub
		t.Errorf("list_directory: total %d, entries %q; want the 4 visible entries and sub", ls.Total, names)
	}

	tree, err := rs.DirectoryTree(ctx, DirectoryTreeInput{})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, e := range tree.Entries {
		names = append(names, e.Path)
	}
	hidden("directory_tree", names)
	for _, w := range wantShown {
		if !slices.Contains(names, w) {
			t.Errorf("directory_tree misses %s: %q", w, names)
		}
	}

	search, err := rs.SearchFiles(ctx, SearchFilesInput{Pattern: "*tmp*"})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, m := range search.Matches {
		names = append(names, m.Path)
	}
	hidden("search_files", names)
	if len(names) != 3 {
		t.Errorf("search_files *tmp* = %q; want the look-alike, the directory and the link", names)
	}

	grep, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "needle", Literal: true})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, m := range grep.Matches {
		names = append(names, m.Path)
	}
	hidden("search_file_contents", names)
	if len(names) != 2 {
		t.Errorf("search_file_contents = %q; want the look-alike and sub/real.txt", names)
	}

	page, err := rs.ListFileResources(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, r := range page.Resources {
		names = append(names, r.Name)
	}
	hidden("resources/list", names)
	if len(names) != 2 {
		t.Errorf("resources/list = %q; want the look-alike and sub/real.txt", names)
	}
}

// TestWatcherIgnoresOwnTempFiles: a temporary file appearing, growing or going away
// is not announced (its target's change is).
func TestWatcherIgnoresOwnTempFiles(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"sub/": ""})
	_, rec := startWatch(t, rs, WatchOptions{Debounce: 30 * time.Millisecond})
	root := rs.List()[0]
	tmp := filepath.Join(dir, "sub", staleTemp)
	if err := os.WriteFile(tmp, []byte("partial"), 0o644); err != nil { // as a killed writer leaves it
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // past the debounce: no merging with what follows
	if err := os.WriteFile(tmp, []byte("partial, more"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := os.Rename(tmp, filepath.Join(dir, "sub", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	seen := rec.waitChange(t, FileURI(root, filepath.Join("sub", "notes.txt")), "")
	for _, c := range seen {
		if isOwnTempName(filepath.Base(c.Path)) {
			t.Errorf("announced %s %s", c.Kind, c.Path)
		}
	}
}

// TestWriteRefusesOwnTempNames: write_file and move_file do not make a file that
// would pass for an interrupted write (hidden, and removed once old).
func TestWriteRefusesOwnTempNames(t *testing.T) {
	rs, dir := newTestRoot(t, map[string]string{"a.txt": "a"})
	ctx := testCtx(t)
	if _, err := rs.WriteFile(ctx, WriteFileInput{Path: staleTemp, Content: "x"}); err == nil || !strings.Contains(err.Error(), "temporary files") {
		t.Errorf("write_file %s: %v; want a refusal naming the pattern", staleTemp, err)
	}
	if _, err := rs.MoveFile(ctx, MoveFileInput{Source: "a.txt", Destination: staleTemp}); err == nil || !strings.Contains(err.Error(), "temporary files") {
		t.Errorf("move_file to %s: %v; want a refusal naming the pattern", staleTemp, err)
	}
	if exists(filepath.Join(dir, staleTemp)) || !exists(filepath.Join(dir, "a.txt")) {
		t.Error("a refused write changed the directory")
	}
	// A near miss is an ordinary name.
	if _, err := rs.WriteFile(ctx, WriteFileInput{Path: ".notes.txt.tmp-0123456789a", Content: "x"}); err != nil {
		t.Errorf("write_file of a look-alike name: %v", err)
	}
}

// TestKilledServerTempFilesHiddenAndRemoved kills (SIGKILL) the real server while it
// writes 3 MiB files, so it leaves its temporary files behind; a restarted server must
// not show them, a restart with --allow-writes removes the stale ones (and keeps a
// fresh one), and a read-only restart removes nothing.
func TestKilledServerTempFilesHiddenAndRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	bin := serverBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	content := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	var left []string
	for attempt := 0; attempt < 20 && len(left) < 2; attempt++ {
		// --no-confirm: replacing big.txt would ask the user first, and this client,
		// like an unattended agent's host, answers no elicitation.
		s, err := startStdio([]string{bin, "--allow-writes", "--no-confirm", "--watch=false", dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.initialize(); err != nil {
			t.Fatal(err)
		}
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call",
			"params": map[string]any{"name": "write_file", "arguments": map[string]any{"path": "big.txt", "content": content}}})
		go s.stdin.Write(append(msg, '\n'))
		// Kill as soon as the temporary file exists: mid-write.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Microsecond) {
			if len(ownTemps(t, dir)) > len(left) {
				break
			}
			if st, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil && st.Size() == int64(len(content)) {
				break // the write won the race
			}
		}
		s.cmd.Process.Kill()
		s.cmd.Wait()
		left = ownTemps(t, dir)
	}
	if len(left) < 2 {
		t.Fatalf("fewer than 2 temporary files left by 20 kills during writes (%q); cannot test the restart", left)
	}
	if got := readFile(t, filepath.Join(dir, "big.txt")); got != "old content" && got != content {
		t.Errorf("big.txt after kills is neither the old nor the new content (%d bytes)", len(got))
	}
	// All but one are from "an earlier crash"; the last is as fresh as a write in flight.
	for _, p := range left[1:] {
		setAge(t, filepath.Join(dir, p), time.Hour)
	}
	fresh := left[0]
	setAge(t, filepath.Join(dir, fresh), 0)

	restart := func(args ...string) *stdioServer {
		s, err := startStdio(append([]string{bin, "--watch=false"}, append(args, dir)...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.close)
		if err := s.initialize(); err != nil {
			t.Fatal(err)
		}
		for _, call := range []struct {
			method  string
			params  any
			wantBig bool
		}{
			{"tools/call", map[string]any{"name": "list_directory", "arguments": map[string]any{}}, true},
			{"tools/call", map[string]any{"name": "directory_tree", "arguments": map[string]any{}}, true},
			{"tools/call", map[string]any{"name": "search_files", "arguments": map[string]any{"pattern": "*tmp*"}}, false},
			{"resources/list", map[string]any{}, true},
		} {
			resp, err := s.call(call.method, call.params)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(resp), ".tmp-") || call.wantBig && !strings.Contains(string(resp), "big.txt") {
				t.Errorf("%s %v after the restart shows a temporary file or misses big.txt: %.400s", call.method, call.params, resp)
			}
		}
		return s
	}

	ro := restart()
	time.Sleep(500 * time.Millisecond)
	if got := ownTemps(t, dir); len(got) != len(left) {
		t.Errorf("a read-only server removed temporary files: %q left of %q", got, left)
	}
	ro.close()

	restart("--allow-writes")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := ownTemps(t, dir)
		if len(got) == 1 && got[0] == fresh {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a restart with --allow-writes: %q left; want only the fresh %s", got, fresh)
		}
	}
}

// ownTemps lists the temporary files of the pattern in dir.
func ownTemps(t testing.TB, dir string) []string {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if isOwnTempName(n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
