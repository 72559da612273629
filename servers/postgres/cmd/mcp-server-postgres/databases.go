package main

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpkit/reference/servers/postgres"
)

// listFlag is a repeatable flag. A value holding newlines (the environment form) is
// several values, one a line; blank lines are skipped.
type listFlag []string

func (l *listFlag) String() string { return "" } // never print a URL, which may hold a password

func (l *listFlag) Set(v string) error {
	for _, line := range strings.Split(v, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			*l = append(*l, line)
		}
	}
	return nil
}

// entry is one database to serve.
type entry struct {
	name, url, description string
	isDefault              bool
}

// named prefixes an error with the database's name when there are several.
func (e entry) named(err error) error {
	if e.name == "" {
		return err
	}
	return fmt.Errorf("database %s: %w", e.name, err)
}

// databaseEntries is the databases to serve: the DATABASE_URL one (the default,
// named after its database) and every --database NAME=URL, each with its
// --describe-database text. Errors never quote a URL.
func databaseEntries(defaultURL string, more, descriptions []string) ([]entry, error) {
	var out []entry
	seen := map[string]bool{}
	for _, m := range more {
		name, url, ok := strings.Cut(m, "=")
		name = strings.TrimSpace(name)
		if !ok || strings.TrimSpace(url) == "" {
			return nil, fmt.Errorf("--database %s…: expected NAME=URL, e.g. staging=postgres://mcp_reader@staging:5432/app (the URL is not shown, as it may hold a password)", firstWord(name))
		}
		if err := postgres.CheckDatabaseName(name); err != nil {
			return nil, fmt.Errorf("--database: %w", err)
		}
		if seen[name] {
			return nil, fmt.Errorf("--database: %q is given twice", name)
		}
		seen[name] = true
		out = append(out, entry{name: name, url: strings.TrimSpace(url)})
	}
	if defaultURL != "" {
		name := ""
		if len(out) > 0 {
			name = defaultName(defaultURL)
			if seen[name] {
				return nil, fmt.Errorf("the DATABASE_URL database is named %q (its database name), which a --database also uses: rename that one", name)
			}
		}
		out = append([]entry{{name: name, url: defaultURL, isDefault: true}}, out...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no database: pass the database URL as the argument or in the DATABASE_URL environment variable, " +
			"e.g. postgres://mcp_reader@localhost:5432/mydb (password in PGPASSWORD or ~/.pgpass), or --database NAME=URL")
	}
	if len(out) == 1 {
		out[0].name = "" // one database: served exactly as without names
	}
	for _, d := range descriptions {
		name, text, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		i := -1
		for j := range out {
			if out[j].name == name {
				i = j
			}
		}
		switch {
		case !ok:
			return nil, fmt.Errorf("--describe-database %q: expected NAME=one-line description", d)
		case len(out) == 1:
			return nil, fmt.Errorf("--describe-database %s: descriptions are for a server with several databases (--database NAME=URL)", name)
		case i < 0:
			return nil, fmt.Errorf("--describe-database %s: no database has that name (names: %s)", name, namesOf(out))
		}
		out[i].description = strings.TrimSpace(text)
	}
	return out, nil
}

// defaultName is the name the DATABASE_URL database is served under beside others:
// its database name when that is a valid name, else "default".
func defaultName(url string) string {
	if name, err := pgconnParse(url); err == nil && postgres.CheckDatabaseName(name) == nil {
		return name
	}
	return "default"
}

func namesOf(es []entry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.name
	}
	return strings.Join(names, ", ")
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " :/@"); i >= 0 {
		return s[:i]
	}
	return s
}

// pgconnParse is the database name a connection string names.
func pgconnParse(url string) (string, error) {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "", err
	}
	return cfg.Database, nil
}
