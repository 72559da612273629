package github

import (
	"bytes"
	"container/list"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
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
// asking GitHub first, so it cannot return stale data.
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
	if cached != nil {
		req = req.Clone(req.Context())
		if etag := cached.header.Get("ETag"); etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		if lm := cached.header.Get("Last-Modified"); lm != "" {
			req.Header.Set("If-Modified-Since", lm)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		resp.Body.Close()
		t.cache.touch(key)
		return cached.response(req, resp.Header), nil
	}
	if resp.StatusCode != http.StatusOK || !cacheable(resp.Header) {
		return resp, nil
	}
	return t.cache.store(key, resp)
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

// store reads the body (at most maxEntry+1 bytes into memory), keeps it if it fits,
// and returns a response that replays what was read followed by the rest.
func (c *HTTPCache) store(key string, resp *http.Response) (*http.Response, error) {
	if resp.ContentLength > c.maxEntry {
		return resp, nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, c.maxEntry+1))
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if int64(len(buf)) > c.maxEntry {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(buf))

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
	return resp, nil
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
