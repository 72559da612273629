package mcpkit_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// schemaKeywords are the keywords a jsonschema:"…" struct tag may hold, each as
// key=value: the ones this repository's types use, all of them values no comma can
// be part of. A description is not among them: it goes in jsonschema_description.
var schemaKeywords = map[string]bool{
	"enum": true, "const": true, "default": true, "example": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// TestSchemaTags reads every Go file of the repository (all modules of go.work: mcpkit,
// the servers, the examples) and checks how struct fields describe their schema.
// invopop/jsonschema splits a jsonschema:"…" tag on commas, so a description written
// there as description=… is silently cut at its first comma and the rest becomes a
// bogus keyword. Descriptions are therefore written jsonschema_description:"…", which
// is taken whole, and jsonschema:"…" holds only keywords (key=value, or required).
// The old spelling (the jsonschema key, a quote, description=) must not appear in any
// Go file, comments and doc examples included, so nobody copies it.
func TestSchemaTags(t *testing.T) {
	root, whole := sourceRoot(t)
	banned := []byte("jsonschema:" + `"description=`)
	files, described := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files++
		for i, line := range bytes.Split(src, []byte("\n")) {
			if bytes.Contains(line, banned) {
				t.Errorf("%s:%d: %s; write the description as jsonschema_description:\"…\" (a comma cuts a description= short)", rel, i+1, banned)
			}
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			raw, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			if _, ok := reflect.StructTag(raw).Lookup("jsonschema_description"); ok {
				described++
			}
			tag, ok := reflect.StructTag(raw).Lookup("jsonschema")
			if !ok || tag == "-" { // "-" leaves the field out of the schema (postgres' database argument, added per server)
				return true
			}
			for _, part := range strings.Split(tag, ",") {
				key, value, isPair := strings.Cut(part, "=")
				if part == "required" || isPair && schemaKeywords[key] && value != "" {
					continue
				}
				t.Errorf("%s:%d: jsonschema tag part %q is not required or key=value with a keyword (enum, minimum, …); descriptions go in jsonschema_description",
					rel, fset.Position(field.Tag.Pos()).Line, part)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if whole && (files < 200 || described < 500) {
		t.Errorf("read %d Go files with %d described fields under %s; the walk missed the servers", files, described, root)
	}
}

// sourceRoot is the repository root (the directory of go.work) when the package sits
// in it, and whether it was found; otherwise the package's own directory.
func sourceRoot(t *testing.T) (string, bool) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return wd, false
		}
	}
}
