package event

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsSecretKey(t *testing.T) {
	secret := []string{
		"password", "Password", "user_password", "passwd", "secret", "client_secret", "token", "access_token",
		"X-Auth-Token", "api_key", "apiKey", "API-KEY", "x-api-key", "Authorization", "Proxy-Authorization",
		"cookie", "Set-Cookie", "session", "sessionid", "PHPSESSID_session", "csrf", "csrftoken", "X-CSRF-Token",
		"X-XSRF-TOKEN", "private_key", "privateKey", "dsn", "SENTRY_DSN", "auth", "basic_auth", "db_pass",
		"mysql_pwd", "aws_secret_access_key", "AccessKey", "credentials", "jwt", "signing_key",
	}
	plain := []string{"", "user", "username", "email", "author", "authority", "status", "url", "host", "keyboard",
		"monkey", "count", "environment", "release", "passenger", "compass", "path"}
	for _, k := range secret {
		if !IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = false, want true", k)
		}
	}
	for _, k := range plain {
		if IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = true, want false", k)
		}
	}
}

func TestRedactText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"login failed password=hunter2 for ann", "login failed password=[redacted] for ann"},
		{`{"user":"ann","password":"hunter2"}`, `{"user":"ann","password":"[redacted]"}`},
		{"GET /cb?code=1&access_token=abc123&state=x", "GET /cb?code=1&access_token=[redacted]&state=x"},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "Authorization: [redacted] [redacted]"},
		{"used bearer abcdefghijklmnop here", "used bearer [redacted] here"},
		{"connect postgres://app:s3cr3t@db:5432/shop failed", "connect postgres://app:[redacted]@db:5432/shop failed"},
		{"api_key: 'k-123'", "api_key: [redacted]"},
		{"SENTRY_DSN=https://abc@o1.ingest.sentry.io/2", "SENTRY_DSN=[redacted]"},
		{"nothing to see: count=3 user=ann", "nothing to see: count=3 user=ann"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactAnyRedactsNestedKeysAndPairs(t *testing.T) {
	in := map[string]any{
		"user":   "ann",
		"config": map[string]any{"db": map[string]any{"host": "db1", "password": "p"}, "api_key": []any{"a", "b"}},
		"headers": []any{
			[]any{"Authorization", "Bearer abcdefghijkl"},
			[]any{"Accept", "text/html"},
		},
		"note":  "token=xyz in text",
		"count": 3.0,
	}
	want := map[string]any{
		"user":   "ann",
		"config": map[string]any{"db": map[string]any{"host": "db1", "password": Redacted}, "api_key": Redacted},
		"headers": []any{
			[]any{"Authorization", Redacted},
			[]any{"Accept", "text/html"},
		},
		"note":  "token=[redacted] in text",
		"count": 3.0,
	}
	if diff := cmp.Diff(want, RedactAny("", in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := in["config"].(map[string]any)["db"].(map[string]any)["password"].(string); !ok || in["config"].(map[string]any)["db"].(map[string]any)["password"] != "p" {
		t.Error("redactAny modified its input")
	}
}

func TestRedactURLAndQuery(t *testing.T) {
	u, q := RedactURL("https://ann:pw@shop.example/pay?amount=5&card_token=tok_1&session_id=s#frag")
	if u != "https://ann@shop.example/pay" {
		t.Errorf("url = %q", u)
	}
	want := []Pair{{"amount", "5"}, {"card_token", Redacted}, {"session_id", Redacted}}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
}
