package mcpkit

// ServerTool is one row of a server's tool table: a tool and its typed handler, made
// by [NewServerTool] and registered by [Server.AddTools]. A server lists its tools as
// a []ServerTool in tools/list order, with the dependencies its handlers need bound
// in, so the table reads as the server's catalog and one call registers it:
//
//	func tools(db *DB) []mcpkit.ServerTool {
//		return []mcpkit.ServerTool{
//			mcpkit.NewServerTool(&mcpkit.Tool{Name: "query", Description: "…", Annotations: mcpkit.ReadOnly()}, db.query),
//			mcpkit.NewServerTool(&mcpkit.Tool{Name: "execute", Description: "…"}, db.execute),
//		}
//	}
//
//	s.AddTools(tools(db)...)
type ServerTool struct {
	// Tool is the tool as the table declares it ([AddTool] generates the schemas it
	// leaves empty): its name and annotations let a server select rows before
	// registering them.
	Tool *Tool
	add  func(*Server)
}

// NewServerTool makes the table row that registers h as [AddTool] does.
func NewServerTool[In, Out any](t *Tool, h ToolHandlerFor[In, Out]) ServerTool {
	return ServerTool{Tool: t, add: func(s *Server) { AddTool(s, t, h) }}
}

// AddTools registers the rows of a tool table in order, each as [AddTool] does: on a
// ReadOnly server, the rows whose tool is not marked read-only are left out.
func (s *Server) AddTools(tools ...ServerTool) {
	for _, st := range tools {
		if st.add == nil {
			panic("mcpkit: AddTools: a ServerTool not made by NewServerTool")
		}
		st.add(s)
	}
}
