package sentryapi

import "testing"

// TestDetailSuffix: Sentry's detail, a string or JSON, is shown cleaned and short;
// JSON reads as every other JSON text the server shows (no \u003c for <).
func TestDetailSuffix(t *testing.T) {
	for body, want := range map[string]string{
		`{"detail": "Invalid \u202equery"}`:             ": Invalid query",
		`{"detail": {"code": "x", "message": "a < b"}}`: `: {"code":"x","message":"a < b"}`,
		`{"detail": null}`:                              "",
		`not json`:                                      "",
	} {
		if got := detailSuffix([]byte(body)); got != want {
			t.Errorf("detailSuffix(%s) = %q, want %q", body, got, want)
		}
	}
}
