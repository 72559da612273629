package event

import (
	"bytes"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"
)

// Redacted replaces every value that looks like a secret.
const Redacted = "[redacted]"

// secretKeyParts are matched against a key folded to lower-case letters and digits
// ("X-Api-Key" -> "xapikey"), so spelling variants (api_key, apiKey, API-KEY) are one
// case. The list follows Sentry's own server-side scrubbing defaults plus HTTP
// credentials headers.
var secretKeyParts = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey",
	"privatekey", "signingkey", "encryptionkey", "authorization", "authentication",
	"credential", "cookie", "session", "csrf", "xsrf", "bearer", "jwt",
}

// secretKeyWords are secrets only as a whole word of the key ("auth", "db_pass",
// "SENTRY_DSN", "proxyAuth") but not inside another word ("author", "compass").
var secretKeyWords = map[string]bool{"auth": true, "dsn": true, "pwd": true, "pass": true, "pin": true}

// IsSecretKey reports whether a key (a header, tag, variable, field or parameter name)
// names something whose value must not be shown. Answers are remembered for the first
// few thousand keys: the same tag keys come with every event.
func IsSecretKey(key string) bool {
	if v, ok := secretKeyCache.Load(key); ok {
		return v.(bool)
	}
	secret := isSecretKey(key)
	if secretKeyCacheSize.Add(1) <= maxSecretKeyCache {
		secretKeyCache.Store(key, secret)
	}
	return secret
}

const maxSecretKeyCache = 4096

var (
	secretKeyCache     sync.Map
	secretKeyCacheSize atomic.Int32
)

func isSecretKey(key string) bool {
	k := foldKey(key)
	if k == "" {
		return false
	}
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	for _, w := range keyWords(key) {
		if secretKeyWords[w] {
			return true
		}
	}
	return false
}

// keyWords splits a key at non-alphanumerics and lower-to-upper case changes:
// "proxyAuth" -> proxy, auth; "DB_PASS" -> db, pass.
func keyWords(key string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range key {
		switch {
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			cur = append(cur, r)
			prevLower = true
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

func foldKey(key string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(key) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// secretInText finds key=value, key: value and "key": "value" pairs with a secret-looking
// key inside free text (log messages, exception values, bodies). The key alternatives
// mirror secretKeyParts in their common spellings.
var secretInText = lazyregexp.New(`(?i)((?:[a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credentials?|cookie|session(?:[_-]?id)?|csrf|xsrf|dsn)[a-z0-9_.-]*)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s&,;"']+)`)

// bearerInText finds HTTP credentials schemes followed by a credential.
var bearerInText = lazyregexp.New(`(?i)\b(bearer|basic|token|sentry)\s+([A-Za-z0-9._~+/=:-]{8,})`)

// userinfoInText finds passwords in URLs: scheme://user:password@host.
var userinfoInText = lazyregexp.New(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*):([^/\s@]*)@`)

// RedactText removes secrets that appear inline in free text: key=value pairs with a
// secret-looking key, bearer credentials and passwords in URLs. It is a second line of
// defence behind key-based redaction of structured data.
func RedactText(s string) string {
	if !MayHoldSecret(s) {
		return s
	}
	// Credentials schemes first: "Authorization: Bearer abc" must lose "abc", not just "Bearer".
	s = bearerInText.ReplaceAllString(s, "$1 "+Redacted)
	s = secretInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretInText.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], `"`) {
			return sub[1] + `"` + Redacted + `"`
		}
		return sub[1] + Redacted
	})
	s = userinfoInText.ReplaceAllString(s, "$1:"+Redacted+"@")
	return s
}

// SecretHints are substrings (lower-case) without which none of the patterns above
// can match; checking them first keeps redaction cheap for ordinary text.
var SecretHints = []string{"pass", "secret", "token", "key", "auth", "credential", "cookie", "session",
	"csrf", "xsrf", "dsn", "bearer", "basic", "sentry"}

func MayHoldSecret(s string) bool {
	if s == "" {
		return false
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") { // a password in a URL
		return true
	}
	// Lower-case a short ASCII text on the stack (strings.ToLower would allocate for
	// every text with a capital); other text the Unicode way.
	var buf [512]byte
	if len(s) <= len(buf) && isASCII(s) {
		lower := buf[:len(s)]
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		for _, h := range secretHintBytes {
			if bytes.Contains(lower, h) {
				return true
			}
		}
		return false
	}
	lower := strings.ToLower(s)
	for _, h := range SecretHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

var secretHintBytes = func() (out [][]byte) {
	for _, h := range SecretHints {
		out = append(out, []byte(h))
	}
	return out
}()

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// RedactAny returns a copy of v (decoded JSON) with the value of every secret-looking
// key replaced, at any depth, and inline secrets removed from strings. A list of
// [key, value] pairs (how Sentry sends headers and query strings) is treated as a map.
func RedactAny(key string, v any) any {
	if IsSecretKey(key) && v != nil {
		return Redacted
	}
	switch x := v.(type) {
	case string:
		return RedactText(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = RedactAny(k, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				if k, ok := pair[0].(string); ok {
					out[i] = []any{k, RedactAny(k, pair[1])}
					continue
				}
			}
			out[i] = RedactAny(key, e)
		}
		return out
	default:
		return v
	}
}

// RedactValue is the one rule for a value named by a key (a tag, header, query
// parameter): the whole value when the key looks like a secret, otherwise the inline
// secrets in it. Every view of a tag value goes through it (viewer.tagValue), on both
// backends, and so do ingest and the local store's index.
func RedactValue(key, value string) string {
	if IsSecretKey(key) {
		return Redacted
	}
	return RedactText(value)
}

// RedactPairs redacts a list of key/value pairs with redactValue.
func RedactPairs(pairs []Pair) []Pair {
	out := make([]Pair, len(pairs))
	for i, p := range pairs {
		out[i] = Pair{Key: p.Key, Value: RedactValue(p.Key, p.Value)}
	}
	return out
}

// RedactQueryString parses a raw query string and redacts secret-looking parameters.
// Text that is not a query string is redacted as free text.
func RedactQueryString(q string) []Pair {
	q = strings.TrimPrefix(q, "?")
	vals, err := url.ParseQuery(q)
	if err != nil {
		return []Pair{{Key: "", Value: RedactText(q)}}
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Pair
	for _, k := range keys {
		for _, v := range vals[k] {
			out = append(out, Pair{Key: k, Value: v})
		}
	}
	return RedactPairs(out)
}

// RedactURL drops the query string, fragment and any credentials from a URL (query
// parameters are reported separately, redacted). Text that does not parse as a URL is
// redacted as free text.
func RedactURL(raw string) (clean string, query []Pair) {
	u, err := url.Parse(raw)
	if err != nil {
		return RedactText(raw), nil
	}
	if u.RawQuery != "" {
		query = RedactQueryString(u.RawQuery)
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String(), query
}
