package event

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeID(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		ok   bool
	}{
		{"0123456789ABCDEF0123456789abcdef", 32, "0123456789abcdef0123456789abcdef", true},
		{"01234567-89ab-cdef-0123-456789abcdef", 32, "0123456789abcdef0123456789abcdef", true},
		{"0123456789abcdef", 16, "0123456789abcdef", true},
		{"0000000000000000", 16, "", false},
		{"0123456789abcdeg", 16, "", false},
		{"0123456789abcdef0", 16, "", false},
		{"", 16, "", false},
	} {
		if got, ok := NormalizeID(c.in, c.n); got != c.want || ok != c.ok {
			t.Errorf("NormalizeID(%q, %d) = %q, %v; want %q, %v", c.in, c.n, got, ok, c.want, c.ok)
		}
	}
}

func TestNormalizeLogLevel(t *testing.T) {
	for _, c := range []struct {
		level    string
		severity int
		want     string
	}{
		{"WARNING", 0, "warn"}, {"critical", 0, "fatal"}, {"", 17, "error"}, {"", 13, "warn"},
		{"", 5, "debug"}, {"", 1, "trace"}, {"", 0, "info"}, {"bogus", 21, "fatal"}, {"trace", 9, "trace"},
	} {
		if got := NormalizeLogLevel(c.level, c.severity); got != c.want {
			t.Errorf("NormalizeLogLevel(%q, %d) = %q; want %q", c.level, c.severity, got, c.want)
		}
	}
}

// TestBoundSpan: texts capped and redacted, attributes sorted, deduplicated, capped in
// number and redacted by key, and the code.* attributes read as a frame that a code
// mapping maps to a local file.
func TestBoundSpan(t *testing.T) {
	var attrs []Pair
	for i := range MaxAttributes + 10 {
		attrs = append(attrs, Pair{Key: "k" + string(rune('a'+i%26)) + strings.Repeat("x", i), Value: strings.Repeat("v", MaxAttributeValue+5)})
	}
	attrs = append(attrs,
		Pair{"code.filepath", "example.com/shop/checkout/rates.go"}, Pair{"code.function", "lookupRate"},
		Pair{"code.lineno", "42"}, Pair{"authorization", "Bearer abcdefgh1234"}, Pair{"code.lineno", "7"})
	s := &Span{Description: "GET /x?token=abc " + strings.Repeat("d", MaxSpanText), Attributes: attrs, Start: time.Unix(10, 0), End: time.Unix(9, 0)}
	BoundSpan(s)
	if strings.Contains(s.Description, "abc") || len(s.Description) > MaxSpanText {
		t.Errorf("description not redacted or capped: %d bytes", len(s.Description))
	}
	if len(s.Attributes) != MaxAttributes {
		t.Errorf("%d attributes, want %d", len(s.Attributes), MaxAttributes)
	}
	for i, a := range s.Attributes {
		if i > 0 && s.Attributes[i-1].Key >= a.Key || len(a.Value) > MaxAttributeValue {
			t.Fatalf("attributes not sorted, unique and capped at %d: %q", i, a.Key)
		}
	}
	if s.Attr("authorization") != Redacted {
		t.Errorf("authorization = %q", s.Attr("authorization"))
	}
	want := &Frame{Function: "lookupRate", Filename: "example.com/shop/checkout/rates.go", AbsPath: "example.com/shop/checkout/rates.go", Line: 42}
	if diff := cmp.Diff(want, s.Frame); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
	root := t.TempDir()
	c := NewCodeMap([]CodeMapping{{StackRoot: "example.com/shop/", SourceRoot: root}}, nil)
	if got := c.LocalPath(s.Frame); got != filepath.Join(root, "checkout", "rates.go") {
		t.Errorf("span frame maps to %q", got)
	}
	if s.Duration() != 0 {
		t.Errorf("a span that ends before it starts lasts %v, want 0", s.Duration())
	}
	if f := spanFrame([]Pair{{"code.file.path", "a.py"}, {"code.line.number", "-3"}}); f == nil || f.Filename != "a.py" || f.Line != 0 {
		t.Errorf("OpenTelemetry's current names: %+v", f)
	}
}

func TestBoundLog(t *testing.T) {
	l := &Log{Level: "", Severity: 18, Body: "login password=hunter2 ok", Template: strings.Repeat("t", MaxSpanText+1), Attributes: []Pair{{"api_key", "x"}, {"b", "y"}}}
	BoundLog(l)
	if l.Level != "error" || strings.Contains(l.Body, "hunter2") || len(l.Template) > MaxSpanText || l.Attr("api_key") != Redacted || l.Attr("b") != "y" {
		t.Errorf("bounded log: %+v", l)
	}
}
