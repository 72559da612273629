package postgres

import (
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestPickDatabase: the handlers' own check (behind the schema's enum and required),
// for a call that names no database or one not served, says which are.
func TestPickDatabase(t *testing.T) {
	a, b := &DB{}, &DB{}
	ds, err := newDatabases([]NamedDB{{Name: "a", DB: a}, {Name: "b", DB: b}}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"", "database is required: this server has several and no default; pass one of a, b"},
		{"c", `database "c" is not served here: pass one of a, b`},
	} {
		if _, err := ds.pick(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("pick(%q) = %v; want %q", tc.name, err, tc.want)
		}
	}
	if got, err := ds.db("b"); err != nil || got != b {
		t.Errorf("db(b) = %p, %v; want %p", got, err, b)
	}
	for _, bad := range []struct {
		list []NamedDB
		def  string
		want string
	}{
		{[]NamedDB{{Name: "a", DB: a}, {Name: "a", DB: b}}, "", `"a" is named twice`},
		{[]NamedDB{{Name: "a", DB: a}, {Name: "b b", DB: b}}, "", `database name "b b" is not valid`},
		{[]NamedDB{{Name: "a", DB: a}, {Name: "b", DB: b}}, "c", `default database "c" is not one of a, b`},
		{nil, "", "no database"},
	} {
		if _, err := newDatabases(bad.list, bad.def); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("newDatabases(%v, %q) = %v; want %q", bad.list, bad.def, err, bad.want)
		}
	}
}

// TestWithDatabaseArg: the database argument joins a tool's schema (an enum of the
// names, required without a default), and the rest of the schema is kept, < > &
// unescaped.
func TestWithDatabaseArg(t *testing.T) {
	ds, err := newDatabases([]NamedDB{{Name: "a", DB: &DB{}}, {Name: "b", DB: &DB{}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ds.withDatabaseArg([]byte(`{"properties":{"x":{"type":"string","description":"a < b & c"}},"additionalProperties":false,"type":"object","required":["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"database":{"enum":["a","b"],"type":"string"},"x":{"description":"a < b & c","type":"string"}},"required":["x","database"],"type":"object"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	ds.def = &ds.list[0]
	got, _ = ds.withDatabaseArg(noArgsSchema)
	if want := `{"additionalProperties":false,"properties":{"database":{"enum":["a","b"],"type":"string"}},"type":"object"}`; string(got) != want {
		t.Errorf("with a default: %s\nwant %s", got, want)
	}
}

// TestMultiArgumentsExplained: with several databases, every argument (database
// included, which has no description of its own) is explained where the model reads
// it: the instructions name the databases and say every tool takes database.
func TestMultiArgumentsExplained(t *testing.T) {
	var list []NamedDB
	for _, name := range []string{"app", "staging"} {
		db, err := prepare("postgres://nobody@/"+name+"?host=/nonexistent-dir", Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		list = append(list, NamedDB{Name: name, Description: name + " data", DB: db})
	}
	for _, writes := range []bool{false, true} {
		s, err := NewMulti(Config{AllowWrites: writes, Logger: quietLogger()}, list, "")
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := newDatabases(list, "")
		mcpkittest.CheckArgumentsExplained(t, s.Tools(), multiInstructions(ds, writes, true), nil)
	}
}
