package mcpkit

import "testing"

func TestCleanFieldMarksTruncation(t *testing.T) {
	var tr Truncation
	if got := tr.CleanField("the body", "short\u202e", 100); got != "short" || tr.Truncated {
		t.Errorf("uncut field: %q, truncated=%v; want the text sanitized and nothing marked", got, tr.Truncated)
	}
	if got := tr.CleanField("the body", "héllo wörld", 2); got != "h" || !tr.Truncated || tr.Hint != "the body was cut at 2 bytes" {
		t.Errorf("cut field: %q, %+v; want a UTF-8-safe cut and a hint naming the field", got, tr)
	}
}
