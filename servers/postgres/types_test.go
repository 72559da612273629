package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

// typeColumns is the type round-trip fixture: each column's definition and the value
// stored in the first row; a second row is NULL in every column.
var typeColumns = []struct{ name, def, value string }{
	{"i2", "int2", "-32768"},
	{"i4", "int4", "2147483647"},
	{"i8", "int8", "9007199254740991"},
	{"i8big", "int8", "9223372036854775807"},
	{"num", "numeric", "123456789012345678901234567890.123456789012345678901234567890"},
	{"numnan", "numeric", "'NaN'"},
	{"numinf", "numeric", "'Infinity'"},
	{"f4", "float4", "0.1"},
	{"f8", "float8", "1e100"},
	{"f8nan", "float8", "'NaN'"},
	{"f8inf", "float8", "'Infinity'"},
	{"f8ninf", "float8", "'-Infinity'"},
	{"b", "bool", "true"},
	{"t", "text", "E'line1\\nline2 \"quoted\" ☃'"},
	{"vc", "varchar(10)", "'short'"},
	{"ch", "char(5)", "'ab'"},
	{"u", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"},
	{"d", "date", "'2024-02-29'"},
	{"dinf", "date", "'infinity'"},
	{"tm", "time", "'04:05:06.789'"},
	{"ttz", "timetz", "'04:05:06+02'"},
	{"ts", "timestamp", "'2024-01-02 03:04:05.123456'"},
	{"tsinf", "timestamp", "'-infinity'"},
	{"tsbc", "timestamp", "'0044-03-15 12:00:00 BC'"},
	{"tstz", "timestamptz", "'2024-01-02 03:04:05.5+00'"},
	{"tstzlmt", "timestamptz", "'1800-01-01 00:00:00+00'"},
	{"iv", "interval", "'1 year 2 months 3 days 04:05:06.5'"},
	{"by", "bytea", "'\\x00ff10'"},
	{"j", "json", `'{"b": 1,  "a": [1, 2.50]}'`},
	{"jb", "jsonb", `'{"b": 1, "a": [1, 2.50]}'`},
	{"ia", "int[]", "'{1,2,NULL}'"},
	{"ia2", "int[]", "'{{1,2},{3,4}}'"},
	{"ta", "text[]", `'{"a b",NULL,"c\"d","NULL",""}'`},
	{"na", "numeric[]", "'{1.10,NaN}'"},
	{"tsa", "timestamptz[]", "ARRAY['2024-01-02 03:04:05+00'::timestamptz]"},
	{"jba", "jsonb[]", `ARRAY['{"k": [true, null]}'::jsonb]`},
	{"ba", "bytea[]", "ARRAY['\\x0102'::bytea]"},
	{"ip", "inet", "'192.168.0.1'"},
	{"net", "cidr", "'10.0.0.0/8'"},
	{"mac", "macaddr", "'08:00:2b:01:02:03'"},
	{"m", "money", "1234.56"},
	{"e", "mood", "'happy'"},
	{"ea", "mood[]", "'{sad,ok}'"},
	{"r", "int4range", "'[1,5)'"},
	{"pt", "point", "'(1,2)'"},
}

// wantTypes is what a model sees for each column: its type name and the JSON of the
// stored value. The database's TimeZone is Asia/Kolkata (+05:30) so that offsets are
// exercised; the 1800 timestamp there has a local-mean-time offset with seconds.
var wantTypes = map[string][2]string{
	"i2":      {"int2", `-32768`},
	"i4":      {"int4", `2147483647`},
	"i8":      {"int8", `9007199254740991`},
	"i8big":   {"int8", `"9223372036854775807"`},
	"num":     {"numeric", `"123456789012345678901234567890.123456789012345678901234567890"`},
	"numnan":  {"numeric", `"NaN"`},
	"numinf":  {"numeric", `"Infinity"`},
	"f4":      {"float4", `0.1`},
	"f8":      {"float8", `1e+100`},
	"f8nan":   {"float8", `"NaN"`},
	"f8inf":   {"float8", `"Infinity"`},
	"f8ninf":  {"float8", `"-Infinity"`},
	"b":       {"bool", `true`},
	"t":       {"text", `"line1\nline2 \"quoted\" ☃"`},
	"vc":      {"varchar", `"short"`},
	"ch":      {"bpchar", `"ab   "`},
	"u":       {"uuid", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`},
	"d":       {"date", `"2024-02-29"`},
	"dinf":    {"date", `"infinity"`},
	"tm":      {"time", `"04:05:06.789"`},
	"ttz":     {"timetz", `"04:05:06+02"`},
	"ts":      {"timestamp", `"2024-01-02T03:04:05.123456"`},
	"tsinf":   {"timestamp", `"-infinity"`},
	"tsbc":    {"timestamp", `"0044-03-15 12:00:00 BC"`},
	"tstz":    {"timestamptz", `"2024-01-02T08:34:05.5+05:30"`},
	"tstzlmt": {"timestamptz", `"1800-01-01T00:00:00Z"`},
	"iv":      {"interval", `"1 year 2 mons 3 days 04:05:06.5"`},
	"by":      {"bytea", `"AP8Q"`},
	"j":       {"json", `{"b":1,"a":[1,2.50]}`},
	"jb":      {"jsonb", `{"a":[1,2.50],"b":1}`},
	"ia":      {"int4[]", `[1,2,null]`},
	"ia2":     {"int4[]", `[[1,2],[3,4]]`},
	"ta":      {"text[]", `["a b",null,"c\"d","NULL",""]`},
	"na":      {"numeric[]", `["1.10","NaN"]`},
	"tsa":     {"timestamptz[]", `["2024-01-02T08:34:05+05:30"]`},
	"jba":     {"jsonb[]", `[{"k":[true,null]}]`},
	"ba":      {"bytea[]", `["AQI="]`},
	"ip":      {"inet", `"192.168.0.1"`},
	"net":     {"cidr", `"10.0.0.0/8"`},
	"mac":     {"macaddr", `"08:00:2b:01:02:03"`},
	"m":       {"money", `"$1,234.56"`},
	"e":       {"mood", `"happy"`},
	"ea":      {"mood[]", `["sad","ok"]`},
	"r":       {"int4range", `"[1,5)"`},
	"pt":      {"point", `"(1,2)"`},
}

// TestTypeRoundTrip stores a value of every common type and checks the exact JSON a
// query returns for it, and that NULL of every type is JSON null.
func TestTypeRoundTrip(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	var defs, names, values []string
	for _, c := range typeColumns {
		defs = append(defs, c.name+" "+c.def)
		names = append(names, c.name)
		values = append(values, c.value)
	}
	d.Exec(t, `ALTER DATABASE `+d.Name+` SET timezone = 'Asia/Kolkata';
ALTER DATABASE `+d.Name+` SET lc_monetary = 'C';
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE types (id int, `+strings.Join(defs, ", ")+`);
INSERT INTO types (id, `+strings.Join(names, ", ")+`) VALUES (1, `+strings.Join(values, ", ")+`);
INSERT INTO types (id) VALUES (2);`)
	db := openDB(t, d.URL, Options{})

	res, err := db.Query(context.Background(), "SELECT "+strings.Join(names, ", ")+" FROM types ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != 2 || res.Truncated {
		t.Fatalf("got %d rows (truncated %v), want 2", res.RowCount, res.Truncated)
	}
	got := map[string][2]string{}
	gotNull := map[string]string{}
	wantNull := map[string]string{}
	for i, col := range res.Columns {
		got[col.Name] = [2]string{col.Type, jsonOf(t, res.Rows[0][i])}
		gotNull[col.Name] = jsonOf(t, res.Rows[1][i])
		wantNull[col.Name] = "null"
	}
	if diff := cmp.Diff(wantTypes, got); diff != "" {
		t.Errorf("types and values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNull, gotNull); diff != "" {
		t.Errorf("NULLs (-want +got):\n%s", diff)
	}

	// The whole result is valid JSON and keeps numbers exact when decoded with UseNumber.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var back struct{ Rows [][]any }
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("result is not valid JSON: %v", err)
	}
	if n, ok := back.Rows[0][2].(json.Number); !ok || n.String() != "9007199254740991" {
		t.Errorf("int8 within 2^53 came back as %#v", back.Rows[0][2])
	}
}

// TestRecordAndParams checks values computed in the query (a record, a param echoed
// back through a cast) and that an unknown-typed param can be given a type by a cast.
func TestRecordAndParams(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	db := openDB(t, d.URL, Options{})
	res, err := db.Query(context.Background(),
		"SELECT ROW(1, 'a b'), $1::int8, $2::numeric, $3::text[], $4::jsonb, $5::bool, $6::text IS NULL",
		[]any{json.Number("9007199254740993"), "0.1", []any{"x", nil}, map[string]any{"k": "v"}, true, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := `[["(1,\"a b\")","9007199254740993","0.1",["x",null],{"k":"v"},true,true]]`
	if diff := cmp.Diff(want, jsonOf(t, res.Rows)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantCols := []Column{{"row", "record"}, {"int8", "int8"}, {"numeric", "numeric"}, {"text", "text[]"}, {"jsonb", "jsonb"}, {"bool", "bool"}, {"?column?", "bool"}}
	if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}
