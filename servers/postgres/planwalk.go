package postgres

import (
	"slices"
	"strings"
)

// The index advisor reads EXPLAIN (FORMAT JSON, VERBOSE) plans: VERBOSE gives each
// scan's schema and qualifies every column in the conditions with the scan's alias
// (EXPLAIN makes aliases unique within a plan), so a condition's columns can be
// traced to the table they belong to.

// advNode is the part of a plan node the advisor reads.
type advNode struct {
	NodeType    string    `json:"Node Type"`
	Relation    string    `json:"Relation Name"`
	Schema      string    `json:"Schema"`
	Alias       string    `json:"Alias"`
	IndexName   string    `json:"Index Name"`
	TotalCost   float64   `json:"Total Cost"`
	Filter      string    `json:"Filter"`
	IndexCond   string    `json:"Index Cond"`
	RecheckCond string    `json:"Recheck Cond"`
	HashCond    string    `json:"Hash Cond"`
	MergeCond   string    `json:"Merge Cond"`
	JoinFilter  string    `json:"Join Filter"`
	SortKey     []string  `json:"Sort Key"`
	Plans       []advNode `json:"Plans"`
}

// walk calls fn for n and every node below it.
func (n *advNode) walk(fn func(*advNode)) {
	fn(n)
	for i := range n.Plans {
		n.Plans[i].walk(fn)
	}
}

// usesIndex says whether the plan reads the index named name.
func (n *advNode) usesIndex(name string) bool {
	found := false
	n.walk(func(m *advNode) { found = found || m.IndexName == name })
	return found
}

// colRef is a column of a condition: alias.column, and how it is compared.
type colRef struct {
	alias, column string
	eq            bool // compared with = (or = ANY): the best leading index column
}

// exprToken is a lexical token of a deparsed expression.
type exprToken struct {
	kind byte // 'i' identifier, 's' string, 'n' number or parameter, 'o' operator, 'c' the :: of a cast, or the character ( ) , . [ ]
	text string
}

// exprTokens splits a deparsed expression (as EXPLAIN prints it) into tokens.
func exprTokens(s string) []exprToken {
	var out []exprToken
	isIdentStart := func(c byte) bool { return c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') }
	isIdent := func(c byte) bool { return isIdentStart(c) || c == '$' || (c >= '0' && c <= '9') }
	const opChars = "+-*/<>=~!@#%^&|`?"
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || ((c == 'E' || c == 'e' || c == 'B' || c == 'b' || c == 'X' || c == 'x') && i+1 < len(s) && s[i+1] == '\''):
			escapes := c == 'E' || c == 'e'
			if c != '\'' {
				i++
			}
			j := i + 1
			for j < len(s) {
				if escapes && s[j] == '\\' {
					j += 2
					continue
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			out = append(out, exprToken{'s', ""})
			i = min(j+1, len(s))
		case c == '"':
			var b strings.Builder
			j := i + 1
			for j < len(s) {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, exprToken{'i', b.String()})
			i = min(j+1, len(s))
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			// Unquoted identifiers are printed as stored (lower case unless quoted).
			out = append(out, exprToken{'i', s[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '$':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			out = append(out, exprToken{'n', s[i:j]})
			i = j
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			out = append(out, exprToken{'c', "::"})
			i += 2
		case strings.IndexByte(opChars, c) >= 0:
			j := i + 1
			for j < len(s) && strings.IndexByte(opChars, s[j]) >= 0 {
				j++
			}
			out = append(out, exprToken{'o', s[i:j]})
			i = j
		default:
			out = append(out, exprToken{c, string(c)})
			i++
		}
	}
	return out
}

// notFunctions are keywords that a parenthesis may follow without a function call.
var notFunctions = map[string]bool{"any": true, "all": true, "some": true, "in": true, "array": true, "and": true,
	"or": true, "not": true, "row": true, "exists": true, "when": true, "then": true, "else": true, "case": true}

// columnRefs finds the alias.column references of a condition that an index on the
// column could serve: compared with =, <, <=, >, >=, LIKE (~~), IS [NOT] NULL or =
// ANY. Columns inside function calls, cast, or compared otherwise are left out.
func columnRefs(expr string) []colRef {
	toks := exprTokens(expr)
	var refs []colRef
	var frames []bool // per open parenthesis: is it a function call's
	inFunc := func() bool { return slices.Contains(frames, true) }
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case '(':
			fn := i > 0 && toks[i-1].kind == 'i' && !notFunctions[strings.ToLower(toks[i-1].text)]
			frames = append(frames, fn)
			continue
		case ')':
			if len(frames) > 0 {
				frames = frames[:len(frames)-1]
			}
			continue
		}
		if t.kind != 'i' || i+2 >= len(toks) || toks[i+1].kind != '.' || toks[i+2].kind != 'i' {
			continue
		}
		if i > 0 && (toks[i-1].kind == '.' || toks[i-1].kind == 'c') {
			continue // a qualified type name or a longer path
		}
		end := i + 3
		if end < len(toks) && (toks[end].kind == '(' || toks[end].kind == '.') {
			i = end - 1
			continue // schema.function( or a longer path
		}
		ref := colRef{alias: t.text, column: toks[i+2].text}
		i = end - 1
		if inFunc() {
			continue
		}
		var prev, next exprToken
		if end-4 >= 0 {
			prev = toks[end-4]
		}
		if end < len(toks) {
			next = toks[end]
		}
		if prev.kind == '(' && next.kind == ')' && end+1 < len(toks) && toks[end+1].kind == 'c' {
			continue // (alias.column)::type
		}
		op := ""
		switch {
		case next.kind == 'o':
			op = next.text
		case next.kind == 'i' && strings.EqualFold(next.text, "IS"):
			op = "IS"
		case prev.kind == 'o':
			op = prev.text
		}
		switch op {
		case "=":
			ref.eq = true
		case "<", "<=", ">", ">=", "~~", "IS":
		default:
			continue
		}
		refs = append(refs, ref)
	}
	return refs
}

// sortColumns reads a Sort Key: the leading keys that are plain columns of one alias
// (alias.column, optionally DESC, ASC, NULLS FIRST or LAST), for an index that
// returns rows in that order.
func sortColumns(keys []string) (alias string, cols []string) {
	for _, k := range keys {
		toks := exprTokens(k)
		if len(toks) < 3 || toks[0].kind != 'i' || toks[1].kind != '.' || toks[2].kind != 'i' {
			break
		}
		ok := true
		for _, t := range toks[3:] {
			switch strings.ToUpper(t.text) {
			case "DESC", "ASC", "NULLS", "FIRST", "LAST":
			default:
				ok = false
			}
		}
		if !ok || (alias != "" && toks[0].text != alias) {
			break
		}
		alias = toks[0].text
		cols = append(cols, toks[2].text)
	}
	return alias, cols
}

// relUse is how a plan reads one table (one alias).
type relUse struct {
	schema, table string
	seqScan       bool       // read by a sequential scan
	residual      bool       // read by an index scan that filters rows after it
	eq, other     []string   // filter columns compared with =, and otherwise
	join          []string   // join condition columns
	sorts         [][]string // sort keys satisfied by this table alone
}

// candidateIndex is an index the plan suggests.
type candidateIndex struct {
	schema, table string
	columns       []string
	reasons       []string // filter, join, sort
}

func (c candidateIndex) key() string {
	return c.schema + "\x00" + c.table + "\x00" + strings.Join(c.columns, "\x00")
}

// maxIndexColumns bounds a candidate's columns.
const maxIndexColumns = 3

// planCandidates walks a plan and proposes indexes for the tables it reads by
// sequential scan (or by an index scan followed by a filter): on the columns of the
// scan's Filter (and Index Cond / Recheck Cond), of Hash Cond / Merge Cond / Join
// Filter, and of a Sort Key over one table.
func planCandidates(root *advNode) []candidateIndex {
	uses := map[string]*relUse{}
	var order []string
	use := func(alias string) *relUse {
		if u, ok := uses[alias]; ok {
			return u
		}
		u := &relUse{}
		uses[alias] = u
		order = append(order, alias)
		return u
	}
	addCols := func(u *relUse, alias string, expr string) {
		for _, r := range columnRefs(expr) {
			if r.alias != alias {
				continue
			}
			if r.eq {
				u.eq = appendNew(u.eq, r.column)
			} else {
				u.other = appendNew(u.other, r.column)
			}
		}
	}
	// Scans first: they say which alias is which table.
	root.walk(func(n *advNode) {
		if n.Relation == "" || n.Alias == "" {
			return
		}
		u := use(n.Alias)
		u.schema, u.table = n.Schema, n.Relation
		switch n.NodeType {
		case "Seq Scan":
			u.seqScan = true
			addCols(u, n.Alias, n.Filter)
		case "Index Scan", "Index Only Scan", "Bitmap Heap Scan":
			if n.Filter != "" {
				u.residual = true
				addCols(u, n.Alias, n.IndexCond)
				addCols(u, n.Alias, n.RecheckCond)
				addCols(u, n.Alias, n.Filter)
			}
		}
	})
	root.walk(func(n *advNode) {
		for _, cond := range []string{n.HashCond, n.MergeCond, n.JoinFilter} {
			for _, r := range columnRefs(cond) {
				if u, ok := uses[r.alias]; ok && u.seqScan {
					u.join = appendNew(u.join, r.column)
				}
			}
		}
		if (n.NodeType == "Sort" || n.NodeType == "Incremental Sort") && len(n.SortKey) > 0 {
			if alias, cols := sortColumns(n.SortKey); len(cols) > 0 {
				if u, ok := uses[alias]; ok && u.seqScan {
					u.sorts = append(u.sorts, cols)
				}
			}
		}
	})

	var out []candidateIndex
	seen := map[string]int{}
	add := func(u *relUse, cols []string, reasons ...string) {
		if len(cols) == 0 {
			return
		}
		cols = slices.Clone(cols[:min(len(cols), maxIndexColumns)])
		c := candidateIndex{schema: u.schema, table: u.table, columns: cols}
		i, ok := seen[c.key()]
		if !ok {
			i = len(out)
			seen[c.key()] = i
			out = append(out, c)
		}
		out[i].reasons = appendNew(out[i].reasons, reasons...)
	}
	for _, alias := range order {
		u := uses[alias]
		if u.schema == "" || (!u.seqScan && !u.residual) {
			continue
		}
		// Equality columns lead, then one range column: the usual composite.
		if len(u.eq) > 0 || len(u.other) > 0 {
			lead := slices.Clone(u.eq[:min(len(u.eq), maxIndexColumns)])
			if len(lead) < maxIndexColumns && len(u.other) > 0 {
				lead = append(lead, u.other[0])
			}
			add(u, lead, "filter")
			for _, c := range u.eq {
				add(u, []string{c}, "filter")
			}
			for _, c := range u.other {
				add(u, []string{c}, "filter")
			}
		}
		for _, c := range u.join {
			add(u, []string{c}, "join")
		}
		for _, s := range u.sorts {
			if len(u.eq) > 0 { // WHERE a = … ORDER BY b: (a, b) filters and returns rows in order
				add(u, appendNew(slices.Clone(u.eq), s...), "filter", "sort")
			}
			add(u, s, "sort")
		}
	}
	return out
}

// appendNew appends the values of vs not yet in s.
func appendNew(s []string, vs ...string) []string {
	for _, v := range vs {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}
