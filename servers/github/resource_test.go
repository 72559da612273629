package github

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

func TestParseRepoURI(t *testing.T) {
	tests := []struct {
		uri  string
		want RepoFile
		err  string
	}{
		{uri: "repo://octo/hello/README.md", want: RepoFile{Owner: "octo", Repo: "hello", Path: "README.md"}},
		{uri: "repo://octo/hello/", want: RepoFile{Owner: "octo", Repo: "hello"}},
		{uri: "repo://octo/hello/src/main.go@v1.2.0", want: RepoFile{Owner: "octo", Repo: "hello", Path: "src/main.go", Ref: "v1.2.0"}},
		{uri: "repo://octo/hello/src/main.go@feature/x", want: RepoFile{Owner: "octo", Repo: "hello", Path: "src/main.go", Ref: "feature/x"}},
		{uri: "repo://octo/hello/@scope/pkg.json", want: RepoFile{Owner: "octo", Repo: "hello", Path: "@scope/pkg.json"}},
		{uri: "repo://octo/hello/node_modules/@types/x/index.d.ts", want: RepoFile{Owner: "octo", Repo: "hello", Path: "node_modules/@types/x/index.d.ts"}},
		{uri: "repo://octo/hello/node_modules/@types/x/index.d.ts@main", want: RepoFile{Owner: "octo", Repo: "hello", Path: "node_modules/@types/x/index.d.ts", Ref: "main"}},
		{uri: "repo://octo/hello/docs/user%40host.md", want: RepoFile{Owner: "octo", Repo: "hello", Path: "docs/user@host.md"}},
		{uri: "repo://octo/hello/my%20notes.md@release%401", want: RepoFile{Owner: "octo", Repo: "hello", Path: "my notes.md", Ref: "release@1"}},
		{uri: "repo://octo/hello/a.md@", err: "ends with '@' but names no ref"},
		{uri: "repo://octo/hello/a.md?ref=main", err: "has a query or fragment"},
		{uri: "repo://octo/hello", err: "has no path part"},
		{uri: "file:///etc/passwd", err: "does not start with repo://"},
		{uri: "repo://octo/hello/../secret/x", err: `has a ".." segment`},
		{uri: "repo://octo/hello/%2e%2e/x", err: `has a ".." segment`},
		{uri: "repo://octo/hel%2Flo/x", err: "is not a GitHub repository name"},
		{uri: "repo://octo/hello/x@a..b", err: "is not a valid git ref"},
		{uri: "repo://octo/hello/x%zz", err: "bad percent-escape"},
	}
	for _, tt := range tests {
		got, err := ParseRepoURI(tt.uri)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRepoURI(%q) err = %v; want it to contain %q", tt.uri, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRepoURI(%q): %v", tt.uri, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseRepoURI(%q) (-want +got):\n%s", tt.uri, d)
		}
	}
}

func TestFileResource(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{}, Config{}), "2026-07-28")

	var tl struct {
		ResourceTemplates []mcpkit.ResourceTemplate `json:"resourceTemplates"`
	}
	if err := json.Unmarshal(c.Call("resources/templates/list", nil), &tl); err != nil {
		t.Fatal(err)
	}
	if len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "repo://{owner}/{repo}/{+path}" {
		t.Errorf("resource templates = %+v", tl.ResourceTemplates)
	}

	type contents struct {
		URI      string         `json:"uri"`
		MIMEType string         `json:"mimeType"`
		Text     string         `json:"text"`
		Meta     map[string]any `json:"_meta,omitempty"`
	}
	read := func(uri string) ([]contents, *mcpkit.Error) {
		res := c.Request("resources/read", map[string]any{"uri": uri})
		if res.Error != nil {
			return nil, res.Error
		}
		var r struct {
			Contents []contents `json:"contents"`
		}
		if err := json.Unmarshal(res.Result, &r); err != nil {
			t.Fatal(err)
		}
		return r.Contents, nil
	}

	got, rerr := read("repo://octo/hello/README.md@v1.0")
	if rerr != nil {
		t.Fatal(rerr)
	}
	if d := cmp.Diff([]contents{{URI: "repo://octo/hello/README.md@v1.0", MIMEType: "text/markdown", Text: readme}}, got); d != "" {
		t.Errorf("README.md@v1.0 (-want +got):\n%s", d)
	}
	var sawRef bool
	for _, r := range f.requests() {
		sawRef = sawRef || r.Path == "/api/v3/repos/octo/hello/contents/README.md" && r.Query == "ref=v1.0"
	}
	if !sawRef {
		t.Errorf("the @v1.0 ref did not reach GitHub as ?ref=v1.0: %+v", f.requests())
	}

	got, rerr = read("repo://octo/hello/")
	if rerr != nil {
		t.Fatal(rerr)
	}
	if d := cmp.Diff([]contents{{URI: "repo://octo/hello/", MIMEType: "text/plain", Text: "README.md\ncmd/\ngo.mod\n"}}, got); d != "" {
		t.Errorf("root directory (-want +got):\n%s", d)
	}

	serveFile(f, "big.txt", textOfSize(1<<20))
	got, rerr = read("repo://octo/hello/big.txt")
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(got) != 1 || len(got[0].Text) > MaxFileBytes || got[0].Meta["truncated"] != true || !strings.Contains(got[0].Meta["hint"].(string), "startLine=") {
		t.Errorf("1 MB file as a resource: %d bytes, _meta %v; want at most %d bytes and a truncation note", len(got[0].Text), got[0].Meta, MaxFileBytes)
	}

	f.override("GET /api/v3/repos/octo/hello/contents/missing.txt", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/contents"})
	})
	for uri, want := range map[string]string{
		"repo://octo/hello/missing.txt": "resource not found: repo://octo/hello/missing.txt",
		"repo://octo/hello/../x":        `has a ".." segment`,
	} {
		_, rerr := read(uri)
		if rerr == nil || !strings.Contains(rerr.Message, want) {
			t.Errorf("resources/read %s: error %+v; want it to contain %q", uri, rerr, want)
		}
	}
}

func TestReviewPrompt(t *testing.T) {
	f := newFake(t)
	c := connect(t, newServer(t, f, BackendConfig{}, Config{}), "2026-07-28")
	var res struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string         `json:"role"`
			Content mcpkit.Content `json:"content"`
		} `json:"messages"`
	}
	raw := c.Call("prompts/get", map[string]any{"name": "review_pull_request", "arguments": map[string]string{"owner": "octo", "repo": "hello", "number": "4"}})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("messages = %+v; want one user message", res.Messages)
	}
	text := res.Messages[0].Content.Text
	for _, want := range []string{"Review pull request octo/hello#4.", `get_pull_request (owner "octo", repo "hello", number 4)`, "get_pull_request_diff", "untrusted data"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt text lacks %q:\n%s", want, text)
		}
	}
	if len(f.requests()) != 0 {
		t.Errorf("building the prompt sent %d requests to GitHub; want 0", len(f.requests()))
	}
	for _, args := range []map[string]string{
		{"owner": "octo", "repo": "hello", "number": "four"},
		{"owner": "octo", "repo": "hello", "number": "0"},
		{"owner": "octo", "repo": "a/b", "number": "4"},
	} {
		r := c.Request("prompts/get", map[string]any{"name": "review_pull_request", "arguments": args})
		if r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
			t.Errorf("prompts/get %v: %s; want invalid params", args, r.Raw)
		}
	}
}
