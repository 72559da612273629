package mcpkit

import (
	"context"
	"encoding/json"
)

// Prompt describes a prompt template a user can pick.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptHandler renders a prompt. Required arguments are checked before it runs.
type PromptHandler func(ctx context.Context, req *Request, args map[string]string) (*GetPromptResult, error)

type registeredPrompt struct {
	prompt  Prompt
	handler PromptHandler
}

// AddPrompt registers a prompt.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) {
	s.prompts.put(p.Name, &registeredPrompt{prompt: *p, handler: h})
}

// RemovePrompts unregisters prompts by name; listening clients hear of it when any
// was registered.
func (s *Server) RemovePrompts(names ...string) { s.prompts.remove(names...) }

type listPromptsResult struct {
	resultBase
	Prompts    []Prompt `json:"prompts"`
	NextCursor string   `json:"nextCursor,omitempty"`
}

func (s *Server) listPrompts(_ context.Context, req *Request) (any, error) {
	cursor, err := cursorParam(req)
	if err != nil {
		return nil, err
	}
	registered := s.prompts.all()
	all := make([]Prompt, len(registered))
	for i, rp := range registered {
		all[i] = rp.prompt
	}
	page, next, err := paginate(all, cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &listPromptsResult{Prompts: orEmpty(page), NextCursor: next}, nil
}

func (s *Server) getPrompt(ctx context.Context, req *Request) (any, error) {
	var p struct {
		callParams
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, InvalidParams("invalid prompts/get params (arguments must map names to strings): %s", describeJSONError(err))
	}
	if p.Name == "" {
		return nil, InvalidParams(`prompts/get needs "name": one of the names prompts/list returns`)
	}
	req.Name = p.Name
	rp, ok := s.prompts.get(p.Name)
	if !ok {
		return nil, InvalidParams("unknown prompt %q: call prompts/list for the available prompts", p.Name)
	}
	for _, a := range rp.prompt.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, InvalidParams("prompt %q needs argument %q", p.Name, a.Name)
		}
	}
	if err := s.resume(ctx, req, p.callParams, nil); err != nil {
		return nil, err
	}
	if p.Arguments == nil {
		p.Arguments = map[string]string{}
	}
	res, err := rp.handler(ctx, req, p.Arguments)
	if err != nil {
		return nil, err
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	return res, nil
}

// CompleteRef names what is being completed: a prompt (Type "ref/prompt", Name) or a
// resource template (Type "ref/resource", URI).
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteRequest is the params of completion/complete.
type CompleteRequest struct {
	Ref      CompleteRef `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments,omitempty"`
	} `json:"context"`
}

// Completion is the answer: at most 100 values.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompletionHandler suggests values for an argument.
type CompletionHandler func(ctx context.Context, req *Request, c *CompleteRequest) (*Completion, error)

// SetCompletionHandler enables completion/complete.
func (s *Server) SetCompletionHandler(h CompletionHandler) {
	s.mu.Lock()
	s.completer = h
	s.mu.Unlock()
}

type completeResult struct {
	resultBase
	Completion Completion `json:"completion"`
}

func (s *Server) complete(ctx context.Context, req *Request) (any, error) {
	var c CompleteRequest
	if err := json.Unmarshal(req.Params, &c); err != nil {
		return nil, InvalidParams("invalid completion/complete params: %s", describeJSONError(err))
	}
	switch c.Ref.Type {
	case "ref/prompt":
		if _, ok := s.prompts.get(c.Ref.Name); !ok {
			return nil, InvalidParams("unknown prompt %q in ref", c.Ref.Name)
		}
	case "ref/resource":
		if c.Ref.URI == "" {
			return nil, InvalidParams(`ref/resource needs "uri"`)
		}
	default:
		return nil, InvalidParams(`ref.type must be "ref/prompt" or "ref/resource"`)
	}
	if c.Argument.Name == "" {
		return nil, InvalidParams(`completion/complete needs "argument": {"name", "value"}`)
	}
	s.mu.RLock()
	h := s.completer
	s.mu.RUnlock()
	comp, err := h(ctx, req, &c)
	if err != nil {
		return nil, err
	}
	if comp == nil {
		comp = &Completion{}
	}
	if comp.Values == nil {
		comp.Values = []string{}
	}
	if len(comp.Values) > 100 {
		comp.Values = comp.Values[:100]
		comp.HasMore = true
	}
	return &completeResult{Completion: *comp}, nil
}
