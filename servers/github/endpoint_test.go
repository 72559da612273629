package github

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHost(t *testing.T) {
	ghes := func(origin, host string) Endpoint {
		return Endpoint{Host: host, BaseURL: origin + "/api/v3/", UploadURL: origin + "/api/uploads/"}
	}
	tests := []struct {
		in      string
		want    Endpoint
		wantErr string
	}{
		{in: "", want: DefaultEndpoint},
		{in: "github.com", want: DefaultEndpoint},
		{in: "https://github.com/", want: DefaultEndpoint},
		{in: "api.github.com", want: DefaultEndpoint},
		{in: "octocorp.ghe.com", want: Endpoint{Host: "octocorp.ghe.com", BaseURL: "https://api.octocorp.ghe.com/", UploadURL: "https://uploads.octocorp.ghe.com/"}},
		{in: "https://api.octocorp.ghe.com", want: Endpoint{Host: "octocorp.ghe.com", BaseURL: "https://api.octocorp.ghe.com/", UploadURL: "https://uploads.octocorp.ghe.com/"}},
		{in: "github.example.com", want: ghes("https://github.example.com", "github.example.com")},
		{in: " https://github.example.com/ ", want: ghes("https://github.example.com", "github.example.com")},
		{in: "https://github.example.com/api/v3", want: ghes("https://github.example.com", "github.example.com")},
		{in: "github.example.com:8443", want: ghes("https://github.example.com:8443", "github.example.com:8443")},
		{in: "http://127.0.0.1:8080", want: ghes("http://127.0.0.1:8080", "127.0.0.1:8080")},
		{in: "http://localhost:9", want: ghes("http://localhost:9", "localhost:9")},
		{in: "http://[::1]:80", want: ghes("http://[::1]:80", "[::1]:80")},
		{in: "http://github.example.com", wantErr: "plain http, which is allowed only for loopback hosts"},
		{in: "http://10.0.0.1", wantErr: "plain http, which is allowed only for loopback hosts"},
		{in: "http://localhost.evil.example", wantErr: "plain http, which is allowed only for loopback hosts"},
		{in: "http://github.com", wantErr: "plain http"},
		{in: "ftp://github.example.com", wantErr: `has scheme "ftp"`},
		{in: "https://user:pw@github.example.com", wantErr: "must not carry credentials"},
		{in: "https://github.example.com/some/path", wantErr: "give the host only"},
		{in: "https://github.example.com/?x=1", wantErr: "must not have a query"},
		{in: "github example com", wantErr: "not"},
		{in: "ghe.com", wantErr: "not a GHE.com tenant"},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.in)
		if tt.wantErr != "" {
			if err == nil || !contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseHost(%q) = %+v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseHost(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseHost(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestTokenFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GITHUB_TOKEN": "a", "GITHUB_PERSONAL_ACCESS_TOKEN": "b"}, "a"},
		{map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": " b\n"}, "b"},
		{map[string]string{"GITHUB_TOKEN": "  "}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := TokenFromEnv(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("TokenFromEnv(%v) = %q; want %q", tt.env, got, tt.want)
		}
	}
}

func TestValidateNames(t *testing.T) {
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"owner ok", validateOwner("octo-cat_emu"), true},
		{"owner slash", validateOwner("a/b"), false},
		{"owner leading dash", validateOwner("-x"), false},
		{"repo dots ok", validateRepoName(".github"), true},
		{"repo dotdot", validateRepoName(".."), false},
		{"repo with slash", validateRepoName("x/../../y"), false},
		{"ref branch", validateRef("ref", "feature/search-v2"), true},
		{"ref sha", validateRef("ref", "6dcb09b5b57875f334f61aebed695e2e4193db5e"), true},
		{"ref traversal", validateRef("ref", "../../../other/repo"), false},
		{"ref percent escape", validateRef("ref", "%2e%2e/x"), false},
		{"ref fragment", validateRef("ref", "main#x"), false},
		{"ref query", validateRef("ref", "main?x=1"), false},
		{"ref control", validateRef("ref", "main\n"), false},
		{"ref reflog", validateRef("ref", "main@{1}"), false},
		{"ref lock", validateRef("ref", "main.lock"), false},
		{"ref hidden component", validateRef("ref", "a/.b"), false},
	}
	for _, tt := range tests {
		if (tt.err == nil) != tt.ok {
			t.Errorf("%s: err = %v; want ok=%v", tt.name, tt.err, tt.ok)
		}
	}
	paths := []struct {
		in, want string
		ok       bool
	}{
		{"src/main.go", "src/main.go", true},
		{"/src/dir/", "src/dir", true},
		{"", "", true},
		{"docs/my notes #1.md", "docs/my notes #1.md", true},
		{"a/../b", "", false},
		{"./a", "", false},
		{"a//b", "", false},
		{"a\\b", "", false},
		{"a\x00b", "", false},
		{"a\u202eb", "", false},
	}
	for _, p := range paths {
		got, err := validatePath(p.in)
		if (err == nil) != p.ok || got != p.want {
			t.Errorf("validatePath(%q) = %q, %v; want %q ok=%v", p.in, got, err, p.want, p.ok)
		}
	}
}
