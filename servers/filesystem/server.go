package filesystem

import (
	"log/slog"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Config is what mcp-server-filesystem is started with besides its directories.
type Config struct {
	// AllowWrites registers write_file, edit_file, create_directory and move_file.
	// Without it the server is read-only: those tools do not exist at all.
	AllowWrites bool
	// NoConfirm writes without asking the user (--no-confirm): for unattended agents
	// whose host already confirms each call. Without it, write_file over an existing
	// file, edit_file and move_file onto an existing file ask first (confirm.go).
	NoConfirm bool
	// Logger receives the server's own logs (stderr in the binary); nil uses the
	// mcpkit default.
	Logger *slog.Logger
}

// serverName is the serverInfo name and the binary's name.
const serverName = "mcp-server-filesystem"

// instructions tell the model how the tools fit together; the per-tool descriptions
// carry the details.
const instructions = `Confined access to local directories. Every path is absolute inside an allowed directory or relative to the first one; call list_allowed_directories when unsure where files are. Find files by name with search_files and text inside files with search_file_contents; read with read_text_file (line ranges, head, tail) or read_multiple_files. Results are bounded: when a result says truncated, its hint says how to get the rest.`

// New builds the MCP server over roots: the read tools, the write tools only when
// cfg.AllowWrites (without it the server is ReadOnly, which leaves out every tool not
// marked read-only), and every file under the roots as a resource (a paginated list
// and the file:///{+path} template). The caller owns roots and closes them after
// serving; change notifications start separately with WatchChanges.
func New(cfg Config, roots *Roots) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: serverName, Version: mcpkit.Version}, &mcpkit.ServerOptions{
		Instructions: instructions,
		Logger:       cfg.Logger,
		ReadOnly:     !cfg.AllowWrites,
		NoConfirm:    cfg.NoConfirm,
		WriteScope:   writeScope,
	})
	a := &access{roots: roots}
	s.AddTools(tools(a, !cfg.NoConfirm)...)
	addResources(s, a)
	return s
}
