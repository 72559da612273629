package postgres

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// jsonOf renders v as the model would see it.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

func TestDecoders(t *testing.T) {
	tests := []struct {
		name string
		dec  decoder
		in   string
		want string // JSON
	}{
		{"bool true", decodeBool, "t", `true`},
		{"bool false", decodeBool, "f", `false`},
		{"int4", decodeNumber, "-42", `-42`},
		{"int8 max safe", decodeInt8, "9007199254740991", `9007199254740991`},
		{"int8 min safe", decodeInt8, "-9007199254740991", `-9007199254740991`},
		{"int8 past 2^53 is a string", decodeInt8, "9007199254740992", `"9007199254740992"`},
		{"int8 max", decodeInt8, "9223372036854775807", `"9223372036854775807"`},
		{"int8 below -2^53 is a string", decodeInt8, "-9007199254740993", `"-9007199254740993"`},
		{"float", decodeFloat, "1.5e-05", `1.5e-05`},
		{"float exponent", decodeFloat, "1e+100", `1e+100`},
		{"float NaN", decodeFloat, "NaN", `"NaN"`},
		{"float Infinity", decodeFloat, "Infinity", `"Infinity"`},
		{"float -Infinity", decodeFloat, "-Infinity", `"-Infinity"`},
		{"json kept", decodeJSON, `{"a": [1, 2.50]}`, `{"a":[1,2.50]}`},
		{"invalid json as text", decodeJSON, `{nope`, `"{nope"`},
		{"bytea hex", decodeBytea, `\x00ff10`, `"AP8Q"`},
		{"bytea empty", decodeBytea, `\x`, `""`},
		{"bytea escape format stays text", decodeBytea, `abc\000`, `"abc\\000"`},
		{"timestamp", decodeTimestamp, "2024-01-02 03:04:05.123456", `"2024-01-02T03:04:05.123456"`},
		{"timestamp infinity", decodeTimestamp, "infinity", `"infinity"`},
		{"timestamp BC", decodeTimestamp, "0044-03-15 12:00:00 BC", `"0044-03-15 12:00:00 BC"`},
		{"timestamp year 10000", decodeTimestamp, "10000-01-01 00:00:00", `"10000-01-01 00:00:00"`},
		{"timestamptz hour offset", decodeTimestamptz, "2024-01-02 03:04:05.5+01", `"2024-01-02T03:04:05.5+01:00"`},
		{"timestamptz minute offset", decodeTimestamptz, "2024-01-02 08:34:05+05:30", `"2024-01-02T08:34:05+05:30"`},
		{"timestamptz negative offset", decodeTimestamptz, "2024-01-02 03:04:05-08", `"2024-01-02T03:04:05-08:00"`},
		{"timestamptz UTC", decodeTimestamptz, "2024-01-02 03:04:05+00", `"2024-01-02T03:04:05Z"`},
		{"timestamptz seconds offset to UTC", decodeTimestamptz, "1800-01-01 05:53:28+05:53:28", `"1800-01-01T00:00:00Z"`},
		{"timestamptz -infinity", decodeTimestamptz, "-infinity", `"-infinity"`},
		{"timestamptz BC", decodeTimestamptz, "0044-03-15 12:00:00+00 BC", `"0044-03-15 12:00:00+00 BC"`},
		{"timestamptz other DateStyle", decodeTimestamptz, "01/02/2024 03:04:05 UTC", `"01/02/2024 03:04:05 UTC"`},
		{"int array", arrayDecoder(decodeNumber, ','), "{1,2,NULL}", `[1,2,null]`},
		{"2-d array", arrayDecoder(decodeNumber, ','), "{{1,2},{3,4}}", `[[1,2],[3,4]]`},
		{"array with bounds", arrayDecoder(decodeNumber, ','), "[0:1]={5,6}", `[5,6]`},
		{"empty array", arrayDecoder(decodeNumber, ','), "{}", `[]`},
		{"text array quoting", arrayDecoder(decodeString, ','), `{"a b",NULL,"c\"d","e\\f","NULL",""}`, `["a b",null,"c\"d","e\\f","NULL",""]`},
		{"box array uses ;", arrayDecoder(decodeString, ';'), `{(1,1),(0,0);(2,2),(1,1)}`, `["(1,1),(0,0)","(2,2),(1,1)"]`},
		{"bytea array", arrayDecoder(decodeBytea, ','), `{"\\x0102"}`, `["AQI="]`},
		{"jsonb array", arrayDecoder(decodeJSON, ','), `{"{\"a\": 1}"}`, `[{"a":1}]`},
		{"broken array stays text", arrayDecoder(decodeNumber, ','), `{1,2`, `"{1,2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, jsonOf(t, tt.dec([]byte(tt.in)))); diff != "" {
				t.Errorf("decoding %q (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestEncodeParams(t *testing.T) {
	var nilSlice []byte
	tests := []struct {
		name string
		in   []any
		want [][]byte
		err  string
	}{
		{name: "none", in: nil, want: nil},
		{name: "scalars", in: []any{"x", true, float64(42), 1.5, json.Number("12345678901234567890"), nil, int64(-7)},
			want: [][]byte{[]byte("x"), []byte("true"), []byte("42"), []byte("1.5"), []byte("12345678901234567890"), nilSlice, []byte("-7")}},
		{name: "large integral float has no exponent", in: []any{float64(1e20)}, want: [][]byte{[]byte("100000000000000000000")}},
		{name: "array literal", in: []any{[]any{float64(1), "a,b", nil, `q"\`, "NULL"}},
			want: [][]byte{[]byte(`{1,"a,b",NULL,"q\"\\","NULL"}`)}},
		{name: "nested array", in: []any{[]any{[]any{float64(1), float64(2)}, []any{float64(3), float64(4)}}}, want: [][]byte{[]byte(`{{1,2},{3,4}}`)}},
		{name: "string that looks like an array stays quoted", in: []any{[]any{"{1}"}}, want: [][]byte{[]byte(`{"{1}"}`)}},
		{name: "object as JSON", in: []any{map[string]any{"a": float64(1)}}, want: [][]byte{[]byte(`{"a":1}`)}},
		{name: "unsupported", in: []any{struct{}{}}, err: "param $1: unsupported value of type struct {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeParams(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(texts(tt.want), texts(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := encodeParams(make([]any, maxParams+1)); err == nil || !strings.Contains(err.Error(), "at most 65535") {
		t.Errorf("too many params: got %v", err)
	}
}

func TestPositionExcerpt(t *testing.T) {
	tests := []struct {
		sql  string
		pos  int
		want string
	}{
		{"SELECT * FROM nope", 15, "LINE 1: SELECT * FROM nope\n                      ^"},
		{"SELECT 1,\n  nope", 13, "LINE 2:   nope\n          ^"},
		{"SELECT 'é', nope", 13, "LINE 1: SELECT 'é', nope\n                    ^"},
		{"x", 5, ""},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, positionExcerpt(tt.sql, tt.pos)); diff != "" {
			t.Errorf("positionExcerpt(%q, %d) (-want +got):\n%s", tt.sql, tt.pos, diff)
		}
	}
}

func TestPasswordRedaction(t *testing.T) {
	tests := []struct{ conn, want string }{
		{"postgres://alice:S3cret@host/db", "S3cret"},
		{"postgres://alice:S3c%40ret@host/db", "S3c@ret"},
		{"host=x password=S3cret user=alice", "S3cret"},
		{"host=x password='S3 cret' user=alice", "S3 cret"},
		{"postgres://alice:S3cret@host:notaport/db", "S3cret"},
		{"postgres://alice@host/db", ""},
	}
	for _, tt := range tests {
		if got := passwordOf(tt.conn); got != tt.want {
			t.Errorf("passwordOf(%q) = %q, want %q", tt.conn, got, tt.want)
		}
	}
	if got := redact("url postgres://a:S3c%40ret@h and S3c@ret", "S3c@ret"); strings.Contains(got, "S3c") {
		t.Errorf("redact left the password in: %q", got)
	}
}

func TestCheckExecMode(t *testing.T) {
	for _, m := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		if err := checkExecMode(m); err != nil {
			t.Errorf("mode %v refused: %v", m, err)
		}
	}
	if err := checkExecMode(pgx.QueryExecModeSimpleProtocol); err == nil || !strings.Contains(err.Error(), "simple") {
		t.Errorf("simple protocol: got %v, want a refusal", err)
	}
}

// texts shows encoded params readably; nil (NULL) stays distinct from "".
func texts(b [][]byte) []*string {
	if b == nil {
		return nil
	}
	out := make([]*string, len(b))
	for i, v := range b {
		if v != nil {
			s := string(v)
			out[i] = &s
		}
	}
	return out
}
