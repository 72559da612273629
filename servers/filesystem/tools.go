package filesystem

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// The read tools carry the reference server's (@modelcontextprotocol/server-filesystem)
// names and argument names wherever it has the same tool, so a host can switch servers
// without its prompts or allow-lists changing. Their descriptions say when to use each
// one rather than a neighbour (names versus contents, one file versus several).

// ListAllowedDirectoriesInput takes no arguments.
type ListAllowedDirectoriesInput struct{}

// ListAllowedDirectoriesOutput lists where the tools may go for this client.
type ListAllowedDirectoriesOutput struct {
	Directories           []string `json:"directories" jsonschema_description:"Absolute paths of the allowed directories; relative paths are taken from the first"`
	NarrowedByClientRoots bool     `json:"narrowedByClientRoots,omitempty" jsonschema_description:"True when the client's roots narrowed the server's directories for this session"`
}

// writeScope is the OAuth scope every tool that changes files needs over authorized
// HTTP (files:write): New's server adds it to each tool of the table not marked
// read-only, so a token with only the deployment's --auth-scopes reads but never
// writes.
var writeScope = mcpkit.WriteScope("files")

// tools is the server's tool table in tools/list order: the read tools, then the
// tools that change files, which the ReadOnly server New builds without AllowWrites
// leaves out (none of them is marked read-only) and which need writeScope. confirm says
// whether the writes that destroy something ask the user first (not with
// --no-confirm); see confirm.go.
//
// What every tool shares (paths, bounded results, links, excludePatterns and
// .gitignore) is said once in the server's instructions; a description says when to
// use the tool rather than a neighbour and what it does that the schema cannot say,
// and the schema carries the limits and defaults.
func tools(a *access, confirm bool) []mcpkit.ServerTool {
	writeAsks, editAsks, moveAsks := " Replacing an existing file asks the user to confirm, showing its size and first lines; creating one does not.",
		" The user confirms the diff before the file is written.",
		"; replacing it asks the user to confirm"
	deleteFileAsks, deleteDirAsks := " The user confirms first, shown its size and first lines.", " The user confirms first, shown what goes (counts, size, first entries)."
	if !confirm {
		writeAsks, editAsks, moveAsks = " It overwrites without asking.", "", ""
		deleteFileAsks, deleteDirAsks = " It deletes without asking.", " It deletes without asking."
	}
	return []mcpkit.ServerTool{
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "list_allowed_directories",
			Title:       "List allowed directories",
			Description: "List the directories this server may access (narrowed by the client's roots when it offers them). Call it first when you do not know where the files are.",
			Annotations: mcpkit.ReadOnly(),
		}, func(ctx context.Context, req *mcpkit.Request, _ ListAllowedDirectoriesInput) (ListAllowedDirectoriesOutput, error) {
			rs, release, err := a.rootsFor(ctx, req)
			if err != nil {
				return ListAllowedDirectoriesOutput{}, err
			}
			defer release()
			return ListAllowedDirectoriesOutput{Directories: rs.Dirs(), NarrowedByClientRoots: rs != a.roots}, nil
		}),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "list_directory",
			Title: "List a directory",
			Description: "List one directory's entries, one a line (directories end in /), sorted and paged (offset, limit); details adds sizes and times; links are shown, not followed. " +
				"For several levels use directory_tree; to find names use search_files.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ListDirectory)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "directory_tree",
			Title: "Directory tree",
			Description: "Show a directory's tree several levels deep, breadth first, one relative path a line (directories end in /): a project's layout; details adds sizes and times. " +
				"list_directory shows one directory.",
			Annotations: mcpkit.ReadOnly(),
			TaskSupport: mcpkit.TaskOptional, // a large tree: a task for clients with the Tasks extension
		}, withRoots(a, (*Roots).DirectoryTree)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "read_text_file",
			Title: "Read a text file",
			Description: "Read a text file or part of it: line with context lines around it, startLine to endLine (1-based, inclusive), head or tail (first or last N lines), or offset and limit (lines to skip, lines to return). " +
				"Returns the text itself (UTF-8, LF; numbered with lineNumbers) after a one-line header when it is a part of the file or something is unusual (encoding, line breaks). " +
				"Binary files are refused: use read_media_file. For several files use read_multiple_files; to find where text occurs, search_file_contents.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ReadTextFile)),

		readMediaTool(a),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "read_multiple_files",
			Title: "Read several text files",
			Description: "Read up to 50 text files (paths) from their start, each capped at maxBytesPerFile; a file that fails gets its own error and does not fail the others. " +
				"For line ranges or a file's end use read_text_file.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ReadMultipleFiles)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "search_files",
			Title: "Find files by name",
			Description: "Find files and directories below path by name or relative path with a glob (*.go, README*, src/**/test_*.py, {a,b}), shallowest first. " +
				"It matches names only, never file contents: to find text inside files use search_file_contents.",
			Annotations: mcpkit.ReadOnly(),
			TaskSupport: mcpkit.TaskOptional, // a large tree: a task for clients with the Tasks extension
		}, withRoots(a, (*Roots).SearchFiles)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "search_file_contents",
			Title: "Search inside files",
			Description: "Search the files below path (or one file) for pattern, a regular expression (Go RE2) or, with literal, plain text, like grep (caseInsensitive ignores case): each matching line with its file, line number and contextLines around it; to find files by their name use search_files. " +
				"Narrow with include (a glob); binary files and files over maxFileBytes are skipped.",
			Annotations: mcpkit.ReadOnly(),
			TaskSupport: mcpkit.TaskOptional, // a large tree: a task for clients with the Tasks extension
		}, withRoots(a, (*Roots).SearchFileContents)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "get_file_info",
			Title: "File information",
			Description: "Get a file's or directory's metadata without reading it: type, size, permissions, times, hard links and a symbolic link's target. " +
				"Use it to check that a path exists or how large a file is.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).GetFileInfo)),

		// The tools that change files.
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "write_file",
			Title: "Write a file",
			Description: "Create a file or replace its whole content with UTF-8 text, atomically, keeping an existing file's permissions; its directory must exist (create_directory)." +
				writeAsks + " To change part of a file use edit_file.",
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true, IdempotentHint: true},
		}, withConfirm(a, (*Roots).writeFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "edit_file",
			Title: "Edit a file",
			Description: "Change a text file by edits (oldText to newText) applied in order, all or nothing, and return a unified diff. " +
				"Each oldText must occur once (or set replaceAll); one not found exactly may match ignoring each line's leading and trailing whitespace, if in one place only (the result says so). Encoding, line breaks and permissions are kept; dryRun previews the diff." + editAsks,
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).editFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "create_directory",
			Title:       "Create a directory",
			Description: "Create a directory and any missing parents; one that exists already is not an error.",
			Annotations: &mcpkit.ToolAnnotations{IdempotentHint: true},
		}, withRoots(a, (*Roots).CreateDirectory)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "move_file",
			Title: "Move or rename",
			Description: "Move or rename source, a file or directory, to destination within one allowed directory (not between two); onto an existing directory it moves inside under its own name. " +
				"An existing destination file is an error unless overwrite is true" + moveAsks + ".",
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).moveFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "copy_file",
			Title: "Copy",
			Description: "Copy source, a file or with recursive a directory (to a new path), to destination, also in another allowed directory; onto a directory it copies inside. " +
				"Links are never followed: one as source is refused, those in a tree are left out. An existing file is replaced only with overwrite" + moveAsks + ".",
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).copyFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "delete_file",
			Title:       "Delete a file",
			Description: "Delete one file or symbolic link (the link, not what it points to); for a directory use delete_directory." + deleteFileAsks,
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).deleteFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:        "delete_directory",
			Title:       "Delete a directory",
			Description: "Delete an empty directory, or with recursive it and everything in it." + deleteDirAsks,
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).deleteDirectory)),
	}
}

// MediaFileInfo is the structured part of a read_media_file result; the bytes travel
// in the image, audio or embedded resource content block.
type MediaFileInfo struct {
	Path     string `json:"path" jsonschema_description:"Absolute path of the file"`
	URI      string `json:"uri" jsonschema_description:"file:// URI of the file (also readable as a resource)"`
	MimeType string `json:"mimeType" jsonschema_description:"MIME type from the file's content and extension"`
	Kind     string `json:"kind" jsonschema_description:"Which content block carries the data: image or audio or an embedded resource for other types" jsonschema:"enum=image,enum=audio,enum=other"`
	Size     int64  `json:"size" jsonschema_description:"File size in bytes"`
}

// readMediaTool is the row of read_media_file, which returns its data as a content
// block a client can show (image or audio) instead of base64 text a model would read.
// It declares no OutputSchema: the server publishes none (mcpkit's OutputSchemas is
// off), its structuredContent (a MediaFileInfo) is an object at every revision either
// way, and generating the schema by reflection cost every start a tenth of a
// millisecond for nothing.
func readMediaTool(a *access) mcpkit.ServerTool {
	return mcpkit.NewServerTool(&mcpkit.Tool{
		Name:  "read_media_file",
		Title: "Read an image or audio file",
		Description: "Read an image or audio file whole as image or audio content with its MIME type; other binary files come as an embedded resource. " +
			"Files over maxBytes are refused, not cut. For text use read_text_file.",
		Annotations: mcpkit.ReadOnly(),
	}, withRoots(a, func(rs *Roots, ctx context.Context, in ReadMediaFileInput) (*mcpkit.CallToolResult, error) {
		out, err := rs.ReadMediaFile(ctx, in)
		if err != nil {
			return nil, err
		}
		root, rel, err := rs.Resolve(in.Path)
		if err != nil {
			return nil, err
		}
		info := MediaFileInfo{Path: out.Path, URI: FileURI(root, rel), MimeType: out.MimeType, Kind: out.Kind, Size: out.Size}
		var block mcpkit.Content
		switch out.Kind {
		case "image", "audio":
			block = mcpkit.Content{Type: out.Kind, Data: out.Data, MIMEType: out.MimeType}
		default:
			block = mcpkit.EmbeddedResource(mcpkit.ResourceContents{URI: info.URI, MIMEType: out.MimeType, Blob: out.Data})
		}
		js, err := mcpkit.JSONText(info)
		if err != nil {
			return nil, err
		}
		return &mcpkit.CallToolResult{
			Content:           []mcpkit.Content{mcpkit.TextContent(js), block},
			StructuredContent: json.RawMessage(js),
		}, nil
	}))
}
