package github

import (
	"bytes"
	"container/list"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpkit/reference/pkg/mcpkit/upstream"
)

// DefaultCacheBytes bounds the conditional-request cache when Config.Cache is nil.
const DefaultCacheBytes = 32 << 20

// CacheHeader is set on responses served from the cache after a 304 revalidation,
// so logs and tests can tell a revalidated answer from a fresh one.
const CacheHeader = "X-Mcpkit-Cache"

// HTTPCache remembers GET responses that carry an ETag or Last-Modified validator and
// revalidates them with If-None-Match / If-Modified-Since. GitHub answers an unchanged
// resource with 304 Not Modified, which does not count against the rate limit, so
// repeated reads cost nothing but a round trip. It never serves an entry without
// asking GitHub first, so it cannot return stale data. It keeps only answers that
// decoded completely (JSON that parses, a diff that does not end mid-line, a body read
// to its end): a broken 200 is never stored, evicts what was cached for its key, and
// is asked for once more without validators before it is reported.
//
// Entries are keyed by URL, Accept header and an HMAC of the Authorization header
// under a per-process random key: two tokens never share an entry (what one token may
// read another may not), and the key holds no token. Memory is bounded by bytes,
// evicting the least recently used entry first. One HTTPCache may back several
// clients; it is safe for concurrent use.
type HTTPCache struct {
	maxBytes int64
	maxEntry int64
	idKey    []byte

	mu    sync.Mutex
	size  int64
	lru   *list.List // front = most recently used; values are *cacheEntry
	items map[string]*list.Element
	stats CacheStats
}

// CacheStats counts what the cache did, for logs and tests.
type CacheStats struct {
	Entries     int   // entries held now
	Bytes       int64 // bytes held now
	Stored      int64 // responses stored
	Revalidated int64 // 304s answered from the cache
	Evicted     int64 // entries dropped to stay within the bound
	Refetched   int64 // answers asked for again because they did not decode
}

type cacheEntry struct {
	key    string
	status int
	header http.Header
	body   []byte
	size   int64
}

// NewHTTPCache makes a cache holding at most maxBytes of responses (headers and
// bodies). One entry may use at most a quarter of that, so one huge file cannot flush
// everything else. maxBytes <= 0 means DefaultCacheBytes.
func NewHTTPCache(maxBytes int64) *HTTPCache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("crypto/rand failed: " + err.Error()) // documented never to fail
	}
	return &HTTPCache{
		maxBytes: maxBytes,
		maxEntry: maxBytes / 4,
		idKey:    key,
		lru:      list.New(),
		items:    map[string]*list.Element{},
	}
}

// Stats returns a snapshot of the counters.
func (c *HTTPCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = c.lru.Len()
	s.Bytes = c.size
	return s
}

// Transport wraps next with conditional requests through this cache.
func (c *HTTPCache) Transport(next http.RoundTripper) http.RoundTripper {
	return &cachingTransport{cache: c, next: next}
}

type cachingTransport struct {
	cache *HTTPCache
	next  http.RoundTripper
}

func (t *cachingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" ||
		req.Header.Get("If-None-Match") != "" || req.Header.Get("If-Modified-Since") != "" {
		return t.next.RoundTrip(req)
	}
	key := t.cache.key(req)
	cached := t.cache.get(key) // kept even if evicted meanwhile: its body is immutable
	send := req
	if cached != nil {
		send = req.Clone(req.Context())
		if etag := cached.header.Get("ETag"); etag != "" {
			send.Header.Set("If-None-Match", etag)
		}
		if lm := cached.header.Get("Last-Modified"); lm != "" {
			send.Header.Set("If-Modified-Since", lm)
		}
	}
	resp, err := t.next.RoundTrip(send)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		resp.Body.Close()
		t.cache.touch(key)
		return cached.response(send, resp.Header), nil
	}
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	resp, bad, err := t.cache.admit(key, req, resp)
	if bad == nil || err != nil {
		return resp, err
	}
	// The answer is complete on the wire but does not decode: whatever was cached for
	// this key is gone (admit evicted it); ask once more, without validators.
	t.cache.countRefetch()
	resp, err = t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	resp, bad, err = t.cache.admit(key, req, resp)
	if bad != nil {
		bad.Attempts = 2
		return nil, bad
	}
	return resp, err
}

// key is URL + Accept + an HMAC of the credentials: never the credentials themselves.
func (c *HTTPCache) key(req *http.Request) string {
	mac := hmac.New(sha256.New, c.idKey)
	mac.Write([]byte(req.Header.Get("Authorization")))
	id := hex.EncodeToString(mac.Sum(nil)[:16])
	return req.URL.String() + "\x00" + req.Header.Get("Accept") + "\x00" + id
}

func cacheable(h http.Header) bool {
	if h.Get("ETag") == "" && h.Get("Last-Modified") == "" {
		return false
	}
	return !strings.Contains(strings.ToLower(h.Get("Cache-Control")), "no-store")
}

func (c *HTTPCache) get(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		return el.Value.(*cacheEntry)
	}
	return nil
}

func (c *HTTPCache) touch(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Revalidated++
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
	}
}

// admit reads a 200's body (at most maxEntry+1 bytes into memory) and checks that it
// is complete: JSON that parses, a diff that does not end mid-line. A complete body is
// stored when the response carries a validator, and the response returned replays it.
// An incomplete one is never stored, the key's old entry is evicted, and bad says what
// was wrong (the response is then closed and nil). A read error (a body cut short on
// the wire) evicts too and is returned as is: the retry policy above decides. A body
// longer than one entry may be is passed through unread and unchecked.
func (c *HTTPCache) admit(key string, req *http.Request, resp *http.Response) (_ *http.Response, bad *upstream.Error, _ error) {
	if resp.ContentLength > c.maxEntry {
		c.evict(key)
		return resp, nil, nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, c.maxEntry+1))
	if err != nil {
		resp.Body.Close()
		c.evict(key)
		return nil, nil, &upstream.BodyError{Status: resp.StatusCode, Read: len(buf), Err: err}
	}
	if int64(len(buf)) > c.maxEntry {
		c.evict(key)
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
		return resp, nil, nil
	}
	resp.Body.Close()
	if problem, detail := incomplete(req, resp.Header, buf); problem != "" {
		c.evict(key)
		return nil, &upstream.Error{Upstream: "GitHub", Status: resp.StatusCode, Problem: problem, Detail: detail,
			Next: "nothing was cached; try again in a minute; if it keeps happening, a proxy between this server and GitHub may be altering answers (check HTTPS_PROXY)"}, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(buf))
	if !cacheable(resp.Header) {
		c.evict(key)
		return resp, nil, nil
	}
	c.store(key, resp, buf)
	return resp, nil, nil
}

// incomplete says why body does not decode as what was asked for (problem, detail),
// or "" when it does. Raw file bytes are taken as they come; a diff or patch must end
// with a newline (git ends every line of one, so a diff ending mid-line was cut), and
// a diff's hunks must hold the lines their headers declare (diffCut);
// JSON must parse.
func incomplete(req *http.Request, h http.Header, body []byte) (problem, detail string) {
	accept := strings.ToLower(req.Header.Get("Accept"))
	switch {
	case strings.Contains(accept, ".raw"):
	case strings.Contains(accept, ".diff") || strings.Contains(accept, ".patch"):
		if len(body) > 0 && body[len(body)-1] != '\n' {
			return "sent a " + expectedData(accept)[2:] + " cut short: it ends mid-line", fmt.Sprintf("%d bytes", len(body))
		}
		if strings.Contains(accept, ".diff") {
			if e := diffCut(body); e != nil {
				return e.Problem, e.Detail
			}
		}
	case isJSON(h.Get("Content-Type")):
		if !json.Valid(body) {
			var v json.RawMessage
			err := json.Unmarshal(body, &v)
			return "sent an answer that is not complete JSON", fmt.Sprintf("%d bytes, %v", len(body), err)
		}
	}
	return "", ""
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// store keeps a complete answer's body under key.
func (c *HTTPCache) store(key string, resp *http.Response, buf []byte) {
	e := &cacheEntry{key: key, status: resp.StatusCode, header: resp.Header.Clone(), body: buf}
	e.size = int64(len(key) + len(buf))
	for k, vs := range e.header {
		for _, v := range vs {
			e.size += int64(len(k) + len(v))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		c.remove(old)
	}
	c.items[key] = c.lru.PushFront(e)
	c.size += e.size
	c.stats.Stored++
	for c.size > c.maxBytes && c.lru.Len() > 1 {
		c.remove(c.lru.Back())
		c.stats.Evicted++
	}
}

// evict drops key's entry, if any: a fresh 200 that is not stored makes it stale.
func (c *HTTPCache) evict(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
}

func (c *HTTPCache) countRefetch() {
	c.mu.Lock()
	c.stats.Refetched++
	c.mu.Unlock()
}

func (c *HTTPCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.lru.Remove(el)
	delete(c.items, e.key)
	c.size -= e.size
}

// response rebuilds the cached 200 with the fresh headers of the 304 layered on top
// (rate-limit counters, Date, a renewed ETag), so callers see current limits.
func (e *cacheEntry) response(req *http.Request, fresh http.Header) *http.Response {
	h := e.header.Clone()
	for k, vs := range fresh {
		if k == "Content-Length" || k == "Content-Type" || k == "Content-Encoding" {
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	h.Set(CacheHeader, "revalidated")
	h.Set("Content-Length", strconv.Itoa(len(e.body)))
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    e.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(e.body)),
		ContentLength: int64(len(e.body)),
		Request:       req,
	}
}
