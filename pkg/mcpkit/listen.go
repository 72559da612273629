package mcpkit

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
)

// SubscriptionFilter is what a subscriptions/listen request asks to hear about.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs are tasks whose changes (notifications/tasks) the client wants to hear
	// of (the Tasks extension).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// listener is one place change notifications go: a subscriptions/listen stream or a
// legacy session.
type listener struct {
	mu     sync.Mutex
	filter SubscriptionFilter
	// deliver sends one notification; for listen streams it adds the subscription id.
	deliver func(method string, params map[string]any)
}

func (l *listener) wants(method, uri string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.ContainsFunc(l.filter.ResourceSubscriptions, func(s string) bool { return uriCovers(s, uri) })
	case "notifications/tasks":
		return slices.Contains(l.filter.TaskIDs, uri)
	}
	return false
}

// uriCovers reports whether a subscription to sub covers an update of uri: the same
// resource, or a sub-resource of it (the spec allows updates of sub-resources).
func uriCovers(sub, uri string) bool {
	if sub == uri {
		return true
	}
	if len(uri) > len(sub) && uri[:len(sub)] == sub {
		last := sub[len(sub)-1]
		return last == '/' || uri[len(sub)] == '/'
	}
	return false
}

// hub fans change notifications out to every listener that asked for them.
type hub struct {
	mu        sync.Mutex
	listeners map[*listener]struct{}
	closing   chan struct{}
	closeOnce sync.Once
}

func newHub() *hub {
	return &hub{listeners: map[*listener]struct{}{}, closing: make(chan struct{})}
}

func (h *hub) add(l *listener) {
	h.mu.Lock()
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) remove(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.mu.Unlock()
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.listeners)
}

func (h *hub) publish(method, uri string) {
	h.mu.Lock()
	ls := make([]*listener, 0, len(h.listeners))
	for l := range h.listeners {
		ls = append(ls, l)
	}
	h.mu.Unlock()
	for _, l := range ls {
		if l.wants(method, uri) {
			params := map[string]any{}
			if uri != "" {
				params["uri"] = uri
			}
			l.deliver(method, params)
		}
	}
}

// wantsTask reports whether a listener asked for notifications/tasks of task id.
func (h *hub) wantsTask(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		if l.wants("notifications/tasks", id) {
			return true
		}
	}
	return false
}

// publishTask sends notifications/tasks with params (a DetailedTask) to the
// listeners that asked for task id.
func (h *hub) publishTask(id string, params map[string]any) {
	if params == nil {
		return
	}
	h.mu.Lock()
	ls := make([]*listener, 0, len(h.listeners))
	for l := range h.listeners {
		if l.wants("notifications/tasks", id) {
			ls = append(ls, l)
		}
	}
	h.mu.Unlock()
	for _, l := range ls {
		p := make(map[string]any, len(params)+1)
		for k, v := range params {
			p[k] = v
		}
		l.deliver("notifications/tasks", p)
	}
}

// shutdown ends every listen stream gracefully.
func (h *hub) shutdown() { h.closeOnce.Do(func() { close(h.closing) }) }

// NotifyToolsListChanged tells listening clients that tools/list changed.
func (s *Server) NotifyToolsListChanged() { s.hub.publish("notifications/tools/list_changed", "") }

// NotifyPromptsListChanged tells listening clients that prompts/list changed.
func (s *Server) NotifyPromptsListChanged() {
	s.hub.publish("notifications/prompts/list_changed", "")
}

// NotifyResourcesListChanged tells listening clients that resources/list changed.
func (s *Server) NotifyResourcesListChanged() {
	s.hub.publish("notifications/resources/list_changed", "")
}

// NotifyResourceUpdated tells clients subscribed to uri (or a parent of it) that it changed.
func (s *Server) NotifyResourceUpdated(uri string) {
	s.hub.publish("notifications/resources/updated", uri)
}

// Listeners reports how many listen streams and legacy sessions are registered.
func (s *Server) Listeners() int { return s.hub.count() }

// Shutdown ends listen streams gracefully (each gets its completion result). Transports
// call it when they stop; serve.Serve calls it on SIGINT/SIGTERM.
func (s *Server) Shutdown() { s.hub.shutdown() }

type listenResult struct {
	resultBase
}

// listen serves subscriptions/listen: acknowledgement first, then matching change
// notifications carrying the subscription id, until the client goes away (its context
// ends), or the server shuts down or the stream's lifetime ends (then a completion
// result).
func (s *Server) listen(ctx context.Context, req *Request) (any, error) {
	var p struct {
		Notifications *SubscriptionFilter `json:"notifications"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, InvalidParams("invalid subscriptions/listen params: %s", describeJSONError(err))
	}
	if p.Notifications == nil {
		return nil, InvalidParams(`subscriptions/listen needs "notifications": an object such as {"toolsListChanged":true}`)
	}
	caps := s.capabilities()
	var agreed SubscriptionFilter
	agreed.ToolsListChanged = p.Notifications.ToolsListChanged && caps.Tools != nil
	agreed.PromptsListChanged = p.Notifications.PromptsListChanged && caps.Prompts != nil
	agreed.ResourcesListChanged = p.Notifications.ResourcesListChanged && caps.Resources != nil
	if caps.Resources != nil && len(p.Notifications.ResourceSubscriptions) > 0 {
		agreed.ResourceSubscriptions = slices.Clone(p.Notifications.ResourceSubscriptions)
	}
	if len(p.Notifications.TaskIDs) > 0 {
		if !req.Meta.ClientCapabilities.HasExtension(ExtensionTasks) {
			return nil, missingTasksExtension("notifications/tasks need the %s extension, which the client did not declare in this request's capabilities", ExtensionTasks)
		}
		// Only the caller's own tasks: another's are answered as if they did not exist.
		agreed.TaskIDs = s.tasks.visibleTasks(ctx, req, p.Notifications.TaskIDs)
		if len(agreed.TaskIDs) > 0 {
			s.tasks.subscribe()
		}
	}
	subID := req.ID.raw
	withID := func(params map[string]any) map[string]any {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = map[string]any{metaSubscriptionID: json.RawMessage(subID)}
		return params
	}
	var writeMu sync.Mutex
	l := &listener{filter: agreed, deliver: func(method string, params map[string]any) {
		writeMu.Lock()
		defer writeMu.Unlock()
		_ = req.out.write(encodeNotification(method, withID(params)))
	}}
	// Register and acknowledge under the write lock: a change published meanwhile is
	// delivered, but only after the acknowledgement, which must come first.
	writeMu.Lock()
	s.hub.add(l)
	_ = req.out.write(encodeNotification("notifications/subscriptions/acknowledged",
		withID(map[string]any{"notifications": agreed})))
	writeMu.Unlock()
	defer s.hub.remove(l)
	// Each task's current state follows, so that a change made before the stream
	// was open is not missed.
	for _, id := range agreed.TaskIDs {
		if st, err := s.tasks.store.Get(ctx, id); err == nil {
			l.deliver("notifications/tasks", s.tasks.notice(s.tasks.settleLost(ctx, st)))
		}
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.hub.closing:
	case <-listenEnd(ctx): // the stream's lifetime (HTTPOptions.StreamLifetime) is over
	}
	res := &listenResult{}
	res.Meta = map[string]any{metaSubscriptionID: json.RawMessage(subID)}
	return res, nil
}
