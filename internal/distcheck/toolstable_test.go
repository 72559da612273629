package distcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goldenTools reads a golden tools/list snapshot: each tool's name and whether it is
// annotated read-only, in list order.
func goldenTools(t *testing.T, path string) (names []string, readOnly map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	readOnly = map[string]bool{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		readOnly[tool.Name] = tool.Annotations.ReadOnlyHint
	}
	return names, readOnly
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$|^[a-z]+$`)

// TestReadmeToolTables holds each server's README tools table (the table with a
// "tool" and a "read-only" column) to its golden tools/list with writes: every tool
// of the snapshot has a row, every tool named in the table is in it, and "yes" in the
// read-only column is a tool annotated readOnlyHint, "no" one that is not and that is
// missing from the read-only snapshot (it exists only with --allow-writes).
func TestReadmeToolTables(t *testing.T) {
	root := repoRoot(t)
	dirs, err := FindServers(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, sd := range dirs {
		t.Run(sd.Rel, func(t *testing.T) {
			golden := filepath.Join(sd.Dir, "testdata", "tools_writes.golden.json")
			readOnlyGolden := filepath.Join(sd.Dir, "testdata", "tools_readonly.golden.json")
			if _, err := os.Stat(golden); err != nil {
				// A server without write tools keeps one snapshot.
				golden = filepath.Join(sd.Dir, "testdata", "tools.golden.json")
				readOnlyGolden = golden
			}
			// A server whose toolsets are not all on by default (github) keeps a
			// snapshot of every toolset with writes: the table covers all of them.
			if every := filepath.Join(sd.Dir, "testdata", "toolsets", "all_writes.golden.json"); fileExists(every) {
				golden = every
			}
			all, readOnly := goldenTools(t, golden)
			withoutWrites, _ := goldenTools(t, readOnlyGolden)
			rel := sd.Rel + "/README.md"
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			tables := 0
			for _, tbl := range Tables(string(src)) {
				toolCol, roCol := slices.Index(tbl.Header, "tool"), slices.Index(tbl.Header, "read-only")
				if toolCol < 0 || roCol < 0 {
					continue
				}
				tables++
				for _, row := range tbl.Rows {
					if len(row.Cells) <= max(toolCol, roCol) {
						t.Errorf("%s:%d: the row has %d cells", rel, row.Line, len(row.Cells))
						continue
					}
					ro := strings.TrimSpace(row.Cells[roCol])
					for _, name := range CodeSpans(row.Cells[toolCol]) {
						if !toolName.MatchString(name) {
							continue
						}
						seen[name] = true
						hint, ok := readOnly[name]
						switch {
						case !ok:
							t.Errorf("%s:%d: %s is not a tool of %s (%s)", rel, row.Line, name, sd.Cmd, filepath.Base(golden))
						case strings.HasPrefix(ro, "yes") && !hint:
							t.Errorf("%s:%d: %s is said read-only, but is not annotated readOnlyHint", rel, row.Line, name)
						case strings.HasPrefix(ro, "no") && hint:
							t.Errorf("%s:%d: %s is said not read-only, but is annotated readOnlyHint", rel, row.Line, name)
						case strings.HasPrefix(ro, "no") && slices.Contains(withoutWrites, name):
							t.Errorf("%s:%d: %s is said to need --allow-writes, but is listed without it (%s)", rel, row.Line, name, filepath.Base(readOnlyGolden))
						case !strings.HasPrefix(ro, "yes") && !strings.HasPrefix(ro, "no"):
							t.Errorf("%s:%d: the read-only cell of %s is %q: want yes or no", rel, row.Line, name, ro)
						}
					}
				}
			}
			if tables == 0 {
				t.Fatalf("%s has no tools table (| tool | … | read-only |)", rel)
			}
			for _, name := range all {
				if !seen[name] {
					t.Errorf("%s: the tool %s (%s) has no row in the tools table", rel, name, filepath.Base(golden))
				}
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
