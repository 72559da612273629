package filesystem

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// escapeFixture is a root with every kind of way out planted in it, next to an outside
// directory full of sentinels that must never be read, listed, stat'ed or written.
//
//	base/
//	  outside/secret.txt          SECRET-<rand>, 31337 bytes, mtime 2001-02-03
//	  outside/OUTSIDE-ENTRY-<rand>.txt
//	  outside/dir/inner.txt       SECRET-<rand>
//	  root-evil/secret.txt        sibling-prefix directory of root
//	  root/                       the allowed directory, with links out of it
//	  rootlink -> root            a root that is itself a symlink
type escapeFixture struct {
	base, root, outside, rootEvil, rootLink string
	secret, entry                           string
}

const sentinelSize = 31337

var sentinelTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

func newEscapeFixture(t testing.TB) *escapeFixture {
	t.Helper()
	var rnd [8]byte
	rand.Read(rnd[:])
	tag := hex.EncodeToString(rnd[:])
	base := t.TempDir()
	fx := &escapeFixture{
		base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside"),
		rootEvil: filepath.Join(base, "root-evil"), rootLink: filepath.Join(base, "rootlink"),
		secret: "SECRET-" + tag, entry: "OUTSIDE-ENTRY-" + tag,
	}
	secretBody := fx.secret + "\n" + strings.Repeat("#", sentinelSize-len(fx.secret)-1)
	writeTree(t, base, map[string]string{
		"outside/secret.txt":           secretBody,
		"outside/" + fx.entry + ".txt": fx.secret + "\n",
		"outside/dir/inner.txt":        fx.secret + "\n",
		"root-evil/secret.txt":         fx.secret + "\n",
		"root/ok.txt":                  "ok\n",
		"root/sub/ok2.txt":             "ok2\n",
		"root/swap/inside.txt":         "inside\n",
	})
	for _, p := range []string{"outside/secret.txt", "outside", "outside/dir", "outside/dir/inner.txt", "outside/" + fx.entry + ".txt", "root-evil", "root-evil/secret.txt"} {
		if err := os.Chtimes(filepath.Join(base, p), sentinelTime, sentinelTime); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"root/link-file":     "../outside/secret.txt",
		"root/link-abs":      filepath.Join(fx.outside, "secret.txt"),
		"root/link-dir":      "../outside",
		"root/link-dir-abs":  fx.outside,
		"root/chain1":        "chain2",
		"root/chain2":        "chain3",
		"root/chain3":        "../outside/secret.txt",
		"root/loop1":         "loop2",
		"root/loop2":         "loop1",
		"root/sub/link-up":   "../../outside",
		"root/sub/deep-link": "../sub/../../outside/secret.txt",
		"root/up-deep":       "sub/../../outside",
		"root/link-evil":     "../root-evil",
		"root/link-in":       "ok.txt",
		"rootlink":           "root",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	return fx
}

// snapshot records every entry outside the root: name, size, mode, mtime and a hash of
// the content.
func (fx *escapeFixture) snapshot(t testing.TB) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for _, dir := range []string{fx.outside, fx.rootEvil} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			sum := ""
			if st.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				h := sha256.Sum256(b)
				sum = hex.EncodeToString(h[:8])
			}
			snap[p] = fmt.Sprintf("%v %d %s %s", st.Mode(), st.Size(), st.ModTime().UTC().Format(time.RFC3339Nano), sum)
			return nil
		})
	}
	return snap
}

// leaks lists sentinels that appear in s.
func (fx *escapeFixture) leaks(s string) []string {
	var found []string
	for _, m := range []string{fx.secret, fx.entry, fmt.Sprintf(`"size":%d`, sentinelSize), "2001-02-03", "root:x:0:0"} {
		if strings.Contains(s, m) {
			found = append(found, m)
		}
	}
	return found
}

type escapeAttempt struct {
	name string
	path string
	kind string // escape, nul, literal (a harmless odd name), lexical (cleaned to a path inside), link (final component is a link out), loop
}

func (fx *escapeFixture) attempts() []escapeAttempt {
	return []escapeAttempt{
		{"dotdot file", "../outside/secret.txt", "escape"},
		{"dotdot chain to etc", "../../../../../../../../etc/passwd", "escape"},
		{"sub then dotdot", "sub/../../outside/secret.txt", "escape"},
		{"dot dotdot", "./../outside/secret.txt", "escape"},
		{"long a/.. chain", strings.Repeat("a/../", 30) + "../outside/secret.txt", "escape"},
		{"dotdot dir", "../outside", "escape"},
		{"bare dotdot", "..", "escape"},
		{"tilde dotdot", "~/../../outside/secret.txt", "escape"},
		{"sibling via dotdot", "../root-evil/secret.txt", "escape"},
		{"absolute etc passwd", "/etc/passwd", "escape"},
		{"absolute secret", filepath.Join(fx.outside, "secret.txt"), "escape"},
		{"absolute outside dir", fx.outside, "escape"},
		{"absolute root then dotdot", fx.root + "/../outside/secret.txt", "escape"},
		{"absolute parent of root", fx.root + "/..", "escape"},
		{"absolute base", fx.base, "escape"},
		{"sibling prefix file", fx.root + "-evil/secret.txt", "escape"},
		{"sibling prefix dir", fx.rootEvil, "escape"},
		{"double slash etc", "//etc/passwd", "escape"},
		{"absolute dotdot above slash", "/../../etc/passwd", "escape"},
		{"proc self root", "/proc/self/root/etc/passwd", "escape"},
		{"through dir link", "link-dir/secret.txt", "escape"},
		{"through absolute dir link", "link-dir-abs/secret.txt", "escape"},
		{"through dir link nested", "link-dir/dir/inner.txt", "escape"},
		{"through nested up link", "sub/link-up/secret.txt", "escape"},
		{"absolute through dir link", fx.root + "/link-dir/secret.txt", "escape"},
		{"through link to sibling", "link-evil/secret.txt", "escape"},
		{"backslashes", `..\outside\secret.txt`, "literal"},
		{"percent-encoded dots", "%2e%2e/outside/secret.txt", "literal"},
		{"percent-encoded slash", "..%2foutside%2fsecret.txt", "literal"},
		{"percent-encoded all", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "literal"},
		{"one dot leader", "\u2024\u2024/outside/secret.txt", "literal"},
		{"two dot leader", "\u2025/outside/secret.txt", "literal"},
		{"fullwidth solidus", "..\uff0foutside\uff0fsecret.txt", "literal"},
		{"fullwidth full stops", "\uff0e\uff0e/outside/secret.txt", "literal"},
		{"division slash", "..\u2215outside\u2215secret.txt", "literal"},
		{"file URI as a path", "file:///etc/passwd", "literal"},
		{"link then dotdot cleans lexically", "link-dir/../ok.txt", "lexical"},
		{"file link", "link-file", "link"},
		{"absolute file link", "link-abs", "link"},
		{"dir link", "link-dir", "link"},
		{"absolute dir link", "link-dir-abs", "link"},
		{"dir link trailing slash", "link-dir/", "link"},
		{"dot file link", "./link-file", "link"},
		{"link chain", "chain1", "link"},
		{"nested link up", "sub/link-up", "link"},
		{"link with dotdot inside", "sub/deep-link", "link"},
		{"link through sub and up", "up-deep", "link"},
		{"link to sibling", "link-evil", "link"},
		{"absolute file link", fx.root + "/link-file", "link"},
		{"symlink loop", "loop1", "loop"},
		{"through symlink loop", "loop1/x", "loop"},
		{"NUL then escape", "ok.txt\x00../../outside/secret.txt", "nul"},
		{"NUL only", "\x00", "nul"},
		{"absolute with NUL", fx.root + "/\x00/etc/passwd", "nul"},
	}
}

var whyByKind = map[string]*regexp.Regexp{
	"escape":  regexp.MustCompile(`outside the allowed directories|leads outside`),
	"nul":     regexp.MustCompile(`NUL byte`),
	"literal": regexp.MustCompile(`no such file or directory|does not exist`),
	"lexical": regexp.MustCompile(`not a directory|is not a directory|is a directory`),
	"link":    regexp.MustCompile(`leads outside|symbolic link`),
	"loop":    regexp.MustCompile(`symbolic link`),
}

// writeReasons are further honest refusals a write may give (the target is a link, a
// directory, or exists).
var writeReasons = regexp.MustCompile(`symbolic link|already exists|is a directory|not a directory|does not exist|no such file|oldText was not found|into itself|allowed directory itself|not empty|not a regular file`)

type escapeOp struct {
	name string
	run  func(ctx context.Context, rs *Roots, fx *escapeFixture, p string) (any, error)
	// okKinds are attempt kinds for which success is acceptable (it stays inside).
	okKinds map[string]bool
}

func kinds(k ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range k {
		m[s] = true
	}
	return m
}

// uriFor makes the file:// URI a client would send for an attempt.
func uriFor(fx *escapeFixture, p string) string {
	if !filepath.IsAbs(p) {
		p = fx.root + "/" + p
	}
	return pathToFileURI(p)
}

func readOps() []escapeOp {
	return []escapeOp{
		{"list_directory", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.ListDirectory(ctx, ListDirectoryInput{Path: p})
		}, kinds()},
		{"directory_tree", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.DirectoryTree(ctx, DirectoryTreeInput{Path: p, MaxDepth: 8, RespectGitignore: ptr(false)})
		}, kinds()},
		{"read_text_file", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.ReadTextFile(ctx, ReadTextFileInput{Path: p})
		}, kinds("lexical")},
		{"read_text_file tail", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.ReadTextFile(ctx, ReadTextFileInput{Path: p, Tail: 3})
		}, kinds("lexical")},
		{"read_media_file", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.ReadMediaFile(ctx, ReadMediaFileInput{Path: p})
		}, kinds("lexical")},
		{"read_multiple_files", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			out, err := rs.ReadMultipleFiles(ctx, ReadMultipleFilesInput{Paths: []string{p}})
			if err == nil && out.Files[0].Error != "" {
				err = errors.New(out.Files[0].Error)
			}
			return out, err
		}, kinds("lexical")},
		{"search_files", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.SearchFiles(ctx, SearchFilesInput{Path: p, Pattern: "*", RespectGitignore: ptr(false)})
		}, kinds()},
		{"search_file_contents", func(ctx context.Context, rs *Roots, fx *escapeFixture, p string) (any, error) {
			return rs.SearchFileContents(ctx, SearchFileContentsInput{Path: p, Pattern: "SECRET|root:", RespectGitignore: ptr(false)})
		}, kinds("lexical")},
		{"get_file_info", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.GetFileInfo(ctx, GetFileInfoInput{Path: p})
		}, kinds("lexical", "link", "loop")},
		{"read resource by URI", func(ctx context.Context, rs *Roots, fx *escapeFixture, p string) (any, error) {
			return rs.ReadFileResource(ctx, uriFor(fx, p))
		}, kinds("lexical")},
	}
}

func writeOps() []escapeOp {
	return []escapeOp{
		{"write_file", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.WriteFile(ctx, WriteFileInput{Path: p, Content: "PWNED"})
		}, kinds("literal", "lexical")},
		{"edit_file", func(ctx context.Context, rs *Roots, fx *escapeFixture, p string) (any, error) {
			return rs.EditFile(ctx, EditFileInput{Path: p, Edits: []Edit{{OldText: "SECRET", NewText: "PWNED"}, {OldText: "ok", NewText: "PWNED"}}, ReplaceAll: true})
		}, kinds("literal")},
		{"edit_file dry run", func(ctx context.Context, rs *Roots, fx *escapeFixture, p string) (any, error) {
			return rs.EditFile(ctx, EditFileInput{Path: p, DryRun: true, Edits: []Edit{{OldText: "#", NewText: "x"}}, ReplaceAll: true})
		}, kinds("literal")},
		{"create_directory", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.CreateDirectory(ctx, CreateDirectoryInput{Path: p + "/newdir"})
		}, kinds("literal")},
		// copy_file (issue 30), before the moves that replace links. A lexical path cleans
		// to ok.txt, and a literal one names what write_file or create_directory made
		// above, both inside: copying from or onto them is fine. A link is never
		// followed: copying from one or onto one is refused.
		{"copy_file from", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: p, Destination: "copied-here"})
		}, kinds("literal", "lexical")},
		{"copy_file from recursive", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: p, Destination: "copied-tree", Recursive: true})
		}, kinds("literal", "lexical")},
		{"copy_file onto", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "sub/ok2.txt", Destination: p, Overwrite: true})
		}, kinds("literal", "lexical")},
		{"copy_file tree onto", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "sub", Destination: p, Recursive: true})
		}, kinds("literal")},
		{"move_file from", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.MoveFile(ctx, MoveFileInput{Source: p, Destination: "moved-here"})
		}, kinds("literal", "lexical", "link", "loop")},
		{"move_file onto", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.MoveFile(ctx, MoveFileInput{Source: "sub/ok2.txt", Destination: p, Overwrite: true})
		}, kinds("literal", "lexical", "link", "loop")},
	}
}

// deleteOps are the deletes (issue 30), each run on a fixture of its own: deleting
// what an attempt names must never remove anything outside. A lexical path cleans to
// ok.txt, inside; deleting a link (or a loop's link) deletes the link itself.
func deleteOps() []escapeOp {
	return []escapeOp{
		{"delete_directory", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: p, Recursive: true})
		}, kinds()},
		{"delete_file", func(ctx context.Context, rs *Roots, _ *escapeFixture, p string) (any, error) {
			return rs.DeleteFile(ctx, DeleteFileInput{Path: p})
		}, kinds("lexical", "link", "loop")},
	}
}

// TestEscapeCorpus runs every attempt against every operation that takes a path. Read
// operations share one fixture; each write attempt gets a fresh one. For each: the
// sentinels never appear in a result or an error, the outside is unchanged (names,
// sizes, modes, times, contents), success happens only where it stays inside, and a
// refusal says why.
func TestEscapeCorpus(t *testing.T) {
	fx := newEscapeFixture(t)
	if n := len(fx.attempts()); n < 40 {
		t.Fatalf("corpus has %d attempts; want at least 40", n)
	}
	before := fx.snapshot(t)
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	for _, op := range readOps() {
		for _, a := range fx.attempts() {
			t.Run("read/"+op.name+"/"+a.name, func(t *testing.T) {
				checkAttempt(t, ctx, rs, fx, op, a)
			})
		}
	}
	if diff := cmp.Diff(before, fx.snapshot(t)); diff != "" {
		t.Fatalf("read operations changed the outside (-before +after):\n%s", diff)
	}
	// Each write attempt gets a fresh fixture shared by the write operations, run in
	// an order where earlier ones cannot hide a later one's escape (moves last).
	for i, a := range fx.attempts() {
		t.Run("write/"+a.name, func(t *testing.T) {
			wfx := newEscapeFixture(t)
			wbefore := wfx.snapshot(t)
			wrs := openTestRoots(t, wfx.root)
			attempt := wfx.attempts()[i] // the same attempt, with this fixture's paths
			for _, op := range writeOps() {
				t.Run(op.name, func(t *testing.T) {
					checkAttempt(t, ctx, wrs, wfx, op, attempt)
					if diff := cmp.Diff(wbefore, wfx.snapshot(t)); diff != "" {
						t.Fatalf("%s(%q) changed the outside (-before +after):\n%s", op.name, attempt.path, diff)
					}
				})
			}
			for _, op := range deleteOps() {
				t.Run(op.name, func(t *testing.T) {
					dfx := newEscapeFixture(t)
					dbefore := dfx.snapshot(t)
					checkAttempt(t, ctx, openTestRoots(t, dfx.root), dfx, op, dfx.attempts()[i])
					if diff := cmp.Diff(dbefore, dfx.snapshot(t)); diff != "" {
						t.Fatalf("%s(%q) changed the outside (-before +after):\n%s", op.name, attempt.path, diff)
					}
				})
			}
		})
	}
}

func checkAttempt(t *testing.T, ctx context.Context, rs *Roots, fx *escapeFixture, op escapeOp, a escapeAttempt) {
	t.Helper()
	out, err := op.run(ctx, rs, fx, a.path)
	js, _ := json.Marshal(out)
	if leaks := fx.leaks(string(js)); err == nil && len(leaks) > 0 {
		t.Fatalf("%s(%q) leaked %v in %.300s", op.name, a.path, leaks, js)
	}
	if err != nil {
		if leaks := fx.leaks(err.Error()); len(leaks) > 0 {
			t.Fatalf("%s(%q) error leaked %v: %v", op.name, a.path, leaks, err)
		}
		why := whyByKind[a.kind]
		isWrite := strings.Contains(op.name, "write") || strings.Contains(op.name, "edit") || strings.Contains(op.name, "move") || strings.Contains(op.name, "create") ||
			strings.Contains(op.name, "copy") || strings.Contains(op.name, "delete")
		if !why.MatchString(err.Error()) && !(isWrite && writeReasons.MatchString(err.Error())) {
			t.Fatalf("%s(%q) error %q does not say why (want %v)", op.name, a.path, err, why)
		}
		return
	}
	if !op.okKinds[a.kind] {
		t.Fatalf("%s(%q) succeeded for a %s attempt: %.300s", op.name, a.path, a.kind, js)
	}
	if fi, ok := out.(FileInfo); ok && fi.Type == "symlink" && fi.SymlinkResolves == "inside" && a.kind != "lexical" {
		t.Fatalf("get_file_info(%q) says the link resolves inside: %+v", a.path, fi)
	}
}

// TestEscapeWalksNeverFollowLinks walks the whole root with every walking operation
// and lists every resource page: links out are listed as links, never followed.
func TestEscapeWalksNeverFollowLinks(t *testing.T) {
	fx := newEscapeFixture(t)
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	var results []any
	tree, err := rs.DirectoryTree(ctx, DirectoryTreeInput{MaxDepth: 20, MaxEntries: MaxTreeEntries, RespectGitignore: ptr(false)})
	results = append(results, tree, err)
	search, err := rs.SearchFiles(ctx, SearchFilesInput{Pattern: "**", RespectGitignore: ptr(false)})
	results = append(results, search, err)
	grep, err := rs.SearchFileContents(ctx, SearchFileContentsInput{Pattern: "SECRET", RespectGitignore: ptr(false)})
	results = append(results, grep, err)
	page, err := rs.ListFileResources(ctx, "", MaxResourcePage)
	results = append(results, page, err)
	list, err := rs.ListDirectory(ctx, ListDirectoryInput{})
	results = append(results, list, err)
	for i := 0; i < len(results); i += 2 {
		if results[i+1] != nil && results[i+1].(error) != nil {
			t.Fatalf("walk %d: %v", i/2, results[i+1])
		}
		js, _ := json.Marshal(results[i])
		if leaks := fx.leaks(string(js)); len(leaks) > 0 {
			t.Errorf("walk %d leaked %v: %.300s", i/2, leaks, js)
		}
	}
	if len(grep.Matches) != 0 {
		t.Errorf("content search found the secret through a link: %+v", grep.Matches)
	}
	if len(tree.Entries) < 10 {
		t.Errorf("tree has %d entries; want the links listed", len(tree.Entries))
	}
}

// TestEscapeSwappedDirectory replaces a directory by a symlink to the outside after a
// first call succeeded: the next calls must refuse, reading nothing and writing nothing
// outside.
func TestEscapeSwappedDirectory(t *testing.T) {
	fx := newEscapeFixture(t)
	before := fx.snapshot(t)
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	if _, err := rs.ListDirectory(ctx, ListDirectoryInput{Path: "swap"}); err != nil {
		t.Fatalf("first call: %v", err)
	}
	if _, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "swap/inside.txt"}); err != nil {
		t.Fatalf("first read: %v", err)
	}
	swap := filepath.Join(fx.root, "swap")
	if err := os.Rename(swap, swap+"-old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.outside, swap); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() (any, error){
		"list": func() (any, error) { return rs.ListDirectory(ctx, ListDirectoryInput{Path: "swap"}) },
		"tree": func() (any, error) { return rs.DirectoryTree(ctx, DirectoryTreeInput{Path: "swap"}) },
		"read": func() (any, error) { return rs.ReadTextFile(ctx, ReadTextFileInput{Path: "swap/secret.txt"}) },
		"grep": func() (any, error) {
			return rs.SearchFileContents(ctx, SearchFileContentsInput{Path: "swap", Pattern: "SECRET"})
		},
		"search": func() (any, error) { return rs.SearchFiles(ctx, SearchFilesInput{Path: "swap", Pattern: "*"}) },
		"info":   func() (any, error) { return rs.GetFileInfo(ctx, GetFileInfoInput{Path: "swap/secret.txt"}) },
		"write":  func() (any, error) { return rs.WriteFile(ctx, WriteFileInput{Path: "swap/new.txt", Content: "PWNED"}) },
		"write over": func() (any, error) {
			return rs.WriteFile(ctx, WriteFileInput{Path: "swap/secret.txt", Content: "PWNED"})
		},
		"edit": func() (any, error) {
			return rs.EditFile(ctx, EditFileInput{Path: "swap/secret.txt", Edits: []Edit{{"SECRET", "PWNED"}}})
		},
		"mkdir": func() (any, error) { return rs.CreateDirectory(ctx, CreateDirectoryInput{Path: "swap/newdir"}) },
		"move in": func() (any, error) {
			return rs.MoveFile(ctx, MoveFileInput{Source: "ok.txt", Destination: "swap/ok.txt"})
		},
		"move out": func() (any, error) {
			return rs.MoveFile(ctx, MoveFileInput{Source: "swap/secret.txt", Destination: "stolen.txt"})
		},
		"copy in": func() (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "ok.txt", Destination: "swap/ok.txt"})
		},
		"copy over": func() (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "ok.txt", Destination: "swap/secret.txt", Overwrite: true})
		},
		"copy out": func() (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "swap/secret.txt", Destination: "stolen.txt"})
		},
		"copy tree out": func() (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "swap/dir", Destination: "stolen", Recursive: true})
		},
		"copy tree in": func() (any, error) {
			return rs.CopyFile(ctx, CopyFileInput{Source: "sub", Destination: "swap/sub", Recursive: true})
		},
		"delete file": func() (any, error) { return rs.DeleteFile(ctx, DeleteFileInput{Path: "swap/secret.txt"}) },
		"delete dir": func() (any, error) {
			return rs.DeleteDirectory(ctx, DeleteDirectoryInput{Path: "swap/dir", Recursive: true})
		},
	}
	for name, call := range calls {
		out, err := call()
		if err == nil {
			t.Errorf("%s after the swap succeeded: %+v", name, out)
			continue
		}
		if !strings.Contains(err.Error(), "leads outside") || len(fx.leaks(err.Error())) > 0 {
			t.Errorf("%s after the swap: error %q; want 'leads outside' and no sentinel", name, err)
		}
	}
	if diff := cmp.Diff(before, fx.snapshot(t)); diff != "" {
		t.Fatalf("the outside changed (-before +after):\n%s", diff)
	}
}

// TestEscapeRootReplacedAfterOpen moves the root directory away and puts a symlink to
// the outside in its place: the open root keeps pointing at the original directory.
func TestEscapeRootReplacedAfterOpen(t *testing.T) {
	fx := newEscapeFixture(t)
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	if err := os.Rename(fx.root, fx.root+"-moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.outside, fx.root); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "secret.txt"}); err == nil {
		t.Error("read secret.txt through a root replaced by a link to the outside")
	}
	got, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "ok.txt"})
	if err != nil || got.Content != "ok\n" {
		t.Errorf("ok.txt from the original directory: %q, %v", got.Content, err)
	}
	list, _ := rs.ListDirectory(ctx, ListDirectoryInput{})
	js, _ := json.Marshal(list)
	if leaks := fx.leaks(string(js)); len(leaks) > 0 {
		t.Errorf("listing leaked %v", leaks)
	}
}

// TestEscapeSymlinkedRoot opens the root through a symlink: both spellings of a path
// inside work, and escapes through either spelling are refused.
func TestEscapeSymlinkedRoot(t *testing.T) {
	fx := newEscapeFixture(t)
	rs := openTestRoots(t, fx.rootLink)
	ctx := testCtx(t)
	for _, p := range []string{fx.rootLink + "/ok.txt", fx.root + "/ok.txt", "ok.txt"} {
		got, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: p})
		if err != nil || got.Content != "ok\n" {
			t.Errorf("ReadTextFile(%q) = %q, %v", p, got.Content, err)
		}
	}
	for _, p := range []string{fx.rootLink + "/../outside/secret.txt", fx.root + "/../outside/secret.txt", fx.rootLink + "-evil/secret.txt", fx.rootLink + "/link-file", "../outside/secret.txt"} {
		_, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: p})
		if err == nil || !whyByKind["escape"].MatchString(err.Error()) {
			t.Errorf("ReadTextFile(%q) error = %v; want a refusal", p, err)
		}
	}
}

// TestEscapeHardLink documents the decision on hard links: a hard link inside a root to
// a file elsewhere is the same inode, so os.Root (and the kernel) cannot tell it from
// any other file in the root; reading it is allowed, and get_file_info reports
// hardLinks > 1. Writes never modify the shared inode: write_file and edit_file replace
// the directory entry by rename, which detaches the link and leaves the outside file as
// it was.
func TestEscapeHardLink(t *testing.T) {
	fx := newEscapeFixture(t)
	target := filepath.Join(fx.outside, "hard-target.txt")
	if err := os.WriteFile(target, []byte("HARD original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, filepath.Join(fx.root, "hard.txt")); err != nil {
		t.Skipf("hard links not supported here: %v", err)
	}
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	info, err := rs.GetFileInfo(ctx, GetFileInfoInput{Path: "hard.txt"})
	if err != nil || info.HardLinks != 2 {
		t.Errorf("hardLinks = %d, %v; want 2", info.HardLinks, err)
	}
	got, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: "hard.txt"})
	if err != nil || got.Content != "HARD original\n" {
		t.Errorf("read through the hard link: %q, %v (allowed by design)", got.Content, err)
	}
	if _, err := rs.EditFile(ctx, EditFileInput{Path: "hard.txt", Edits: []Edit{{"original", "edited"}}}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "HARD original\n" {
		t.Errorf("edit_file wrote through the hard link: outside file is %q", got)
	}
	if got := readFile(t, filepath.Join(fx.root, "hard.txt")); got != "HARD edited\n" {
		t.Errorf("inside file is %q", got)
	}
	if err := os.Remove(filepath.Join(fx.root, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, filepath.Join(fx.root, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.WriteFile(ctx, WriteFileInput{Path: "hard.txt", Content: "PWNED"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "HARD original\n" {
		t.Errorf("write_file wrote through the hard link: outside file is %q", got)
	}
}

// TestEscapeURIs covers the file:// forms a resource read may be given.
func TestEscapeURIs(t *testing.T) {
	fx := newEscapeFixture(t)
	rs := openTestRoots(t, fx.root)
	ctx := testCtx(t)
	bad := []string{
		"file://" + fx.outside + "/secret.txt",
		"file://" + fx.root + "/%2e%2e/outside/secret.txt",
		"file://" + fx.root + "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
		"file://" + fx.root + "/..%2foutside%2fsecret.txt",
		"file://" + fx.root + "/sub/%2e%2e/%2e%2e/outside/secret.txt",
		"file://evil.example" + fx.root + "/ok.txt",
		"file://" + fx.root + "/ok.txt%00",
		"file://" + fx.root + "-evil/secret.txt",
		"file://localhost" + fx.outside + "/secret.txt",
		"file:" + fx.root + "/../outside/secret.txt",
		"file://" + fx.root + "/link-file",
		"file://" + fx.root + "/link-dir/secret.txt",
		"http://" + fx.root + "/ok.txt",
		"file://" + fx.root + "/ok.txt?x=1",
		"%66ile://" + fx.root + "/ok.txt",
		"file:///etc/passwd",
	}
	for _, u := range bad {
		out, err := rs.ReadFileResource(ctx, u)
		if err == nil {
			t.Errorf("ReadFileResource(%q) succeeded: %+v", u, out)
			continue
		}
		if leaks := fx.leaks(err.Error()); len(leaks) > 0 {
			t.Errorf("ReadFileResource(%q) error leaked %v", u, leaks)
		}
	}
	got, err := rs.ReadFileResource(ctx, "file://"+fx.root+"/ok.txt")
	if err != nil || got.Text != "ok\n" {
		t.Errorf("legitimate URI: %+v, %v", got, err)
	}
}
