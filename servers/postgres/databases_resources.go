package postgres

import (
	"context"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// addMultiResources registers each database's overview and table template (URIs
// start postgres://<name>/, the name it is served under) and one lister that pages
// through the tables of every database in turn.
func addMultiResources(s *mcpkit.Server, ds *databases, pageSize int) {
	for _, d := range ds.list {
		addDatabaseResources(s, d.Name, d.DB)
	}
	if pageSize <= 0 {
		pageSize = 100
	}
	s.SetResourceLister(func(ctx context.Context, _ *mcpkit.Request, cursor string) ([]mcpkit.Resource, string, error) {
		var after [3]string // database, schema, table
		if cursor != "" {
			if err := mcpkit.DecodeCursorState(cursor, &after); err != nil {
				return nil, "", err
			}
		}
		start := 0
		if after[0] != "" {
			d, err := ds.pick(after[0])
			if err != nil {
				return nil, "", mcpkit.InvalidParams("cursor names a database this server does not serve")
			}
			start = ds.index(d)
		}
		var out []mcpkit.Resource
		for i := start; i < len(ds.list); i++ {
			d := &ds.list[i]
			schema, table := "", ""
			if i == start {
				schema, table = after[1], after[2]
			}
			page, more, err := tableResources(ctx, d.Name, d.DB, schema, table, pageSize-len(out))
			if err != nil {
				return nil, "", err
			}
			out = append(out, resourcesOf(page)...)
			if more {
				last := page[len(page)-1].table
				return out, mcpkit.EncodeCursorState([3]string{d.Name, last.Schema, last.Name}), nil
			}
			if len(out) >= pageSize && i+1 < len(ds.list) {
				return out, mcpkit.EncodeCursorState([3]string{ds.list[i+1].Name, "", ""}), nil
			}
		}
		if out == nil {
			out = []mcpkit.Resource{}
		}
		return out, "", nil
	})
}

// index is d's position in the list.
func (ds *databases) index(d *NamedDB) int {
	for i := range ds.list {
		if &ds.list[i] == d {
			return i
		}
	}
	return 0
}

// byResourceURI is the database a resource URI (or URI template) belongs to:
// postgres://<name>/…; nil when it names none served here.
func (ds *databases) byResourceURI(uri string) *NamedDB {
	for i := range ds.list {
		d := &ds.list[i]
		if len(uri) > len(resourcePrefix(d.Name)) && uri[:len(resourcePrefix(d.Name))] == resourcePrefix(d.Name) {
			return d
		}
	}
	return nil
}

func resourcePrefix(name string) string {
	return OverviewURI(name)[:len(OverviewURI(name))-len("overview")]
}
