package filesystem

import (
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// addWriteTools registers the tools that change files. New calls it only with
// --allow-writes; the server is also built ReadOnly otherwise, so these tools cannot
// appear on a read-only server even if this were called by mistake.
func addWriteTools(s *mcpkit.Server, a *access) {
	mcpkit.AddTool(s, &mcpkit.Tool{
		Name:  "write_file",
		Title: "Write a file",
		Description: "Create a file, or replace a file's whole content, with UTF-8 text. " +
			"The write is atomic (a temporary file renamed into place), keeps an existing file's permissions and never goes through a symbolic link; the parent directory must exist (create it with create_directory). " +
			"It overwrites without asking: to change part of an existing file use edit_file instead.",
		Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true, IdempotentHint: true},
	}, withRoots(a, (*Roots).WriteFile))

	mcpkit.AddTool(s, &mcpkit.Tool{
		Name:  "edit_file",
		Title: "Edit a file",
		Description: "Change an existing text file by exact replacements (oldText to newText), applied in order and all or nothing, and return a unified diff. " +
			"Each oldText must match exactly, whitespace and indentation included, and occur once; set replaceAll to replace every occurrence. " +
			"The file's encoding (UTF-8 with or without BOM, UTF-16, Latin-1), its CRLF line breaks and permissions are kept. " +
			"Set dryRun to preview the diff without writing. Use write_file to replace a whole file." +
			" The diff is bounded: when truncated is true it was cut.",
		Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
	}, withRoots(a, (*Roots).EditFile))

	mcpkit.AddTool(s, &mcpkit.Tool{
		Name:  "create_directory",
		Title: "Create a directory",
		Description: "Create a directory together with any missing parents; a directory that already exists is not an error. " +
			"Use it before write_file when the target's directory does not exist yet.",
		Annotations: &mcpkit.ToolAnnotations{IdempotentHint: true},
	}, withRoots(a, (*Roots).CreateDirectory))

	mcpkit.AddTool(s, &mcpkit.Tool{
		Name:  "move_file",
		Title: "Move or rename",
		Description: "Move or rename a file or directory within one allowed directory; if destination is an existing directory the source moves into it under its own name. " +
			"An existing destination file is an error unless overwrite is true. Moves between two different allowed directories are refused; a symbolic link is moved as a link.",
		Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
	}, withRoots(a, (*Roots).MoveFile))
}
