package argschema

import (
	"cmp"
	"math/big"
	"strconv"
	"strings"
)

// decimal is a JSON number held exactly as its digits and exponent: value =
// ±0.digits × 10^exp, digits without leading or trailing zeros ("" for zero). Argument
// validation compares numbers this way, in time linear in their length: exact
// arithmetic on the number as written (big.Rat) takes seconds for one argument such as
// 1e9999999, which a 4 MiB request could repeat thousands of times.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExactExponent bounds the numbers multipleOf divides exactly.
const maxExactExponent = 400

// parseDecimal parses a JSON number literal.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expPart := s, ""
	i := strings.IndexAny(s, "eE")
	if i >= 0 {
		mant, expPart = s[:i], s[i+1:]
	}
	var e int64
	if i >= 0 {
		neg := strings.HasPrefix(expPart, "-")
		digits := strings.TrimLeft(expPart, "+-")
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return d, false
		}
		// Saturate: an exponent beyond ±2^50 orders the same as ±2^50.
		for _, c := range digits {
			if e = e*10 + int64(c-'0'); e > 1<<50 {
				e = 1 << 50
				break
			}
		}
		if neg {
			e = -e
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return d, false
	}
	all := intPart + frac
	point := int64(len(intPart))
	trimmed := strings.TrimLeft(all, "0")
	point -= int64(len(all) - len(trimmed))
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return decimal{}, true // zero, whatever its sign
	}
	d.digits, d.exp = trimmed, point+e
	return d, true
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp returns -1, 0 or 1 as d is less than, equal to or greater than o.
func (d decimal) cmp(o decimal) int {
	if a, b := d.sign(), o.sign(); a != b || a == 0 {
		return cmp.Compare(a, b)
	}
	c := 0
	switch {
	case d.exp != o.exp:
		c = cmp.Compare(d.exp, o.exp)
	default:
		c = strings.Compare(d.digits, o.digits)
	}
	if d.neg {
		return -c
	}
	return c
}

// isInt reports whether d has no fractional part.
func (d decimal) isInt() bool { return d.digits == "" || d.exp >= int64(len(d.digits)) }

// rat is d as an exact fraction, when its exponent is small enough to compute.
func (d decimal) rat() (*big.Rat, bool) {
	if d.exp > maxExactExponent || d.exp < -maxExactExponent || len(d.digits) > maxExactExponent {
		return nil, false
	}
	s := "0"
	if d.digits != "" {
		s = "0." + d.digits + "e" + strconv.FormatInt(d.exp, 10)
		if d.neg {
			s = "-" + s
		}
	}
	return new(big.Rat).SetString(s)
}

// String renders d for messages.
func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	if r, ok := d.rat(); ok {
		return r.RatString()
	}
	s := d.digits[:1] + "." + d.digits[1:] + "e" + strconv.FormatInt(d.exp-1, 10)
	if len(d.digits) == 1 {
		s = d.digits + "e" + strconv.FormatInt(d.exp-1, 10)
	}
	if d.neg {
		return "-" + s
	}
	return s
}
