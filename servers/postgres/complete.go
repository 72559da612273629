package postgres

import (
	"context"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// completer suggests schema names for write_query's schema argument and for the
// table resource template's {schema}, and table names for its {table} (within the
// schema already chosen); with several databases, also write_query's database, and
// the schemas and tables of the database the template or the prompt's database
// names. Suggestions are names as they are (case-sensitive) that start with what was
// typed.
func completer(ds *databases) mcpkit.CompletionHandler {
	return func(ctx context.Context, _ *mcpkit.Request, c *mcpkit.CompleteRequest) (*mcpkit.Completion, error) {
		prefix := c.Argument.Value
		db := ds.list[0].DB
		if ds.multi() {
			var d *NamedDB
			if c.Ref.Type == "ref/resource" {
				d = ds.byResourceURI(c.Ref.URI)
			} else {
				d, _ = ds.pick(c.Context.Arguments["database"])
			}
			if d == nil && c.Argument.Name != "database" {
				return &mcpkit.Completion{}, nil // no database chosen yet: nothing to offer
			}
			if d != nil {
				db = d.DB
			}
		}
		var names []string
		switch {
		case c.Argument.Name == "database" && ds.multi():
			names = ds.names()
		case c.Argument.Name == "schema":
			list, err := db.ListSchemas(ctx)
			if err != nil {
				return nil, mcpkit.Errorf(mcpkit.CodeInternalError, "listing schemas: %v", err)
			}
			for _, s := range list.Schemas {
				names = append(names, s.Name)
			}
		case c.Argument.Name == "table" && c.Ref.Type == "ref/resource":
			list, err := db.ListTables(ctx, c.Context.Arguments["schema"])
			if err != nil {
				return &mcpkit.Completion{}, nil // an unknown schema has no tables to offer
			}
			for _, t := range list.Tables {
				names = append(names, t.Name)
			}
		}
		out := []string{}
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
		return &mcpkit.Completion{Values: out, Total: len(out)}, nil // mcpkit keeps the first 100
	}
}
