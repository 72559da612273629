package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// NamedDB is one database of a server that serves several (NewMulti): the name
// tools, resources and confirmations call it by, a one-line description for the
// model (given by the operator; never the URL), and its DB, which has its own pool,
// read-only check, role check and statement cache.
type NamedDB struct {
	Name        string
	Description string
	DB          *DB
}

// DatabaseInfo is what list_schemas says of one database of a server with several:
// never a URL, host or password.
type DatabaseInfo struct {
	Name        string `json:"name" jsonschema_description:"Name to pass as database"`
	Description string `json:"description,omitempty" jsonschema_description:"What it holds, as the operator described it"`
	Default     bool   `json:"default,omitempty" jsonschema_description:"Used when database is omitted"`
}

// databases is the set a server serves. With one, the server is exactly the
// single-database server: no tool publishes a database argument (its schema would
// cost every session bytes for a choice that does not exist). With several, every tool
// takes database, required when there is no default.
type databases struct {
	list   []NamedDB
	byName map[string]*NamedDB
	def    *NamedDB // nil: database is required
}

// databaseName is what a database may be called: a word a model types without
// quoting, and a URI path segment as it is.
var databaseName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,62}$`)

// CheckDatabaseName says what is wrong with a database name given on the command line.
func CheckDatabaseName(name string) error {
	if !databaseName.MatchString(name) {
		return fmt.Errorf("database name %q is not valid: use a letter, then up to 62 letters, digits, '_' or '-'", name)
	}
	return nil
}

func newDatabases(list []NamedDB, def string) (*databases, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("no database to serve")
	}
	ds := &databases{list: list, byName: make(map[string]*NamedDB, len(list))}
	for i := range list {
		d := &ds.list[i]
		if d.DB == nil {
			return nil, fmt.Errorf("database %q has no DB", d.Name)
		}
		if len(list) > 1 {
			if err := CheckDatabaseName(d.Name); err != nil {
				return nil, err
			}
		}
		if _, dup := ds.byName[d.Name]; dup {
			return nil, fmt.Errorf("database %q is named twice", d.Name)
		}
		// One line, hidden characters shown (never silently dropped), bounded.
		d.Description, _ = mcpkit.ShowHidden(strings.Join(strings.Fields(d.Description), " "))
		d.Description, _ = mcpkit.TruncateText(d.Description, 200)
		ds.byName[d.Name] = d
	}
	switch {
	case len(list) == 1:
		ds.def = &ds.list[0]
	case def != "":
		d, ok := ds.byName[def]
		if !ok {
			return nil, fmt.Errorf("default database %q is not one of %s", def, ds.namesText())
		}
		ds.def = d
	}
	return ds, nil
}

// multi is whether the server serves several databases (and publishes database).
func (ds *databases) multi() bool { return len(ds.list) > 1 }

// pick returns the database a call names, or the default when it names none.
func (ds *databases) pick(name string) (*NamedDB, error) {
	if name == "" {
		if ds.def != nil {
			return ds.def, nil
		}
		return nil, &RejectError{Reason: fmt.Sprintf("database is required: this server has several and no default; pass one of %s (list_schemas describes them)", ds.namesText())}
	}
	if d, ok := ds.byName[name]; ok {
		return d, nil
	}
	return nil, &RejectError{Reason: fmt.Sprintf("database %q is not served here: pass one of %s (names are case-sensitive)", name, ds.namesText())}
}

func (ds *databases) names() []string {
	out := make([]string, len(ds.list))
	for i, d := range ds.list {
		out[i] = d.Name
	}
	return out
}

func (ds *databases) namesText() string { return strings.Join(ds.names(), ", ") }

// infos lists the databases for list_schemas.
func (ds *databases) infos() []DatabaseInfo {
	out := make([]DatabaseInfo, len(ds.list))
	for i, d := range ds.list {
		out[i] = DatabaseInfo{Name: d.Name, Description: d.Description, Default: ds.def == &ds.list[i]}
	}
	return out
}

// instructionsText is the sentence of the instructions that names the databases, once
// for every tool (their database arguments carry no description of their own).
func (ds *databases) instructionsText() string {
	var b strings.Builder
	b.WriteString("This server serves several databases; every tool takes database, one of: ")
	for i, d := range ds.list {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Name)
		if d.Description != "" {
			b.WriteString(" (" + d.Description + ")")
		}
	}
	if ds.def != nil {
		fmt.Fprintf(&b, ". Omitted, it is %s.", ds.def.Name)
	} else {
		b.WriteString(". It is required.")
	}
	return b.String()
}

// dbArg is the database argument every tool input embeds. Its schema is left out of
// the generated input schemas (jsonschema:"-"), so a single-database server publishes
// and accepts exactly what it did before; a server with several adds it to each
// tool's schema (withDatabaseArg).
type dbArg struct {
	Database string `json:"database,omitempty" jsonschema:"-"`
}

// withDatabaseArgs gives every tool of the table the database argument: an enum of
// the names, required when there is no default.
func (ds *databases) withDatabaseArgs(rows []mcpkit.ServerTool) error {
	var table map[string]json.RawMessage
	if err := json.Unmarshal(inputSchemas, &table); err != nil {
		return fmt.Errorf("input schemas: %w", err)
	}
	for _, st := range rows {
		base, ok := table[st.Tool.Name]
		if len(st.Tool.InputSchema) > 0 {
			base, ok = st.Tool.InputSchema, true // a schema the tool sets itself
		}
		if !ok {
			return fmt.Errorf("tool %q has no input schema in input_schemas.json", st.Tool.Name)
		}
		sc, err := ds.withDatabaseArg(base)
		if err != nil {
			return fmt.Errorf("tool %q: %w", st.Tool.Name, err)
		}
		st.Tool.InputSchema = sc
	}
	return nil
}

func (ds *databases) withDatabaseArg(base json.RawMessage) (json.RawMessage, error) {
	var sc map[string]any
	if err := json.Unmarshal(base, &sc); err != nil {
		return nil, err
	}
	props, _ := sc["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["database"] = map[string]any{"type": "string", "enum": ds.names()}
	sc["properties"] = props
	if ds.def == nil {
		req, _ := sc["required"].([]any)
		sc["required"] = append(slices.Clone(req), "database")
	}
	// Encoded without HTML escaping, as the generated schemas are: a description with
	// < > & costs no \u003c escapes.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// db is the DB a call names (see pick).
func (ds *databases) db(name string) (*DB, error) {
	d, err := ds.pick(name)
	if err != nil {
		return nil, err
	}
	return d.DB, nil
}

// nameOf is the name db is served under.
func (ds *databases) nameOf(db *DB) string {
	for _, d := range ds.list {
		if d.DB == db {
			return d.Name
		}
	}
	return db.Target().Database
}
