package argschema

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func TestDecimalOrdersLikeExactArithmetic(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "1", "1.0", "10", "1e1", "100", "1E2", "0.5", "5e-1", "-0.5", "0.25", "2.5e-1",
		"9007199254740993", "9007199254740994", "-3", "-30e-1", "123.456", "1234.56e-1", "0.000001", "1e-6", "7e+0", "12345678901234567890"}
	for _, a := range nums {
		for _, b := range nums {
			da, ok1 := parseDecimal(a)
			db, ok2 := parseDecimal(b)
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			if !ok1 || !ok2 {
				t.Fatalf("parse %q or %q failed", a, b)
			}
			if got, want := da.cmp(db), ra.Cmp(rb); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
		d, _ := parseDecimal(a)
		r, _ := new(big.Rat).SetString(a)
		if d.isInt() != r.IsInt() {
			t.Errorf("isInt(%s) = %v, want %v", a, d.isInt(), r.IsInt())
		}
	}
}

// Numbers whose exact value is astronomically large or small are ordered, compared and
// checked for being integers from their digits alone, so one argument cannot make the
// validator compute a number with millions of digits.
func TestArgSchemaHugeExponents(t *testing.T) {
	c, err := Compile(json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer","maximum":10},"f":{"type":"number","exclusiveMinimum":0},
		"e":{"enum":[100]},"m":{"type":"number","multipleOf":0.5},
		"l":{"type":"array","items":{"type":"number","minimum":-1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := c.Validate
	many := "[" + strings.TrimSuffix(strings.Repeat("1e99999999,", 20000), ",") + "]"
	tests := []struct{ args, wantErr string }{
		{`{"n":1e99999999}`, "must be <= 10 but found 1e99999999"},
		{`{"n":-1e99999999}`, ""},
		{`{"n":1e999999999999999999999}`, "must be <= 10"},
		{`{"n":1.5e-99999999}`, "got number, want integer"},
		{`{"f":1e-99999999}`, ""},
		{`{"f":-1e-99999999}`, "must be > 0"},
		{`{"e":1e2}`, ""},
		{`{"e":100.000}`, ""},
		{`{"e":1e999999}`, "value must be one of 100"},
		{`{"m":1e99999999}`, "must be a multiple of 1/2"}, // too large to divide exactly: refused
		{`{"m":2.5}`, ""},
		{`{"l":` + many + `}`, ""},
	}
	for _, tt := range tests {
		got := v(json.RawMessage(tt.args))
		if (tt.wantErr == "") != (got == "") || !strings.Contains(got, tt.wantErr) {
			t.Errorf("%.60s: got %q, want %q", tt.args, got, tt.wantErr)
		}
	}
}
