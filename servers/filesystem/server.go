package filesystem

import (
	_ "embed"
	"log/slog"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Config is what mcp-server-filesystem is started with besides its directories.
type Config struct {
	// AllowWrites registers write_file, edit_file, create_directory, move_file,
	// copy_file, delete_file and delete_directory.
	// Without it the server is read-only: those tools do not exist at all.
	AllowWrites bool
	// NoConfirm writes without asking the user (--no-confirm): for unattended agents
	// whose host already confirms each call. Without it, write_file over an existing
	// file, edit_file, move_file and copy_file onto an existing file, delete_file and
	// delete_directory ask first (confirm.go).
	NoConfirm bool
	// OutputSchemas publishes the tools' output schemas, and every result then carries
	// its complete structuredContent (list_directory and directory_tree included, whose
	// text shows less): for programmatic clients that embed this package. Off in the
	// binary, mcpkit's one output policy (docs/context-economy.md).
	OutputSchemas bool
	// Logger receives the server's own logs (stderr in the binary); nil uses the
	// mcpkit default.
	Logger *slog.Logger
}

// serverName is the serverInfo name and the binary's name.
const serverName = "mcp-server-filesystem"

// instructions say once what every tool shares, so the descriptions need not repeat
// it: where paths lead, how a cut result is marked and continued, links, and how
// excludePatterns and respectGitignore read. The per-tool descriptions say when to use
// each tool.
const instructions = `Files in the allowed directories only (list_allowed_directories shows them). ` +
	`A path is absolute inside an allowed directory or relative to the first one; an optional path left out means the first. ` +
	`Symbolic links are never followed out of the allowed directories. ` +
	`Find files by name with search_files and text inside files with search_file_contents; read with read_text_file or read_multiple_files. ` +
	`Results are bounded (maxBytes, maxResults, maxEntries: defaults and limits in the schema): when a result says truncated, its hint says how to get the rest (for a page, pass nextOffset as offset). ` +
	`In excludePatterns a glob without a slash matches names at any depth; respectGitignore (default true) also leaves out what .gitignore files ignore and .git.`

// inputSchemas are the tools' input schemas generated ahead of time from their Go
// types, so a start does not generate them by reflection. TestInputSchemas fails when
// they differ from what the types give; `go generate` rewrites the file.
//
//go:generate go test -run ^TestInputSchemas$ -update .
//go:embed input_schemas.json
var inputSchemas []byte

// New builds the MCP server over roots: the read tools, the write tools only when
// cfg.AllowWrites (without it the server is ReadOnly, which leaves out every tool not
// marked read-only), and every file under the roots as a resource (a paginated list
// and the file:///{+path} template). The caller owns roots and closes them after
// serving; change notifications start separately with WatchChanges.
func New(cfg Config, roots *Roots) *mcpkit.Server {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: serverName, Version: mcpkit.Version}, &mcpkit.ServerOptions{
		Instructions:  instructions,
		Logger:        cfg.Logger,
		ReadOnly:      !cfg.AllowWrites,
		NoConfirm:     cfg.NoConfirm,
		WriteScope:    writeScope,
		InputSchemas:  inputSchemas,
		OutputSchemas: cfg.OutputSchemas,
	})
	a := &access{roots: roots}
	s.AddTools(tools(a, !cfg.NoConfirm)...)
	addResources(s, a)
	return s
}
