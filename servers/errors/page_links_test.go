package errorserver

import (
	"bytes"
	"html/template"
	"runtime"
	"testing"
)

// TestPageLinks: the page's links to an MCP resource and to a local file keep their
// scheme whatever the id or the path holds, and html/template still escapes them in
// the attribute: a frame's file name is attacker-controlled.
func TestPageLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("paths in the table are Unix paths")
	}
	tmpl := template.Must(template.New("t").Funcs(pageFuncs).Parse(
		`<a href="{{resourceLink .URI}}"></a><a href="{{fileLink .Path}}"></a><a href="{{editorLink .Path .Line}}"></a>`))
	for _, tc := range []struct {
		name, uri, path string
		line            int
		want            string
	}{
		{"plain", "errors://issues/3eb96437d22bf46b", "/src/shop/checkout/payment.go", 53,
			`<a href="errors://issues/3eb96437d22bf46b"></a><a href="file:///src/shop/checkout/payment.go"></a><a href="vscode://file/src/shop/checkout/payment.go:53"></a>`},
		{"space and percent", "errors://issues/abc", "/src/my shop/100%.go", 0,
			`<a href="errors://issues/abc"></a><a href="file:///src/my%20shop/100%25.go"></a><a href="vscode://file/src/my%20shop/100%25.go"></a>`},
		{"markup in the path", "errors://issues/abc", `/src/"><script>alert(1)</script>.go`, 1,
			`<a href="errors://issues/abc"></a><a href="file:///src/%22%3E%3Cscript%3Ealert%281%29%3C/script%3E.go"></a><a href="vscode://file/src/%22%3E%3Cscript%3Ealert%281%29%3C/script%3E.go:1"></a>`},
		{"dot dot is cleaned", "errors://issues/abc", "/src/shop/../../etc/passwd", 1,
			`<a href="errors://issues/abc"></a><a href="file:///etc/passwd"></a><a href="vscode://file/etc/passwd:1"></a>`},
		{"relative path and odd id: no link", `errors://issues/a"b`, "checkout/payment.go", 3,
			`<a href="#"></a><a href="#"></a><a href="#"></a>`},
		{"another scheme: no link", "javascript:alert(1)", "", 0,
			`<a href="#"></a><a href="#"></a><a href="#"></a>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			data := struct {
				URI, Path string
				Line      int
			}{tc.uri, tc.path, tc.line}
			if err := tmpl.Execute(&buf, data); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
