package mcpkit

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegistryNotificationRule holds every kind to one rule: before serving nothing
// notifies; once live, a call that changes the registry notifies once, and a call
// that changes nothing (removing what is not there) notifies no one.
func TestRegistryNotificationRule(t *testing.T) {
	noTool := func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil }
	noRes := func(context.Context, *Request, string, map[string]string) (*ReadResourceResult, error) {
		return nil, nil
	}
	noPrompt := func(context.Context, *Request, map[string]string) (*GetPromptResult, error) { return nil, nil }
	kinds := []struct {
		name   string
		method string
		add    func(s *Server, key string)
		remove func(s *Server, key string)
	}{
		{"tools", "notifications/tools/list_changed",
			func(s *Server, k string) { s.AddRawTool(&Tool{Name: k, Annotations: ReadOnly()}, noTool) },
			func(s *Server, k string) { s.RemoveTools(k) }},
		{"resources", "notifications/resources/list_changed",
			func(s *Server, k string) { s.AddResource(&Resource{URI: "test://" + k, Name: k}, noRes) },
			func(s *Server, k string) { s.RemoveResources("test://" + k) }},
		{"prompts", "notifications/prompts/list_changed",
			func(s *Server, k string) { s.AddPrompt(&Prompt{Name: k}, noPrompt) },
			func(s *Server, k string) { s.RemovePrompts(k) }},
		{"resource templates", "notifications/resources/list_changed",
			func(s *Server, k string) {
				s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://" + k + "/{x}", Name: k}, noRes)
			},
			nil},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{Logger: discardLogger()})
			var got []string
			l := &listener{filter: SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true},
				deliver: func(method string, _ map[string]any) { got = append(got, method) }}
			s.hub.add(l)

			k.add(s, "before") // not serving yet: no one to tell
			s.markLive()
			k.add(s, "a")
			k.add(s, "a") // replacing is a change
			want := []string{k.method, k.method}
			if k.remove != nil {
				k.remove(s, "a")
				k.remove(s, "a") // gone already: nothing changed
				k.remove(s, "never")
				want = append(want, k.method)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegistryOrder keeps registration order, with a replaced entry in its place.
func TestRegistryOrder(t *testing.T) {
	var live atomic.Bool
	r := newRegistry[int](&live, nil)
	for i, k := range []string{"c", "a", "b"} {
		r.put(k, i)
	}
	r.put("a", 9)
	r.remove("c")
	if diff := cmp.Diff([]int{9, 2}, r.all()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
