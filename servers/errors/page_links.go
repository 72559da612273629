package errorserver

import (
	"html/template"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
)

// Links the page makes to things outside the web: an issue's MCP resource, and a
// frame's local file (as a file: URL, and as a vscode: URL that opens the file at the
// line in the editor most developers have; a browser will not follow a file: link
// from an http page, but copies it). html/template replaces any URL whose scheme is
// not http, https or mailto with "#ZgotmplZ" unless it is a template.URL, so these
// functions build the URLs themselves, from parts that cannot change the scheme: a
// fixed prefix and an escaped path. Nothing else on the page is trusted.

// resourceLink is the issue's errors://issues/{id} URI as a link, or "#" for an id
// with characters an issue id of the local store never has.
func resourceLink(uri string) template.URL {
	id, ok := strings.CutPrefix(uri, issueURIPrefix)
	if !ok || id == "" || strings.IndexFunc(id, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_')
	}) >= 0 {
		return "#"
	}
	return template.URL(issueURIPrefix + id)
}

// fileLink is file:///path for an absolute local path, or "#".
func fileLink(path string) template.URL {
	p, ok := slashPath(path)
	if !ok {
		return "#"
	}
	return template.URL((&url.URL{Scheme: "file", Path: p}).String())
}

// editorLink is vscode://file/path:line for an absolute local path, or "#".
func editorLink(path string, line int) template.URL {
	p, ok := slashPath(path)
	if !ok {
		return "#"
	}
	u := "vscode://file" + (&url.URL{Path: p}).EscapedPath()
	if line > 0 {
		u += ":" + strconv.Itoa(line)
	}
	return template.URL(u)
}

// slashPath is an absolute path in URL form (/C:/src/x.go on Windows).
func slashPath(path string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	p := filepath.ToSlash(filepath.Clean(path))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p, true
}
