package filesystem

import (
	"context"
	"errors"
	"io/fs"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// fileTemplate names any file under the roots: file:///{+path} matches every
// file:// URI, and the read resolves it through the roots like a tool's path.
const fileTemplate = "file:///{+path}"

// addResources exposes the files under the roots as MCP resources: resources/list
// pages through them (breadth first, .gitignore honoured), and the template reads any
// of them by URI with its MIME type. Both use the request's roots, narrowed by client
// roots on legacy sessions like the tools.
func addResources(s *mcpkit.Server, a *access) {
	s.SetResourceLister(func(ctx context.Context, req *mcpkit.Request, cursor string) ([]mcpkit.Resource, string, error) {
		rs, release, err := a.rootsFor(ctx, req)
		if errors.Is(err, ErrRootsDisjoint) {
			// Nothing the session may touch, so nothing to list: an empty page, not an
			// error. Hosts that drop a server's every tool when one of its listings
			// fails (Gemini CLI started outside the server's directories) keep them.
			return []mcpkit.Resource{}, "", nil
		}
		if err != nil {
			return nil, "", mcpkit.InvalidParams("%v", err)
		}
		defer release()
		page, err := rs.ListFileResources(ctx, cursor, 0)
		if errors.Is(err, ErrInvalidCursor) {
			return nil, "", mcpkit.InvalidParams("resources/list: %v; pass the nextCursor of the previous page or none", err)
		}
		if err != nil {
			return nil, "", err
		}
		out := make([]mcpkit.Resource, len(page.Resources))
		for i, r := range page.Resources {
			size := r.Size
			out[i] = mcpkit.Resource{URI: r.URI, Name: r.Name, MIMEType: r.MimeType, Size: &size}
		}
		return out, page.NextCursor, nil
	})

	s.AddResourceTemplate(&mcpkit.ResourceTemplate{
		URITemplate: fileTemplate,
		Name:        "file",
		Title:       "A file in an allowed directory",
		Description: "Any file under the allowed directories by its file:// URI: text files decoded to UTF-8, other files as base64 blobs. Files over 8 MiB are refused; read them with read_text_file.",
	}, func(ctx context.Context, req *mcpkit.Request, uri string, _ map[string]string) (*mcpkit.ReadResourceResult, error) {
		rs, release, err := a.rootsFor(ctx, req)
		if err != nil {
			return nil, mcpkit.InvalidParams("%v", err)
		}
		defer release()
		rc, err := rs.ReadFileResource(ctx, uri)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, mcpkit.ResourceNotFound(uri)
		case err != nil && ctx.Err() != nil:
			return nil, err
		case err != nil:
			// Outside the roots, a link out, a directory, too large, a malformed URI:
			// the client sent a URI this server will not read, and the message says why.
			return nil, mcpkit.InvalidParams("%v", err)
		}
		if rc.IsText {
			return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{mcpkit.TextContents(rc.URI, rc.MimeType, rc.Text)}}, nil
		}
		return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{{URI: rc.URI, MIMEType: rc.MimeType, Blob: rc.Blob}}}, nil
	})
}
