package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sdkEventOptions compare decoded events: the reflective decoder makes [] an empty
// non-nil slice where the fast one may leave nil, which nothing downstream tells apart.
var sdkEventOptions = cmp.Options{cmp.AllowUnexported(event.FlexBool{}, event.FlexTime{}, event.Pair{}), cmpopts.EquateEmpty()}

// checkDecodeAgrees fails when the fast decoder takes a payload and decodes it other
// than the reflective decoder does (or takes one the reflective decoder refuses). It
// reports whether the fast decoder took the payload.
func checkDecodeAgrees(t testing.TB, payload []byte) bool {
	t.Helper()
	fast, ok := decodeSDKEvent(payload)
	ref, err := decodeSDKEventReflect(payload)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("fast decoder took %q, which the reflective decoder refuses: %v", payload, err)
	}
	if diff := cmp.Diff(ref, fast, sdkEventOptions); diff != "" {
		t.Fatalf("decoding %q (-reflective +fast):\n%s", payload, diff)
	}
	return true
}

// decodeShapes are the values the templates are filled with: every JSON shape, and
// strings that need unescaping, hold other scripts, or are not valid.
var decodeShapes = []string{
	`null`, `"plain"`, `""`, `"tab\there \"quoted\" \\ \/ \b\f\n\r"`, `"caf\u00e9 \u2028 \ud83d\ude00"`, `"日本語 ✓"`,
	`"\ud83d"`, `"\udc00x"`, `"\u00"`, `"\x"`, "\"bad \xff utf8\"", "\"ctl \x01\"", `12`, `-0`, `-1.5e3`, `1e400`, `0.1`,
	`1777636800.25`, `"1777636800"`, `"2026-05-01T11:59:59Z"`, `"2026-05-01 11:59:59.5"`, `true`, `false`, `"True"`, `"yes"`, `"0"`,
	`{}`, `{"a": 1, "b": [true, null, "x"]}`, `{"values": [{"type": "E"}]}`, `[]`, `["a", "b"]`, `[["k", "v"], ["k2", 2]]`,
	`[null]`, `[{}]`, `[{"type": "E", "value": "v"}]`, `{"frames": [{"function": "f", "in_app": true}]}`,
	`{"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}`, `01`, `1.`, `.5`, `-`, `tru`, `nul`, `{"a" 1}`, `[1,]`, `{"a":1,}`,
}

// decodeShapesReflective are the shapes the fast decoder leaves to the reflective one
// although they are valid: strings it would have to repair (U+FFFD for a byte that is
// not UTF-8 or a lone surrogate).
var decodeShapesReflective = map[string]bool{`"\ud83d"`: true, `"\udc00x"`: true, "\"bad \xff utf8\"": true}

func TestDecodeSDKEventAgreesOnShapes(t *testing.T) {
	for _, tmpl := range errorstest.DecodeFieldTemplates {
		n := strings.Count(tmpl, "%s")
		for _, shape := range decodeShapes {
			args := make([]any, n)
			for i := range args {
				args[i] = shape
			}
			payload := []byte(fmt.Sprintf(tmpl, args...))
			taken := checkDecodeAgrees(t, payload)
			if _, err := decodeSDKEventReflect(payload); err == nil && !taken && !decodeShapesReflective[shape] {
				t.Errorf("the fast decoder left %s to the reflective one", payload)
			}
		}
	}
}

func TestDecodeSDKEventAgreesOnOddPayloads(t *testing.T) {
	cases := []struct {
		name, in string
		fast     bool // whether the fast decoder takes it
	}{
		{"empty object", `{}`, true},
		{"whitespace everywhere", " {\n\t\"level\" :\r \"info\" , \"tags\" : { \"a\" : \"b\" } } \n", true},
		{"unknown key in another case", `{"Modules": {}, "LEVELS": 1}`, true},
		{"field in another case", `{"Level": "info"}`, false},
		{"field in upper case after the field", `{"level": "info", "LEVEL": "debug"}`, false},
		{"nested field in another case", `{"exception": [{"Type": "E"}]}`, false},
		{"values in another case", `{"exception": {"Values": [{"type": "E"}]}}`, false},
		{"non-ASCII unknown key", `{"lévél": 1}`, false},
		{"escaped field name", `{"lev\u0065l": "info"}`, true},
		{"repeated field", `{"level": "info", "level": "debug"}`, false},
		{"repeated nested field", `{"user": {"id": 1}, "user": {"email": "a@b"}}`, false},
		{"repeated tag", `{"tags": {"a": "1", "a": "2"}}`, false},
		{"repeated map key", `{"extra": {"a": 1, "a": 2}}`, true},
		{"trailing garbage", `{"level": "info"} x`, false},
		{"second object", `{}{}`, false},
		{"unterminated", `{"level": "info"`, false},
		{"deep unknown value", `{"x": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, false},
		{"not an object", `[1]`, false},
		{"wrong shape of struct field", `{"user": "ann"}`, false},
		{"wrong shape of list", `{"exception": "a string"}`, false},
		{"wrong shape of values", `{"breadcrumbs": {"values": 3}}`, false},
		{"wrong shape of map", `{"extra": [1]}`, false},
		{"pair list with odd elements", `{"tags": [["a"], ["b", "c", "d"], "e", 5, null, {"f": "g"}, ["h", "i"]]}`, true},
		{"big number in a map", `{"extra": {"n": 1e400}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkDecodeAgrees(t, []byte(tc.in)); got != tc.fast {
				t.Errorf("fast decoder took it: %v, want %v", got, tc.fast)
			}
		})
	}
}

// TestDecodeSDKEventTakesSentryGo makes sure what sentry-go sends takes the fast way
// (and decodes to the same event).
func TestDecodeSDKEventTakesSentryGo(t *testing.T) {
	bodies, _ := errorstest.CaptureEnvelopes(t)
	for i, body := range bodies {
		env, err := ParseEnvelope(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range env.Items {
			if item.Type == "event" && !checkDecodeAgrees(t, item.Payload) {
				t.Errorf("envelope %d: the fast decoder did not take sentry-go's event", i)
			}
		}
	}
}

// FuzzDecodeSDKEvent checks that the fast decoder, whenever it takes a payload,
// decodes it as the reflective decoder does: go test -fuzz FuzzDecodeSDKEvent.
func FuzzDecodeSDKEvent(f *testing.F) {
	for _, tmpl := range errorstest.DecodeFieldTemplates {
		for _, shape := range decodeShapes {
			args := make([]any, strings.Count(tmpl, "%s"))
			for i := range args {
				args[i] = shape
			}
			f.Add([]byte(fmt.Sprintf(tmpl, args...)))
		}
	}
	bodies, _ := errorstest.CaptureEnvelopes(f)
	for _, body := range bodies {
		if env, err := ParseEnvelope(body); err == nil {
			for _, item := range env.Items {
				f.Add(item.Payload)
			}
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		checkDecodeAgrees(t, payload)
	})
}
