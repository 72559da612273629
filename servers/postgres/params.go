package postgres

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxParams is the wire protocol's limit on parameters in one statement.
const maxParams = 65535

// encodeParams turns positional params (as decoded from JSON, or plain Go values) into
// text values for $1, $2, …. Their types are left to PostgreSQL, which infers each
// from where its placeholder is used; `$1::int` makes it explicit. The mapping:
// null → NULL; strings as they are; numbers and booleans as their text; arrays →
// PostgreSQL array literals ('{1,2}', for `= ANY($1)`); objects → JSON text (for json
// and jsonb). To pass a JSON array to a json or jsonb placeholder, pass it as a string.
func encodeParams(params []any) ([][]byte, error) {
	if len(params) > maxParams {
		return nil, fmt.Errorf("too many params: %d given, PostgreSQL accepts at most %d", len(params), maxParams)
	}
	if len(params) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(params))
	for i, p := range params {
		if p == nil {
			continue
		}
		s, err := paramText(p, false)
		if err != nil {
			return nil, fmt.Errorf("param $%d: %w", i+1, err)
		}
		out[i] = []byte(s)
	}
	return out, nil
}

// paramText renders one non-nil value. inArray is set for array elements, where
// strings must be quoted.
func paramText(p any, inArray bool) (string, error) {
	var s string
	quote := false // array elements: strings and JSON objects are quoted, numbers and booleans not
	switch v := p.(type) {
	case string:
		s, quote = v, true
	case bool:
		s = strconv.FormatBool(v)
	case json.Number:
		s = v.String()
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("%v is not a JSON number; pass \"NaN\" or \"Infinity\" as a string", v)
		}
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			s = strconv.FormatFloat(v, 'f', -1, 64)
		} else {
			s = strconv.FormatFloat(v, 'g', -1, 64)
		}
	case float32:
		return paramText(float64(v), inArray)
	case int:
		s = strconv.Itoa(v)
	case int32:
		s = strconv.FormatInt(int64(v), 10)
	case int64:
		s = strconv.FormatInt(v, 10)
	case []any:
		return arrayLiteral(v)
	case []string:
		a := make([]any, len(v))
		for i := range v {
			a[i] = v[i]
		}
		return arrayLiteral(a)
	case map[string]any:
		b, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		s, quote = string(b), true
	default:
		return "", fmt.Errorf("unsupported value of type %T; pass a string, number, boolean, null, array or object", p)
	}
	if inArray && quote {
		return quoteArrayElement(s), nil
	}
	return s, nil
}

// arrayLiteral renders a PostgreSQL array literal, nesting for sub-arrays.
func arrayLiteral(elems []any) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("NULL")
			continue
		}
		s, err := paramText(e, true)
		if err != nil {
			return "", fmt.Errorf("array element %d: %w", i+1, err)
		}
		b.WriteString(s)
	}
	b.WriteByte('}')
	return b.String(), nil
}

// quoteArrayElement double-quotes an element, escaping quotes and backslashes, so that
// commas, braces, spaces and the word NULL stay literal. (Nested arrays never get here:
// paramText renders them itself.)
func quoteArrayElement(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
