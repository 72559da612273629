package mcpkit

import (
	"context"
	"regexp"
	"strings"
	"sync"
)

// Resource describes a resource a client can read.
type Resource struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MIMEType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI template.
type ResourceTemplate struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MIMEType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceHandler reads a resource. vars holds the template variables when the URI
// matched a template. Return [ResourceNotFound](uri) for a URI that names nothing.
type ResourceHandler func(ctx context.Context, req *Request, uri string, vars map[string]string) (*ReadResourceResult, error)

// ResourceLister lists resources that are not registered one by one (files, tables):
// one page per call, with an opaque cursor of the lister's own making.
type ResourceLister func(ctx context.Context, req *Request, cursor string) (resources []Resource, nextCursor string, err error)

type registeredResource struct {
	res     Resource
	handler ResourceHandler
}

type registeredTemplate struct {
	tmpl    ResourceTemplate
	match   func() *regexp.Regexp // compiled on the first read through a template
	names   []string
	handler ResourceHandler
}

// ResourceNotFound is the error for a URI that names no resource (-32602 with the URI
// in data; -32002 for legacy clients).
func ResourceNotFound(uri string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "resource not found: " + uri, Data: map[string]any{"uri": uri}}
}

// AddResource registers one resource.
func (s *Server) AddResource(r *Resource, h ResourceHandler) {
	s.resources.put(r.URI, &registeredResource{res: *r, handler: h})
}

// RemoveResources unregisters resources by URI; listening clients hear of it when
// any was registered.
func (s *Server) RemoveResources(uris ...string) { s.resources.remove(uris...) }

// AddResourceTemplate registers a template; reads of matching URIs go to h. Templates
// are tried in registration order after exact resources.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) {
	re, names := compileTemplate(t.URITemplate)
	s.templates.put(t.URITemplate, &registeredTemplate{tmpl: *t, match: re, names: names, handler: h})
}

// SetResourceLister adds a dynamic list of resources after the registered ones. Reads
// of its URIs go through a template or a registered resource.
func (s *Server) SetResourceLister(l ResourceLister) {
	s.mu.Lock()
	s.resourceLister = l
	s.mu.Unlock()
}

// compileTemplate turns an RFC 6570 template into a matcher: {var} matches one path
// segment, {+var} and {/var*}-style reserved expansions match the rest. The regular
// expression (quoted literals and fixed groups, so always valid) is compiled on first
// use, not at registration: most starts read no resource.
func compileTemplate(t string) (func() *regexp.Regexp, []string) {
	var b strings.Builder
	var names []string
	b.WriteString("^")
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		b.WriteString(regexp.QuoteMeta(t[:i]))
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(t[i:]))
			break
		}
		expr := t[i+1 : i+j]
		t = t[i+j+1:]
		pattern := "([^/?#]*)"
		if strings.HasPrefix(expr, "+") || strings.HasPrefix(expr, "#") || strings.HasSuffix(expr, "*") {
			pattern = "(.*)"
		}
		name := strings.Trim(expr, "+#./;?&*")
		names = append(names, name)
		b.WriteString(pattern)
	}
	b.WriteString("$")
	expr := b.String()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }), names
}

type listResourcesResult struct {
	resultBase
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// listResources pages through registered resources, then the lister's. The cursor of
// the lister's pages is prefixed so the two kinds never mix.
func (s *Server) listResources(ctx context.Context, req *Request) (any, error) {
	cursor, err := cursorParam(req)
	if err != nil {
		return nil, err
	}
	registered := s.resources.all()
	static := make([]Resource, len(registered))
	for i, r := range registered {
		static[i] = r.res
	}
	s.mu.RLock()
	lister := s.resourceLister
	s.mu.RUnlock()

	const listerPrefix = "L:"
	if strings.HasPrefix(cursor, listerPrefix) && lister != nil {
		page, next, err := lister(ctx, req, strings.TrimPrefix(cursor, listerPrefix))
		if err != nil {
			return nil, err
		}
		if next != "" {
			next = listerPrefix + next
		}
		return &listResourcesResult{Resources: orEmpty(page), NextCursor: next}, nil
	}
	page, next, err := paginate(static, cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	if next == "" && lister != nil {
		more, lnext, err := lister(ctx, req, "")
		if err != nil {
			return nil, err
		}
		page = append(page, more...)
		if lnext != "" {
			next = listerPrefix + lnext
		}
	}
	return &listResourcesResult{Resources: orEmpty(page), NextCursor: next}, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type listTemplatesResult struct {
	resultBase
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
}

func (s *Server) listTemplates(_ context.Context, req *Request) (any, error) {
	cursor, err := cursorParam(req)
	if err != nil {
		return nil, err
	}
	registered := s.templates.all()
	all := make([]ResourceTemplate, len(registered))
	for i, t := range registered {
		all[i] = t.tmpl
	}
	page, next, err := paginate(all, cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &listTemplatesResult{ResourceTemplates: orEmpty(page), NextCursor: next}, nil
}

func (s *Server) readResource(ctx context.Context, req *Request) (any, error) {
	p, err := req.call()
	if err != nil {
		return nil, InvalidParams("invalid resources/read params: %s", describeJSONError(err))
	}
	if p.URI == "" {
		return nil, InvalidParams(`resources/read needs "uri"`)
	}
	req.Name = p.URI
	h, vars := s.resourceHandler(p.URI)
	if h == nil {
		return nil, ResourceNotFound(p.URI)
	}
	if err := s.resume(ctx, req, p, nil); err != nil {
		return nil, err
	}
	res, err := h(ctx, req, p.URI, vars)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, ResourceNotFound(p.URI)
	}
	if res.Contents == nil {
		res.Contents = []ResourceContents{}
	}
	return res, nil
}

func (s *Server) resourceHandler(uri string) (ResourceHandler, map[string]string) {
	if r, ok := s.resources.get(uri); ok {
		return r.handler, nil
	}
	for _, t := range s.templates.all() {
		m := t.match().FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		vars := make(map[string]string, len(t.names))
		for i, n := range t.names {
			vars[n] = m[i+1]
		}
		return t.handler, vars
	}
	return nil, nil
}
