// Package argschema is mcpkit's own validator of tool arguments: the JSON Schema
// 2020-12 keywords mcpkit's generated schemas use (and a few more of the same kind),
// checked exactly (numbers compared as decimals, in time linear in their length), with
// a message naming every bad field. A general validator costs a server milliseconds of
// package initialisation at every start and re-scans each call's arguments. A schema
// with any other assertion keyword fails to compile with [*UnsupportedKeywordError], so
// no keyword is ever silently ignored: mcpkit then hands it to
// ServerOptions.SchemaCompiler (pkg/mcpkit/schemafull is a complete one).
//
// Why not github.com/google/jsonschema-go (measured for issue #15 against this package
// and schemafull on the servers' published schemas): it treats json.Number as a string,
// so it needs float64 arguments, which lose exactness (0.3 is not a multipleOf 0.1;
// 2^53+1 passes maximum 2^53; 1e-400 becomes 0) and refuse numbers beyond float64
// range as invalid JSON; it reports only the first problem, without array indexes; and
// it silently ignores unknown keywords, typos included.
package argschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// annotationKeywords carry no assertion in JSON Schema 2020-12 (format included: it is
// an annotation unless a vocabulary says otherwise).
var annotationKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "format": true, "contentMediaType": true, "contentEncoding": true,
}

// Schema is a tool input schema compiled for [Schema.Validate].
type Schema struct {
	never      bool // the schema false
	types      []string
	enum       []any
	constVal   *any
	minimum    *decimal
	maximum    *decimal
	exclMin    *decimal
	exclMax    *decimal
	multipleOf *decimal
	minLength  *int
	maxLength  *int
	pattern    *regexp.Regexp
	props      map[string]*Schema
	propOrder  []string
	required   []string
	additional *Schema // nil: any additional property is allowed
	minProps   *int
	maxProps   *int
	items      *Schema
	minItems   *int
	maxItems   *int
	unique     bool
	anyOf      []*Schema
	oneOf      []*Schema
	allOf      []*Schema
	not        *Schema
}

// UnsupportedKeywordError reports a schema this validator cannot check completely.
type UnsupportedKeywordError struct{ keyword string }

func (e *UnsupportedKeywordError) Error() string {
	return fmt.Sprintf("keyword %q is not one mcpkit validates itself; set ServerOptions.SchemaCompiler (for example schemafull.Compile)", e.keyword)
}

// Compile compiles a tool's input schema, or fails with [*UnsupportedKeywordError]
// when it uses a keyword outside the subset.
func Compile(schema json.RawMessage) (*Schema, error) {
	v, err := decodeJSONValue(schema)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	return compileNode(v, "")
}

func compileNode(v any, at string) (*Schema, error) {
	switch n := v.(type) {
	case bool:
		if n {
			return &Schema{}, nil
		}
		return &Schema{never: true}, nil
	case map[string]any:
		return compileObject(n, at)
	}
	return nil, fmt.Errorf("schema at %q must be an object or a boolean", "#"+at)
}

func compileObject(m map[string]any, at string) (*Schema, error) {
	s := &Schema{}
	bad := func(kw, want string) error {
		return fmt.Errorf("schema keyword %q at %q must be %s", kw, "#"+at, want)
	}
	sub := func(kw string, v any) (*Schema, error) { return compileNode(v, at+"/"+kw) }
	subs := func(kw string, v any) ([]*Schema, error) {
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil, bad(kw, "a non-empty array of schemas")
		}
		out := make([]*Schema, len(list))
		for i, x := range list {
			c, err := compileNode(x, fmt.Sprintf("%s/%s/%d", at, kw, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	count := func(kw string, v any) (*int, error) {
		r, ok := v.(json.Number)
		if !ok {
			return nil, bad(kw, "a non-negative integer")
		}
		n, err := r.Int64()
		if err != nil || n < 0 {
			return nil, bad(kw, "a non-negative integer")
		}
		i := int(n)
		return &i, nil
	}
	number := func(kw string, v any) (*decimal, error) {
		r, ok := v.(json.Number)
		if !ok {
			return nil, bad(kw, "a number")
		}
		d, ok := parseDecimal(string(r))
		if !ok {
			return nil, bad(kw, "a number")
		}
		return &d, nil
	}
	var err error
	for kw, v := range m {
		switch {
		case annotationKeywords[kw] || strings.HasPrefix(kw, "x-"):
			continue
		}
		switch kw {
		case "type":
			switch t := v.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, x := range t {
					name, ok := x.(string)
					if !ok {
						return nil, bad(kw, "a type name or an array of them")
					}
					s.types = append(s.types, name)
				}
			default:
				return nil, bad(kw, "a type name or an array of them")
			}
			for _, t := range s.types {
				if !slices.Contains([]string{"null", "boolean", "object", "array", "number", "integer", "string"}, t) {
					return nil, bad(kw, "one of null, boolean, object, array, number, integer, string")
				}
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return nil, bad(kw, "an array")
			}
			s.enum = list
		case "const":
			c := v
			s.constVal = &c
		case "minimum":
			s.minimum, err = number(kw, v)
		case "maximum":
			s.maximum, err = number(kw, v)
		case "exclusiveMinimum":
			s.exclMin, err = number(kw, v)
		case "exclusiveMaximum":
			s.exclMax, err = number(kw, v)
		case "multipleOf":
			s.multipleOf, err = number(kw, v)
			if err == nil && s.multipleOf.sign() <= 0 {
				err = bad(kw, "a number above zero")
			}
		case "minLength":
			s.minLength, err = count(kw, v)
		case "maxLength":
			s.maxLength, err = count(kw, v)
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, bad(kw, "a regular expression string")
			}
			if s.pattern, err = regexp.Compile(p); err != nil {
				return nil, fmt.Errorf("schema pattern %q at %q does not compile: %w", p, "#"+at, err)
			}
		case "properties":
			pm, ok := v.(map[string]any)
			if !ok {
				return nil, bad(kw, "an object of schemas")
			}
			s.props = make(map[string]*Schema, len(pm))
			for name, ps := range pm {
				if s.props[name], err = compileNode(ps, at+"/properties/"+name); err != nil {
					return nil, err
				}
				s.propOrder = append(s.propOrder, name)
			}
			slices.Sort(s.propOrder)
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil, bad(kw, "an array of property names")
			}
			for _, x := range list {
				name, ok := x.(string)
				if !ok {
					return nil, bad(kw, "an array of property names")
				}
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			s.additional, err = sub(kw, v)
		case "minProperties":
			s.minProps, err = count(kw, v)
		case "maxProperties":
			s.maxProps, err = count(kw, v)
		case "items":
			s.items, err = sub(kw, v)
		case "minItems":
			s.minItems, err = count(kw, v)
		case "maxItems":
			s.maxItems, err = count(kw, v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return nil, bad(kw, "a boolean")
			}
			s.unique = b
		case "anyOf":
			s.anyOf, err = subs(kw, v)
		case "oneOf":
			s.oneOf, err = subs(kw, v)
		case "allOf":
			s.allOf, err = subs(kw, v)
		case "not":
			s.not, err = sub(kw, v)
		default:
			return nil, &UnsupportedKeywordError{keyword: kw}
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// decodeJSONValue decodes JSON keeping numbers exact (json.Number).
func decodeJSONValue(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// Validate checks one call's arguments and returns "" when they are valid, or a
// message naming every problem by field.
func (s *Schema) Validate(args json.RawMessage) string {
	v, err := decodeJSONValue(args)
	if err != nil {
		return "arguments are not valid JSON"
	}
	var problems []string
	s.check(v, nil, &problems)
	slices.Sort(problems)
	return strings.Join(slices.Compact(problems), "; ")
}

// check appends a message for each way v fails s; path is where v is.
func (s *Schema) check(v any, path []string, out *[]string) {
	report := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		if len(path) > 0 {
			msg = FieldPath(path) + ": " + msg
		}
		*out = append(*out, msg)
	}
	if s.never {
		report("not allowed")
		return
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		report("got %s, want %s", jsonTypeOf(v), strings.Join(s.types, " or "))
		return // the other keywords would only repeat the mismatch
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return jsonEqual(v, e) }) {
		report("value must be one of %s", listValues(s.enum))
	}
	if s.constVal != nil && !jsonEqual(v, *s.constVal) {
		report("value must be %s", listValues([]any{*s.constVal}))
	}
	switch x := v.(type) {
	case json.Number:
		s.checkNumber(x, report)
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLength != nil && n < *s.minLength {
			report("must be at least %d characters long, got %d", *s.minLength, n)
		}
		if s.maxLength != nil && n > *s.maxLength {
			report("must be at most %d characters long, got %d", *s.maxLength, n)
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			report("%q does not match the pattern %q", x, s.pattern.String())
		}
	case map[string]any:
		s.checkObject(x, path, out, report)
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			report("needs at least %d items, got %d", *s.minItems, len(x))
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			report("takes at most %d items, got %d", *s.maxItems, len(x))
		}
		if s.unique {
			for i := range x {
				for j := range i {
					if jsonEqual(x[i], x[j]) {
						report("items %d and %d are equal; items must be unique", j, i)
					}
				}
			}
		}
		if s.items != nil {
			for i, item := range x {
				s.items.check(item, append(slices.Clip(path), fmt.Sprint(i)), out)
			}
		}
	}
	for _, a := range s.allOf {
		a.check(v, path, out)
	}
	if s.anyOf != nil && !slices.ContainsFunc(s.anyOf, func(a *Schema) bool { return a.valid(v) }) {
		report("matches none of the %d allowed forms (anyOf)", len(s.anyOf))
	}
	if s.oneOf != nil {
		n := 0
		for _, a := range s.oneOf {
			if a.valid(v) {
				n++
			}
		}
		if n != 1 {
			report("must match exactly one of %d forms (oneOf), matches %d", len(s.oneOf), n)
		}
	}
	if s.not != nil && s.not.valid(v) {
		report("matches a form that is not allowed (not)")
	}
}

func (s *Schema) valid(v any) bool {
	var out []string
	s.check(v, nil, &out)
	return len(out) == 0
}

func (s *Schema) checkNumber(x json.Number, report func(string, ...any)) {
	if s.minimum == nil && s.maximum == nil && s.exclMin == nil && s.exclMax == nil && s.multipleOf == nil {
		return
	}
	q, ok := parseDecimal(string(x))
	if !ok {
		return
	}
	if s.minimum != nil && q.cmp(*s.minimum) < 0 {
		report("must be >= %s but found %s", s.minimum, x)
	}
	if s.maximum != nil && q.cmp(*s.maximum) > 0 {
		report("must be <= %s but found %s", s.maximum, x)
	}
	if s.exclMin != nil && q.cmp(*s.exclMin) <= 0 {
		report("must be > %s but found %s", s.exclMin, x)
	}
	if s.exclMax != nil && q.cmp(*s.exclMax) >= 0 {
		report("must be < %s but found %s", s.exclMax, x)
	}
	if s.multipleOf != nil && !isMultiple(q, *s.multipleOf) {
		report("must be a multiple of %s but found %s", s.multipleOf, x)
	}
}

// isMultiple reports whether q is a multiple of m. Numbers too large or too precise
// to divide exactly are reported as not multiples: such an argument is refused.
func isMultiple(q, m decimal) bool {
	if q.sign() == 0 {
		return true
	}
	a, ok1 := q.rat()
	b, ok2 := m.rat()
	return ok1 && ok2 && new(big.Rat).Quo(a, b).IsInt()
}

func (s *Schema) checkObject(x map[string]any, path []string, out *[]string, report func(string, ...any)) {
	var missing []string
	for _, name := range s.required {
		if _, ok := x[name]; !ok {
			missing = append(missing, "'"+name+"'")
		}
	}
	if len(missing) == 1 {
		report("missing property %s", missing[0])
	} else if len(missing) > 1 {
		report("missing properties %s", strings.Join(missing, ", "))
	}
	if s.minProps != nil && len(x) < *s.minProps {
		report("needs at least %d properties, got %d", *s.minProps, len(x))
	}
	if s.maxProps != nil && len(x) > *s.maxProps {
		report("takes at most %d properties, got %d", *s.maxProps, len(x))
	}
	var extra []string
	for name, pv := range x {
		if ps, ok := s.props[name]; ok {
			ps.check(pv, append(slices.Clip(path), name), out)
			continue
		}
		if s.additional == nil {
			continue
		}
		if s.additional.never {
			extra = append(extra, name)
			continue
		}
		s.additional.check(pv, append(slices.Clip(path), name), out)
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		msg := "unknown propert"
		if len(extra) == 1 {
			msg += "y '" + extra[0] + "'"
		} else {
			msg += "ies '" + strings.Join(extra, "', '") + "'"
		}
		if len(s.propOrder) > 0 {
			msg += " (allowed: " + strings.Join(s.propOrder, ", ") + ")"
		}
		report("%s", msg)
	}
}

// hasType reports whether v is of the JSON Schema type t.
func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		d, ok := parseDecimal(string(n))
		return ok && d.isInt()
	}
	return false
}

func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		if hasType(x, "integer") {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares two decoded JSON values as JSON Schema does: numbers by value.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		p, ok1 := parseDecimal(string(x))
		q, ok2 := parseDecimal(string(y))
		return ok1 && ok2 && p.cmp(q) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func listValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// FieldPath renders the location of a value inside the arguments as a field path a
// model reads easily: field "a.b[2].c".
func FieldPath(loc []string) string {
	var b strings.Builder
	for i, p := range loc {
		if p != "" && strings.Trim(p, "0123456789") == "" && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return fmt.Sprintf("field %q", b.String())
}
