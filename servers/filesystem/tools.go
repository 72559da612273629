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

const boundedNote = " Results are bounded: when truncated is true the result was cut and hint says how to get the rest."

// tools is the server's tool table in tools/list order: the read tools, then the
// tools that change files, which the ReadOnly server New builds without AllowWrites
// leaves out (none of them is marked read-only) and which need writeScope. confirm says whether the writes that
// destroy something ask the user first (not with --no-confirm); see confirm.go.
func tools(a *access, confirm bool) []mcpkit.ServerTool {
	writeAsks, editAsks, moveAsks := "Replacing an existing file asks the user to confirm first, showing its size and first lines; creating a new file does not. To change part of an existing file use edit_file instead.",
		" The user confirms the diff before the file is written.",
		" Replacing an existing file asks the user to confirm first."
	if !confirm {
		writeAsks, editAsks, moveAsks = "It overwrites without asking: to change part of an existing file use edit_file instead.", "", ""
	}
	return []mcpkit.ServerTool{
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "list_allowed_directories",
			Title: "List allowed directories",
			Description: "List the directories this server may access (for this client: narrowed by the client's roots when it offers them). " +
				"Every path another tool takes must lie inside one of them; a relative path is taken from the first. " +
				"Call this first when you do not know where the files are.",
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
			Description: "List the entries of one directory with type, size and modification time, sorted by name, size or modified and paged with offset and limit. " +
				"Use it to see what a single directory holds; use directory_tree for several levels at once and search_files to find entries by name. " +
				"Symbolic links are shown as links and never followed." + boundedNote + " Pass nextOffset as offset for the next page.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ListDirectory)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "directory_tree",
			Title: "Directory tree",
			Description: "Show a directory's tree several levels deep as a flat list of relative paths with types and file sizes (breadth first). " +
				"By default it skips what .gitignore files ignore and the .git directory; leave out more with excludePatterns. " +
				"Use it for an overview of a project's layout; use list_directory for one directory with details and search_files to find particular names. " +
				"Bounded by maxDepth and maxEntries." + boundedNote,
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).DirectoryTree)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "read_text_file",
			Title: "Read a text file",
			Description: "Read a text file or part of it: lines by 1-based number (line with context around it, or startLine to endLine), the first lines (head) or the last lines (tail; only the end of the file is read). " +
				"Returns the text itself (UTF-8, LF line breaks; numbered with lineNumbers) under a one-line header, when needed, with the lines read and the file's encoding (UTF-8, UTF-16, Latin-1) and line endings; binary files are refused (use read_media_file). " +
				"Use it for one file; use read_multiple_files for several known files and search_file_contents to find where some text occurs. " +
				"Output is capped at maxBytes and never splits a character." + boundedNote,
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ReadTextFile)),

		readMediaTool(a),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "read_multiple_files",
			Title: "Read several text files",
			Description: "Read up to 50 text files in one call, each from its start and capped at maxBytesPerFile. " +
				"A file that fails (missing, binary, outside the allowed directories) is reported in its own entry and does not fail the others. " +
				"Use it to review or compare several known files; use read_text_file for line ranges or the end of a file. " +
				"Each file's result says truncated, with a hint, when it was cut.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).ReadMultipleFiles)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "search_files",
			Title: "Find files by name",
			Description: "Find files and directories by name or relative path with a glob pattern (*.go, README*, src/**/test_*.py, {a,b} for alternatives), recursively below path. " +
				"It matches names only, never file contents: to find text inside files use search_file_contents. " +
				"Skips what .gitignore files ignore and the .git directory by default; leave out more with excludePatterns. " +
				"Shallower matches come first and the list stops at maxResults." + boundedNote,
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).SearchFiles)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "search_file_contents",
			Title: "Search inside files",
			Description: "Search the contents of files for a regular expression (Go RE2 syntax) or, with literal, a plain string, like grep: returns each matching line with its file, line number and optional context lines. " +
				"Use it to find where code or text occurs; to find files by their name use search_files. " +
				"Limit the files searched with include (a glob) and excludePatterns; binary files, files over maxFileBytes and what .gitignore ignores are skipped. " +
				"The list stops at maxResults matching lines." + boundedNote,
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).SearchFileContents)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "get_file_info",
			Title: "File information",
			Description: "Get metadata of one file or directory without reading it: type, size, permissions, modification, access and creation times, hard link count, and for a symbolic link its target and whether it stays inside the allowed directories (links out are never followed). " +
				"Use it to check that a path exists or how large a file is before reading it.",
			Annotations: mcpkit.ReadOnly(),
		}, withRoots(a, (*Roots).GetFileInfo)),

		// The tools that change files.
		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "write_file",
			Title: "Write a file",
			Description: "Create a file, or replace a file's whole content, with UTF-8 text. " +
				"The write is atomic (a temporary file renamed into place), keeps an existing file's permissions and never goes through a symbolic link; the parent directory must exist (create it with create_directory). " +
				writeAsks,
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true, IdempotentHint: true},
		}, withConfirm(a, (*Roots).writeFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "edit_file",
			Title: "Edit a file",
			Description: "Change an existing text file by exact replacements (oldText to newText), applied in order and all or nothing, and return a unified diff. " +
				"Each oldText must match exactly, whitespace and indentation included, and occur once; set replaceAll to replace every occurrence. " +
				"The file's encoding (UTF-8 with or without BOM, UTF-16, Latin-1), its CRLF line breaks and permissions are kept. " +
				"Set dryRun to preview the diff without writing. Use write_file to replace a whole file." + editAsks +
				" The diff is bounded: when truncated is true it was cut.",
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).editFile)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "create_directory",
			Title: "Create a directory",
			Description: "Create a directory together with any missing parents; a directory that already exists is not an error. " +
				"Use it before write_file when the target's directory does not exist yet.",
			Annotations: &mcpkit.ToolAnnotations{IdempotentHint: true},
		}, withRoots(a, (*Roots).CreateDirectory)),

		mcpkit.NewServerTool(&mcpkit.Tool{
			Name:  "move_file",
			Title: "Move or rename",
			Description: "Move or rename a file or directory within one allowed directory; if destination is an existing directory the source moves into it under its own name. " +
				"An existing destination file is an error unless overwrite is true." + moveAsks + " Moves between two different allowed directories are refused; a symbolic link is moved as a link.",
			Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
		}, withConfirm(a, (*Roots).moveFile)),
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
func readMediaTool(a *access) mcpkit.ServerTool {
	return mcpkit.NewServerTool(&mcpkit.Tool{
		Name:  "read_media_file",
		Title: "Read an image or audio file",
		Description: "Read an image or audio file whole and return it as image or audio content with its MIME type; any other binary file comes back as an embedded resource (base64 blob). " +
			"Use it for pictures and sound; use read_text_file for text. " +
			"Files larger than maxBytes are refused rather than cut, since part of an image is useless.",
		Annotations:  mcpkit.ReadOnly(),
		OutputSchema: mcpkit.SchemaFor[MediaFileInfo](),
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
