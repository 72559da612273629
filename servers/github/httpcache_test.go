package github

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepeatedReadIsServedFrom304(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	first, err := b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("second read differs from the first (-first +second):\n%s", d)
	}
	reqs := f.requests()
	type hit struct {
		Status        int
		SentValidator bool
	}
	var got []hit
	for _, r := range reqs {
		got = append(got, hit{r.Status, r.IfNoneMatch != ""})
	}
	want := []hit{{200, false}, {304, true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests the fake saw (-want +got):\n%s", d)
	}
	if s := b.CacheStats(); s.Revalidated != 1 || s.Entries != 1 {
		t.Errorf("cache stats = %+v; want 1 entry revalidated once", s)
	}
}

func TestRevalidatedPageKeepsItsLinkHeader(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{})
	ctx := context.Background()
	in := ListIssuesInput{Owner: "octo", Repo: "hello", PerPage: 2}
	first, err := b.ListIssues(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.ListIssues(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("(-first +second):\n%s", d)
	}
	if second.NextPage != 2 || f.requests()[1].Status != 304 {
		t.Errorf("nextPage %d after a 304 (status %d); want 2 from the cached Link header", second.NextPage, f.requests()[1].Status)
	}
}

func TestCacheEntriesAreSeparatePerToken(t *testing.T) {
	f := newFake(t)
	shared := NewHTTPCache(1 << 20)
	a := f.backend(BackendConfig{Cache: shared})
	o := f.backend(BackendConfig{Cache: shared, Token: otherToken})
	ctx := context.Background()
	for _, b := range []*Backend{a, o, a, o} {
		if _, err := b.GetRepository(ctx, RepoInput{Owner: "octo", Repo: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, fmt.Sprintf("%s %d", r.Auth[len("Bearer "):len("Bearer ")+8], r.Status))
	}
	want := []string{"ghp_TEST 200", "ghp_OTHE 200", "ghp_TEST 304", "ghp_OTHE 304"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// stubTransport answers every GET with a body of the requested size and an ETag, and
// 304 when the ETag comes back; it records the validators it received.
type stubTransport struct {
	validators []string
}

func (s *stubTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.validators = append(s.validators, req.Header.Get("If-None-Match"))
	etag := `"` + req.URL.Path + `"`
	h := http.Header{"Etag": {etag}}
	if req.Header.Get("If-None-Match") == etag {
		return &http.Response{StatusCode: 304, Header: h, Body: http.NoBody, Request: req}, nil
	}
	var size int
	fmt.Sscanf(req.URL.Query().Get("size"), "%d", &size)
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", size))), Request: req}, nil
}

func TestHTTPCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	stub := &stubTransport{}
	c := NewHTTPCache(10000) // one entry may use at most 2500 bytes
	client := &http.Client{Transport: c.Transport(stub)}
	get := func(path string, size int) string {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1/%s?size=%d", path, size))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if len(body) != size || resp.StatusCode != 200 {
			t.Fatalf("GET %s: status %d, %d bytes; want 200 and %d bytes", path, resp.StatusCode, len(body), size)
		}
		return resp.Header.Get(CacheHeader)
	}
	for _, p := range []string{"a", "b", "c"} {
		get(p, 2000) // about 2100 bytes each with key and headers
	}
	if got := get("a", 2000); got != "revalidated" { // a becomes most recent
		t.Errorf("a was not served from the cache")
	}
	get("d", 2000)
	get("e", 2000) // 5 entries > 10000 bytes: b (least recently used) goes
	if s := c.Stats(); s.Evicted != 1 || s.Bytes > 10000 {
		t.Errorf("stats = %+v; want 1 eviction and at most 10000 bytes", s)
	}
	stub.validators = nil
	get("b", 2000)
	get("a", 2000)
	if d := cmp.Diff([]string{"", `"/a"`}, stub.validators); d != "" {
		t.Errorf("validators sent after eviction (-want +got):\n%s", d)
	}
	// Too large for one entry: passed through whole, never stored.
	before := c.Stats().Stored
	get("huge", 3000)
	if c.Stats().Stored != before {
		t.Error("a response larger than the per-entry cap was stored")
	}
}
