package upstream

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestNetworkErrorNamesTheProxy: behind a proxy that refuses CONNECT, or one that is
// not listening, the error names the proxy variable, not the upstream's setting (issue
// #25: it said "check SENTRY_URL").
func TestNetworkErrorNamesTheProxy(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden by policy", http.StatusForbidden)
	}))
	defer refusing.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	for name, proxy := range map[string]string{"refusing CONNECT": refusing.URL, "not listening": closed} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("HTTPS_PROXY", proxy)
			u, _ := url.Parse(proxy)
			c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
			_, err := c.Get("https://sentry.example.invalid/api/0/")
			if err == nil {
				t.Fatal("the request succeeded through a refusing proxy")
			}
			msg := NetworkError("Sentry", "SENTRY_URL (https://sentry.example.invalid)", err).Error()
			if !strings.Contains(msg, "check HTTPS_PROXY") || strings.Contains(msg, "check SENTRY_URL") {
				t.Errorf("message %q; want it to name HTTPS_PROXY as the thing to check, not SENTRY_URL", msg)
			}
		})
	}
}
