package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestCopyFile (issue 30): files and trees are copied with their bytes and
// permissions, into a directory under their own name, across two allowed directories;
// links and special files in a tree are left out and named; what would replace or
// confuse something is refused and changes nothing.
func TestCopyFile(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt":          "alpha\n",
		"tree/x.txt":     "x\n",
		"tree/deep/y.go": "package y\n",
		"dest/":          "",
		"old.txt":        "old\n",
	})
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.txt", filepath.Join(dir, "tree/link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "tree/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := openTestRoots(t, dir, other)
	ctx := testCtx(t)

	out, err := rs.CopyFile(ctx, CopyFileInput{Source: "a.txt", Destination: "b.txt"})
	if err != nil || out.Bytes != 6 || out.Files != 1 || readFile(t, filepath.Join(dir, "b.txt")) != "alpha\n" {
		t.Fatalf("copy a.txt to b.txt: %+v, %v", out, err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "b.txt")); st.Mode().Perm() != 0o640 {
		t.Errorf("copy's permissions %v; want 0640 as the source", st.Mode().Perm())
	}
	if out, err := rs.CopyFile(ctx, CopyFileInput{Source: "a.txt", Destination: "dest"}); err != nil || out.Destination != filepath.Join(dir, "dest", "a.txt") {
		t.Errorf("copy into a directory: %+v, %v", out, err)
	}
	if out, err := rs.CopyFile(ctx, CopyFileInput{Source: "a.txt", Destination: filepath.Join(other, "a.txt")}); err != nil || readFile(t, filepath.Join(other, "a.txt")) != "alpha\n" {
		t.Errorf("copy to the other allowed directory: %+v, %v", out, err)
	}
	if _, err := rs.CopyFile(ctx, CopyFileInput{Source: "a.txt", Destination: "old.txt"}); err == nil || !strings.Contains(err.Error(), "already exists; pass overwrite=true") {
		t.Errorf("copy onto an existing file without overwrite: %v", err)
	}
	if out, err := rs.CopyFile(ctx, CopyFileInput{Source: "a.txt", Destination: "old.txt", Overwrite: true}); err != nil || !out.Replaced || readFile(t, filepath.Join(dir, "old.txt")) != "alpha\n" {
		t.Errorf("copy with overwrite: %+v, %v", out, err)
	}

	tree, err := rs.CopyFile(ctx, CopyFileInput{Source: "tree", Destination: filepath.Join(other, "tree2"), Recursive: true})
	if err != nil {
		t.Fatalf("copy tree: %v", err)
	}
	want := CopyFileOutput{Source: filepath.Join(dir, "tree"), Destination: filepath.Join(other, "tree2"), Files: 2, Directories: 2, Bytes: 12,
		Skipped: []string{"link", "pipe"}, SkippedCount: 2}
	if d := cmp.Diff(want, tree); d != "" {
		t.Errorf("copy tree (-want +got):\n%s", d)
	}
	if readFile(t, filepath.Join(other, "tree2/deep/y.go")) != "package y\n" {
		t.Error("the tree's file was not copied")
	}
	if _, err := os.Lstat(filepath.Join(other, "tree2/link")); !os.IsNotExist(err) {
		t.Errorf("a link was copied: %v", err)
	}

	for _, tc := range []struct {
		in   CopyFileInput
		want string
	}{
		{CopyFileInput{Source: "tree", Destination: "t3"}, "is a directory; set recursive"},
		{CopyFileInput{Source: "tree", Destination: "tree/deep/inner", Recursive: true}, "into itself"},
		{CopyFileInput{Source: "tree/link", Destination: "l2"}, "is a symbolic link; copy_file never follows links"},
		{CopyFileInput{Source: "tree/pipe", Destination: "p2"}, "not a regular file"},
		{CopyFileInput{Source: "a.txt", Destination: "a.txt"}, "source and destination are the same"},
		{CopyFileInput{Source: "a.txt", Destination: "tree/link", Overwrite: true}, "is a symbolic link; refusing to write through it"},
		{CopyFileInput{Source: "a.txt", Destination: "missing/x.txt"}, "create it first with create_directory"},
		{CopyFileInput{Source: "a.txt", Destination: "x.tmp/.y.tmp-0123456789ab"}, "name pattern of this server's temporary files"},
	} {
		if _, err := rs.CopyFile(ctx, tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CopyFile(%+v) error %v; want %q", tc.in, err, tc.want)
		}
	}
	// A tree onto an existing directory goes inside it under its own name; a second
	// time that path exists and the copy is refused.
	if _, err := rs.CopyFile(ctx, CopyFileInput{Source: "tree", Destination: filepath.Join(other, "tree2"), Recursive: true}); err != nil {
		t.Errorf("copy of a tree onto an existing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "tree2", "tree", "x.txt")); err != nil {
		t.Errorf("copy of a tree onto an existing directory: %v", err)
	}
	if _, err := rs.CopyFile(ctx, CopyFileInput{Source: "tree", Destination: filepath.Join(other, "tree2"), Recursive: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second copy of the tree into tree2: %v", err)
	}
}

// TestDeleteFileAndDirectory (issue 30): a file, a link (not what it points to), an
// empty directory, a full one only with recursive; an allowed directory, a directory
// holding one and a link given as a directory are refused.
func TestDeleteFileAndDirectory(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt":             "alpha\n",
		"target.txt":        "target\n",
		"empty/":            "",
		"full/x.txt":        "12345",
		"full/sub/y.txt":    "1234567890",
		"full/sub/.git/z":   "z",
		"holder/nested/ok":  "ok",
		"holder/nested/ok2": "ok",
	})
	if err := os.Symlink("target.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("full", filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	rs := openTestRoots(t, dir, filepath.Join(dir, "holder/nested"))
	ctx := testCtx(t)
	if out, err := rs.DeleteFile(ctx, DeleteFileInput{Path: "a.txt"}); err != nil || out.Size != 6 || out.Type != "file" {
		t.Errorf("delete a.txt: %+v, %v", out, err)
	}
	if out, err := rs.DeleteFile(ctx, DeleteFileInput{Path: "link"}); err != nil || out.Type != "symlink" || readFile(t, filepath.Join(dir, "target.txt")) != "target\n" {
		t.Errorf("delete link: %+v, %v", out, err)
	}
	if _, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "full"}); err == nil || !strings.Contains(err.Error(), "is not empty (3 files (16 bytes) and 2 directories); set recursive") {
		t.Errorf("delete a full directory without recursive: %v", err)
	}
	if out, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "empty"}); err != nil || out.Files+out.Directories != 0 {
		t.Errorf("delete empty: %+v, %v", out, err)
	}
	for _, tc := range []struct {
		run  func() error
		want string
	}{
		{func() error { _, err := rs.DeleteFile(ctx, DeleteFileInput{Path: "full"}); return err }, "is a directory; use delete_directory"},
		{func() error { _, err := rs.DeleteFile(ctx, DeleteFileInput{Path: dir}); return err }, "allowed directory itself"},
		{func() error { _, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "."}); return err }, "allowed directory itself"},
		{func() error {
			_, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "holder", Recursive: true})
			return err
		}, "holds the allowed directory"},
		{func() error {
			_, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "dirlink", Recursive: true})
			return err
		}, "is a symbolic link, not a directory"},
		{func() error { _, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "target.txt"}); return err }, "not a directory; use delete_file"},
		{func() error { _, err := rs.DeleteFile(ctx, DeleteFileInput{Path: "gone.txt"}); return err }, "no such file"},
	} {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v; want %q", err, tc.want)
		}
	}
	out, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "full", Recursive: true})
	want := DeleteDirectoryOutput{Path: filepath.Join(dir, "full"), Files: 3, Directories: 2, Bytes: 16}
	if d := cmp.Diff(want, out); err != nil || d != "" {
		t.Errorf("delete full recursively: %v (-want +got):\n%s", err, d)
	}
	if _, err := os.Lstat(filepath.Join(dir, "full")); !os.IsNotExist(err) {
		t.Errorf("full still exists: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "dirlink")); err != nil {
		t.Errorf("the link to full went too: %v", err)
	}
}

// TestCopyDeleteConfirmed (issue 30): through the tools, each destructive step asks
// first, showing what goes, and nothing changes until the user accepts: delete_file
// (size and first lines), delete_directory (counts, size, first entries) and
// copy_file onto an existing file (the file replaced). A copy to a free path destroys
// nothing and does not ask. A declined question and one answered after the thing
// changed change nothing.
func TestCopyDeleteConfirmed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a.txt": "alpha\nbeta\n", "b.txt": "old b\n", "c.txt": "c\n"}
	for i := range 12 {
		files[filepath.Join("tree", string(rune('a'+i))+".txt")] = "x"
	}
	files["tree/sub/deep.txt"] = "deep"
	writeTree(t, dir, files)
	c := mcpkittest.Connect(t, newServerOn(t, Config{AllowWrites: true}, dir), mcpkit.Revision20260728, &mcpkittest.Options{Capabilities: elicitCaps})

	if res := c.CallTool("copy_file", map[string]any{"source": "a.txt", "destination": "new.txt"}); res.ResultType != "complete" || res.IsError {
		t.Errorf("copy to a free path: %q %v %s; want done without asking", res.ResultType, res.IsError, res.Text())
	}

	args := map[string]any{"path": "a.txt"}
	state, msg := asked(t, c, "delete_file", args)
	containsAll(t, "delete_file's confirmation", msg, "Delete the file "+filepath.Join(dir, "a.txt")+"? This cannot be undone.", "It is 11 bytes, last modified ", "It begins:\nalpha\nbeta")
	if res := answered(t, c, "delete_file", args, state, map[string]any{"action": "decline"}); !res.IsError || readFile(t, filepath.Join(dir, "a.txt")) != "alpha\nbeta\n" {
		t.Errorf("declined delete: %s", res.Text())
	}
	state, _ = asked(t, c, "delete_file", args)
	if res := answered(t, c, "delete_file", args, state, acceptAnswer); res.IsError {
		t.Errorf("accepted delete: %s", res.Text())
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still exists: %v", err)
	}

	// Changed after the question: the answer is not taken.
	args = map[string]any{"path": "c.txt"}
	state, _ = asked(t, c, "delete_file", args)
	writeTree(t, dir, map[string]string{"c.txt": "changed meanwhile\n"})
	if res := answered(t, c, "delete_file", args, state, acceptAnswer); !res.IsError || readFile(t, filepath.Join(dir, "c.txt")) != "changed meanwhile\n" {
		t.Errorf("delete after a change: isError %v %s", res.IsError, res.Text())
	}

	args = map[string]any{"path": "tree", "recursive": true}
	state, msg = asked(t, c, "delete_directory", args)
	containsAll(t, "delete_directory's confirmation", msg, "Delete the directory "+filepath.Join(dir, "tree")+" and everything in it? This cannot be undone.",
		"It holds 13 files (16 bytes) and 1 directory.", "Its first 10 entries of 14:\na.txt\nb.txt\n", "[… and 4 more]")
	writeTree(t, dir, map[string]string{"tree/sub/late.txt": "late"})
	if res := answered(t, c, "delete_directory", args, state, acceptAnswer); !res.IsError {
		t.Errorf("delete_directory after a file was added: %s; want refused", res.Text())
	}
	state, _ = asked(t, c, "delete_directory", args)
	res := answered(t, c, "delete_directory", args, state, acceptAnswer)
	if out := structured[DeleteDirectoryOutput](t, "delete_directory", res); out.Files != 14 || out.Directories != 1 || out.Bytes != 20 {
		t.Errorf("delete_directory = %+v", out)
	}

	args = map[string]any{"source": "new.txt", "destination": "b.txt", "overwrite": true}
	state, msg = asked(t, c, "copy_file", args)
	containsAll(t, "copy_file's confirmation", msg, "Copy "+filepath.Join(dir, "new.txt")+" (11 bytes) to "+filepath.Join(dir, "b.txt")+", replacing the file that is there? Its content is lost.", "It begins:\nold b")
	if res := answered(t, c, "copy_file", args, state, acceptAnswer); res.IsError || readFile(t, filepath.Join(dir, "b.txt")) != "alpha\nbeta\n" {
		t.Errorf("accepted copy: %s", res.Text())
	}
}

// TestCopyDeleteRaces (issue 30): what is swapped in between a step's check and its
// action cannot lead a copy or a delete outside. The confirmation is the window: the
// file layer's confirmFunc here swaps a directory for a link to the outside while the
// "user" is asked, as another process could.
func TestCopyDeleteRaces(t *testing.T) {
	swapOut := func(fx *escapeFixture, rel string) func(string, ...string) error {
		return func(string, ...string) error {
			p := filepath.Join(fx.root, rel)
			if err := os.Rename(p, p+"-old"); err != nil {
				return err
			}
			return os.Symlink(fx.outside, p)
		}
	}
	for _, tc := range []struct {
		name string
		prep map[string]string
		run  func(rs *Roots, fx *escapeFixture) error
	}{
		{"delete_directory, a subdirectory swapped", map[string]string{"victim/sub/f.txt": "f", "victim/g.txt": "g"}, func(rs *Roots, fx *escapeFixture) error {
			_, err := rs.deleteDirectory(testCtx(t), DeleteDirectoryInput{Path: "victim", Recursive: true}, swapOut(fx, "victim/sub"))
			return err
		}},
		{"delete_directory, the directory swapped", map[string]string{"victim/sub/f.txt": "f"}, func(rs *Roots, fx *escapeFixture) error {
			_, err := rs.deleteDirectory(testCtx(t), DeleteDirectoryInput{Path: "victim", Recursive: true}, swapOut(fx, "victim"))
			return err
		}},
		{"delete_file, its directory swapped", map[string]string{"victim/secret.txt": "mine"}, func(rs *Roots, fx *escapeFixture) error {
			_, err := rs.deleteFile(testCtx(t), DeleteFileInput{Path: "victim/secret.txt"}, swapOut(fx, "victim"))
			return err
		}},
		{"copy_file over, its directory swapped", map[string]string{"victim/secret.txt": "mine"}, func(rs *Roots, fx *escapeFixture) error {
			_, err := rs.copyFile(testCtx(t), CopyFileInput{Source: "ok.txt", Destination: "victim/secret.txt", Overwrite: true}, swapOut(fx, "victim"))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newEscapeFixture(t)
			writeTree(t, fx.root, tc.prep)
			before := fx.snapshot(t)
			err := tc.run(openTestRoots(t, fx.root), fx)
			if err == nil {
				t.Error("succeeded after the swap")
			} else if len(fx.leaks(err.Error())) > 0 {
				t.Errorf("error leaked a sentinel: %v", err)
			}
			if d := cmp.Diff(before, fx.snapshot(t)); d != "" {
				t.Fatalf("the outside changed (-before +after):\n%s", d)
			}
		})
	}
	// A tree holding links out (to a file, a directory, absolute, a loop) deletes the
	// links, never what they point to.
	fx := newEscapeFixture(t)
	before := fx.snapshot(t)
	for name, target := range map[string]string{"f": "../../outside/secret.txt", "d": "../../outside", "a": fx.outside, "l": "l"} {
		writeTree(t, fx.root, map[string]string{"victim/": ""})
		if err := os.Symlink(target, filepath.Join(fx.root, "victim", name)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := openTestRoots(t, fx.root).DeleteDirectory(testCtx(t), DeleteDirectoryInput{Path: "victim", Recursive: true})
	if err != nil || out.Symlinks != 4 {
		t.Errorf("delete a tree of links: %+v, %v", out, err)
	}
	if d := cmp.Diff(before, fx.snapshot(t)); d != "" {
		t.Fatalf("deleting links changed the outside (-before +after):\n%s", d)
	}
}

// TestCopyDeleteHardLinks (issue 30): a hard link inside to a file outside is the same
// inode (reading it is allowed by design, TestEscapeHardLink). Copying from it copies
// its bytes into a new file; copying onto it replaces the directory entry, never the
// shared inode; deleting it, alone or in a tree, removes the link only.
func TestCopyDeleteHardLinks(t *testing.T) {
	fx := newEscapeFixture(t)
	target := filepath.Join(fx.outside, "hard-target.txt")
	if err := os.WriteFile(target, []byte("HARD original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(rel string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fx.root, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(target, filepath.Join(fx.root, rel)); err != nil {
			t.Skipf("hard links not supported here: %v", err)
		}
	}
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	link("hard.txt")
	if _, err := rs.CopyFile(ctx, CopyFileInput{Source: "hard.txt", Destination: "copy.txt"}); err != nil || readFile(t, filepath.Join(fx.root, "copy.txt")) != "HARD original\n" {
		t.Errorf("copy from a hard link: %v", err)
	}
	if _, err := rs.CopyFile(ctx, CopyFileInput{Source: "ok.txt", Destination: "hard.txt", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "HARD original\n" {
		t.Errorf("copy onto the hard link wrote through it: outside file is %q", got)
	}
	os.Remove(filepath.Join(fx.root, "hard.txt"))
	link("hard.txt")
	link("tree/hard2.txt")
	if _, err := rs.DeleteFile(ctx, DeleteFileInput{Path: "hard.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "tree", Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "HARD original\n" {
		t.Errorf("outside file after the deletes: %q", got)
	}
}

// TestCopyOnlyBetweenAllowedDirectories (issue 30): a copy crosses allowed directories
// only when both are allowed for the request: a server directory the client's roots
// left out is neither a source nor a destination.
func TestCopyOnlyBetweenAllowedDirectories(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, map[string]string{"f.txt": "a"})
	writeTree(t, b, map[string]string{"g.txt": "b"})
	narrowed, err := openTestRoots(t, a, b).Narrow([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	defer narrowed.Close()
	ctx := testCtx(t)
	for _, in := range []CopyFileInput{
		{Source: "f.txt", Destination: filepath.Join(b, "f.txt")},
		{Source: filepath.Join(b, "g.txt"), Destination: "g.txt"},
	} {
		if _, err := narrowed.CopyFile(ctx, in); err == nil || !strings.Contains(err.Error(), "outside the allowed directories") {
			t.Errorf("CopyFile(%+v) with only %s allowed: %v; want a refusal", in, a, err)
		}
	}
	if _, err := os.Stat(filepath.Join(b, "f.txt")); !os.IsNotExist(err) {
		t.Errorf("f.txt reached the directory that was not allowed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a, "g.txt")); !os.IsNotExist(err) {
		t.Errorf("g.txt was copied from the directory that was not allowed: %v", err)
	}
}
