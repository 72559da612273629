package errorserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"
)

// The local store answers this subset of Sentry's issue search syntax. Terms are
// separated by spaces and all must hold (AND); OR and parentheses are refused.
//
//	word  "a phrase"            free text: case-insensitive substring of the title,
//	                            culprit, exception type and value, or message; an
//	                            issue id or short id matches its issue
//	key:value  key:"a b"        the issue has an event whose tag key has that value
//	key:[a,b]                   ... one of these values
//	key:*part*                  * matches any run of characters
//	!key:value                  negation (also !has:key, !is:...)
//	has:key                     the issue has events with tag key
//	is:unresolved is:unassigned every local issue (the local store has no workflow)
//	is:resolved is:ignored ...  no local issue
//	level: environment: release: server_name: transaction: url: handled: mechanism:
//	os.name: runtime.name: browser.name: user: and any SDK tag   tags
//	user.id: user.email: user.username: user.ip:                 the user's fields
//	error.type: error.value:    the exception type and value
//	error.handled:true|false  error.unhandled:true|false
//	stack.filename: stack.function: stack.module:               a frame of the
//	                            issue's latest event (a file name also matches the
//	                            path's last elements: payment.go matches shop/payment.go)
//	message: title:             free text
//	project:ID                  the project id from the DSN
//	times_seen:>10 (also <, >=, <=, =)                      stored events
//	age:-24h  firstSeen:-24h    first seen within the last 24h (+24h: longer ago)
//	lastSeen:-1h                last seen within the last hour (+1h: longer ago)
//
// Tag filters look at all of an issue's stored events, not only those in the time
// window; the window itself (statsPeriod or start/end) selects issues with at least one
// event in it (by event time) and is what count reports. Each term becomes one SQL
// condition on the issue (queryTerm.sql); free text is looked up in an FTS5 trigram
// index of the issues' lower-cased text.

type termKind int

const (
	termText termKind = iota
	termTag
	termField
	termHas
	termConst
	termProject
	termCount
	termTime
	termStack
	termUser
)

type queryTerm struct {
	neg      bool
	kind     termKind
	key      string
	patterns []string // termTag, termField, termProject: GLOB patterns, any may match
	exact    []string // termTag without wildcards: looked up, not scanned
	text     string   // termText: lower-cased
	constant bool     // termConst
	op       string   // termCount, termTime
	num      int64
	when     time.Time
	user     string // termUser: the field of the user (id, email, username, ip)
}

// isValues maps is: values to whether a local issue has that status.
var isValues = map[string]bool{
	"unresolved": true, "unassigned": true, "new": true,
	"resolved": false, "ignored": false, "archived": false, "assigned": false,
	"for_review": false, "regressed": false, "escalating": false, "muted": false,
}

var keyPattern = lazyregexp.New(`^[A-Za-z][A-Za-z0-9_.\-]*$`)

// parseQuery parses a search query into terms, or says what is wrong with it.
func parseQuery(q string, now time.Time) ([]queryTerm, error) {
	toks, err := tokenize(q)
	if err != nil {
		return nil, err
	}
	var terms []queryTerm
	for _, tok := range toks {
		switch strings.ToUpper(tok) {
		case "AND":
			continue
		case "OR":
			return nil, fmt.Errorf("%w: OR is not supported by the local store: all terms must hold; run one search per alternative or use key:[a,b]", backend.ErrInvalidInput)
		}
		if strings.HasPrefix(tok, "(") || strings.HasSuffix(tok, ")") {
			return nil, fmt.Errorf("%w: parentheses are not supported by the local store: write terms separated by spaces", backend.ErrInvalidInput)
		}
		t, err := parseTerm(tok, now)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, nil
}

// tokenize splits on spaces outside double quotes and brackets.
func tokenize(q string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inQuote, inBracket := false, false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case r == '[' && !inQuote:
			inBracket = true
			cur.WriteRune(r)
		case r == ']' && !inQuote:
			inBracket = false
			cur.WriteRune(r)
		case (r == ' ' || r == '\t' || r == '\n') && !inQuote && !inBracket:
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if inQuote {
		return nil, fmt.Errorf("%w: query has an unclosed double quote", backend.ErrInvalidInput)
	}
	if inBracket {
		return nil, fmt.Errorf("%w: query has an unclosed [ list", backend.ErrInvalidInput)
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks, nil
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

func parseTerm(tok string, now time.Time) (queryTerm, error) {
	t := queryTerm{}
	if strings.HasPrefix(tok, "!") {
		t.neg = true
		tok = tok[1:]
	}
	key, value, found := strings.Cut(tok, ":")
	if !found || !keyPattern.MatchString(key) || strings.HasPrefix(tok, `"`) {
		t.kind, t.text = termText, strings.ToLower(unquote(tok))
		return t, nil
	}
	values := splitValues(value)
	if len(values) == 0 {
		return t, fmt.Errorf("%w: %s: has no value: write %s:value", backend.ErrInvalidInput, key, key)
	}
	t.key = key
	switch key {
	case "is":
		v := strings.ToLower(values[0])
		known, ok := isValues[v]
		if !ok {
			return t, fmt.Errorf("%w: is:%s is not supported by the local store: use is:unresolved (every local issue) or another filter", backend.ErrInvalidInput, v)
		}
		t.kind, t.constant = termConst, known
	case "has":
		t.kind = termHas
		t.key = values[0]
	case "message", "title":
		t.kind, t.text = termText, strings.ToLower(strings.Join(values, " "))
	case "error.type", "error.value":
		t.kind = termField
		t.patterns = globs(values)
	case "stack.filename", "stack.function", "stack.module":
		t.kind, t.key = termStack, strings.TrimPrefix(key, "stack.")
		t.patterns = globs(values)
	case "error.handled", "error.unhandled":
		b, err := strconv.ParseBool(values[0])
		if err != nil {
			return t, fmt.Errorf("%w: %s:%s is not true or false", backend.ErrInvalidInput, key, values[0])
		}
		if key == "error.unhandled" {
			b = !b
		}
		t.kind, t.key = termTag, "handled"
		t.patterns, t.exact = tagMatchers([]string{map[bool]string{true: "yes", false: "no"}[b]})
	case "user.id", "user.email", "user.username", "user.ip":
		t.kind, t.key, t.user = termUser, "user", strings.TrimPrefix(key, "user.")
		t.patterns, t.exact = tagMatchers(values)
	case "project":
		t.kind = termProject
		t.patterns = globs(values)
	case "times_seen", "timesSeen":
		op, rest := splitOp(values[0])
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return t, fmt.Errorf("%w: %s:%s is not a comparison with a number such as %s:>10", backend.ErrInvalidInput, key, values[0], key)
		}
		t.kind, t.op, t.num = termCount, op, n
	case "age", "firstSeen", "first_seen", "lastSeen", "last_seen":
		w, op, err := parseTimeFilter(key, values[0], now)
		if err != nil {
			return t, err
		}
		t.kind, t.when, t.op = termTime, w, op
		if key == "age" || key == "first_seen" {
			t.key = "firstSeen"
		} else if key == "last_seen" {
			t.key = "lastSeen"
		}
	default:
		t.kind = termTag
		t.patterns, t.exact = tagMatchers(values)
	}
	return t, nil
}

// splitValues reads value, "quoted value" or [a, "b c"].
func splitValues(v string) []string {
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		var out []string
		for _, p := range strings.Split(v[1:len(v)-1], ",") {
			if p = unquote(strings.TrimSpace(p)); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if v = unquote(v); v == "" {
		return nil
	}
	return []string{v}
}

// globs turns values where * matches any run of characters into SQLite GLOB patterns;
// matching is exact otherwise (tags are case-sensitive in Sentry too).
func globs(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		parts := strings.Split(v, "*")
		for j := range parts {
			parts[j] = globEscape(parts[j])
		}
		out[i] = strings.Join(parts, "*")
	}
	return out
}

// globEscape makes s match itself in a GLOB pattern.
func globEscape(s string) string {
	if !strings.ContainsAny(s, "*?[") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tagMatchers returns the GLOB patterns for values and, when none has a wildcard, the
// values themselves for direct lookup.
func tagMatchers(values []string) ([]string, []string) {
	for _, v := range values {
		if strings.Contains(v, "*") {
			return globs(values), nil
		}
	}
	return globs(values), values
}

func splitOp(v string) (op, rest string) {
	for _, o := range []string{">=", "<=", ">", "<", "="} {
		if strings.HasPrefix(v, o) {
			return o, v[len(o):]
		}
	}
	return "=", v
}

// parseTimeFilter reads -24h (within the last 24h), +24h (longer ago than 24h) or
// >2026-05-01 / <2026-05-01T12:00:00Z.
func parseTimeFilter(key, v string, now time.Time) (time.Time, string, error) {
	if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
		d, err := backend.ParsePeriod(v[1:])
		if err != nil {
			return time.Time{}, "", fmt.Errorf("%w: %s:%s: give -24h (within the last 24 hours) or +7d (longer ago than 7 days)", backend.ErrInvalidInput, key, v)
		}
		if v[0] == '-' {
			return now.Add(-d), ">=", nil
		}
		return now.Add(-d), "<", nil
	}
	op, rest := splitOp(v)
	at, err := backend.ParseInstant(key, rest)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("%w: %s:%s: give -24h, +7d or a comparison with a time such as >2026-05-01", backend.ErrInvalidInput, key, v)
	}
	return at, op, nil
}

// sql renders the term as a condition on the issue row i (with its columns n, id,
// short_id, project, type, value, times_seen, first_seen, last_seen) and its arguments.
func (t *queryTerm) sql() (string, []any) {
	var cond string
	var args []any
	anyGlob := func(col string) string {
		parts := make([]string, len(t.patterns))
		for i, p := range t.patterns {
			parts[i] = col + " GLOB ?"
			args = append(args, p)
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	switch t.kind {
	case termText:
		cond = "(i.n IN (SELECT rowid FROM issue_text WHERE text GLOB ?) OR i.id = ? OR i.short_id = ? COLLATE NOCASE)"
		args = append(args, "*"+globEscape(t.text)+"*", t.text, t.text)
	case termTag:
		// Counted tags, or the tags of events committed since they were last counted
		// (another process writes: see pendingTags).
		var margs []any
		match := func(col string) string {
			if t.exact != nil {
				return col + " IN (" + placeholders(len(t.exact)) + ")"
			}
			parts := make([]string, len(t.patterns))
			for i := range t.patterns {
				parts[i] = col + " GLOB ?"
			}
			return "(" + strings.Join(parts, " OR ") + ")"
		}
		if t.exact != nil {
			for _, v := range t.exact {
				margs = append(margs, v)
			}
		} else {
			for _, p := range t.patterns {
				margs = append(margs, p)
			}
		}
		cond = "(i.n IN (SELECT issue FROM issue_tags WHERE key = ? AND " + match("value") + ") OR i.n IN (SELECT e.issue FROM events e, json_each(e.tags) j WHERE e.n > " + tagsThroughSQL + " AND j.key = ? AND " + match("j.value") + "))"
		args = append(append(append(append(args, t.key), margs...), t.key), margs...)
	case termUser:
		cond, args = t.userSQL()
	case termField:
		col := "i.type"
		if t.key == "error.value" {
			col = "i.value"
		}
		cond = anyGlob(col)
	case termStack:
		// Like error.type, a property of the issue: its latest event's frames (every
		// event of an issue shares its in-app frames, which group it). One body is
		// read per issue in the window, not every event.
		var parts []string
		for _, p := range t.patterns {
			switch t.key {
			case "filename":
				parts = append(parts, "f.value ->> 'filename' GLOB ?", "f.value ->> 'filename' GLOB ?", "f.value ->> 'absPath' GLOB ?")
				args = append(args, p, "*/"+p, "*/"+p)
			default:
				parts = append(parts, "f.value ->> '"+t.key+"' GLOB ?")
				args = append(args, p)
			}
		}
		cond = `EXISTS (SELECT 1 FROM events e, json_each(CAST(e.body AS TEXT), '$.exceptions') x, json_each(x.value, '$.frames') f
			WHERE e.n = (SELECT n FROM events WHERE issue = i.n ORDER BY ts DESC, n DESC LIMIT 1) AND (` + strings.Join(parts, " OR ") + `))`
	case termHas:
		cond = "(i.n IN (SELECT issue FROM issue_tag_keys WHERE key = ?) OR i.n IN (SELECT e.issue FROM events e, json_each(e.tags) j WHERE e.n > " + tagsThroughSQL + " AND j.key = ?))"
		args = append(args, t.key, t.key)
	case termConst:
		cond = map[bool]string{true: "1", false: "0"}[t.constant]
	case termProject:
		cond = anyGlob("i.project")
	case termCount:
		cond = "i.times_seen " + sqlOp(t.op) + " ?"
		args = append(args, t.num)
	case termTime:
		col := "i.first_seen"
		if t.key == "lastSeen" {
			col = "i.last_seen"
		}
		cond = col + " " + sqlOp(t.op) + " ?"
		args = append(args, t.when.UnixNano())
	default:
		cond = "1"
	}
	if t.neg {
		cond = "NOT " + cond
	}
	return cond, args
}

// tagsThroughSQL is the last event whose tags are counted.
const tagsThroughSQL = "(SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '" + metaTagsThrough + "'), 0))"

// sqlOp maps a comparison of the query syntax to SQL (splitOp only yields these).
func sqlOp(op string) string {
	switch op {
	case ">", "<", ">=", "<=":
		return op
	}
	return "="
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
