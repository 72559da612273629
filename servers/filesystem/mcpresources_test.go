package filesystem

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

type resourcePage struct {
	Resources  []mcpkit.Resource `json:"resources"`
	NextCursor string            `json:"nextCursor"`
}

type readResult struct {
	Contents []struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     string  `json:"blob"`
	} `json:"contents"`
}

// TestResourcesListPaginates: every file under the root is listed exactly once across
// pages of file:// URIs, with sizes, and the cursor chain ends.
func TestResourcesListPaginates(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{".gitignore": "*.log\n", "skip.log": "ignored"}
	var want []string
	for i := range 230 {
		rel := fmt.Sprintf("d%d/f %03d.txt", i%3, i) // a space: URIs are percent-encoded
		files[rel] = strings.Repeat("x", i)
		want = append(want, "file://"+filepath.ToSlash(filepath.Join(dir, rel)))
	}
	want = append(want, "file://"+filepath.ToSlash(filepath.Join(dir, ".gitignore")))
	writeTree(t, dir, files)
	for _, rev := range revisions {
		c := mcpkittest.Connect(t, newServerOn(t, Config{}, dir), rev, nil)
		var got []string
		pages, cursor := 0, ""
		for {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			var page resourcePage
			if err := json.Unmarshal(c.Call("resources/list", params), &page); err != nil {
				t.Fatal(err)
			}
			pages++
			for _, r := range page.Resources {
				if !strings.HasPrefix(r.URI, "file:///") || r.Size == nil {
					t.Errorf("resource %+v: want a file:/// URI and a size", r)
				}
				got = append(got, unescapeURI(t, r.URI))
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
			if pages > 10 {
				t.Fatal("the cursor chain does not end")
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: resources listed (-want +got):\n%s", rev, d)
		}
		if pages < 3 {
			t.Errorf("%s: %d pages for 231 files; want paging at %d per page", rev, pages, DefaultResourcePage)
		}
		resp := c.Request("resources/list", map[string]any{"cursor": "L:bogus"})
		if resp.Error == nil || resp.Error.Code != mcpkit.CodeInvalidParams {
			t.Errorf("%s: a forged cursor answered %+v; want -32602", rev, resp.Error)
		}
	}
}

func unescapeURI(t *testing.T, uri string) string {
	t.Helper()
	p, err := pathFromFileURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(p)
}

// TestResourcesReadAndTemplate: the template is listed; reads return text with its
// MIME type, binary as a blob, and refuse what is missing or outside with the right
// error.
func TestResourcesReadAndTemplate(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		"root/doc.md":    "# Title\n",
		"root/data.json": `{"a":1}`,
		"outside.txt":    "secret",
	})
	root := filepath.Join(base, "root")
	writeTree(t, root, map[string]string{"img.png": string(pngBytes(t))})
	uri := func(p string) string { return pathURI(filepath.Join(root, p)) }
	for _, rev := range revisions {
		c := mcpkittest.Connect(t, newServerOn(t, Config{}, root), rev, nil)
		var tmpl struct {
			ResourceTemplates []mcpkit.ResourceTemplate `json:"resourceTemplates"`
		}
		if err := json.Unmarshal(c.Call("resources/templates/list", nil), &tmpl); err != nil {
			t.Fatal(err)
		}
		if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "file:///{+path}" {
			t.Errorf("%s: templates = %+v", rev, tmpl.ResourceTemplates)
		}
		for _, tc := range []struct {
			file, mime, text string
			blob             []byte
		}{
			{"doc.md", "text/markdown; charset=utf-8", "# Title\n", nil},
			{"data.json", "application/json", `{"a":1}`, nil},
			{"img.png", "image/png", "", pngBytes(t)},
		} {
			var rr readResult
			if err := json.Unmarshal(c.Call("resources/read", map[string]any{"uri": uri(tc.file)}), &rr); err != nil {
				t.Fatal(err)
			}
			if len(rr.Contents) != 1 {
				t.Fatalf("%s %s: %d contents", rev, tc.file, len(rr.Contents))
			}
			got := rr.Contents[0]
			if got.URI != uri(tc.file) || got.MIMEType != tc.mime {
				t.Errorf("%s %s: uri %s mime %q; want %s %q", rev, tc.file, got.URI, got.MIMEType, uri(tc.file), tc.mime)
			}
			if tc.blob != nil {
				if b, _ := base64.StdEncoding.DecodeString(got.Blob); string(b) != string(tc.blob) || got.Text != nil {
					t.Errorf("%s %s: want the bytes as a blob", rev, tc.file)
				}
			} else if got.Text == nil || *got.Text != tc.text {
				t.Errorf("%s %s: text %v; want %q", rev, tc.file, got.Text, tc.text)
			}
		}
		for _, tc := range []struct{ uri, want string }{
			{uri("missing.txt"), "resource not found"},
			{pathURI(filepath.Join(base, "outside.txt")), "outside the allowed directories"},
			{uri("../outside.txt"), "outside the allowed directories"},
			{uri("%2e%2e/outside.txt"), "outside the allowed directories"},
			{"file://evil.example.com" + filepath.ToSlash(filepath.Join(root, "doc.md")), "resource not found"}, // another host: the template does not match
		} {
			resp := c.Request("resources/read", map[string]any{"uri": tc.uri})
			if resp.Error == nil || !strings.Contains(resp.Error.Message, tc.want) {
				t.Errorf("%s: read %s: %+v; want an error containing %q", rev, tc.uri, resp.Error, tc.want)
			}
			if resp.Error != nil && strings.Contains(resp.Error.Message, "secret") {
				t.Errorf("%s: read %s leaked content: %s", rev, tc.uri, resp.Error.Message)
			}
		}
	}
}
