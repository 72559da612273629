package mcpkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

func serverWithResource() *mcpkit.Server {
	s := quietServer()
	s.EnableLogging()
	s.AddResource(&mcpkit.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, req *mcpkit.Request, uri string, _ map[string]string) (*mcpkit.ReadResourceResult, error) {
		return &mcpkit.ReadResourceResult{Contents: []mcpkit.ResourceContents{mcpkit.TextContents(uri, "text/plain", "hi")}}, nil
	})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "log", Description: "logs", Annotations: mcpkit.ReadOnly()}, func(ctx context.Context, req *mcpkit.Request, in struct{}) (addOut, error) {
		req.Log("debug", "", "quiet")
		req.Log("error", "test", "loud")
		return addOut{}, nil
	})
	return s
}

func TestListenOnStdio(t *testing.T) {
	s := serverWithResource()
	c := mcpkittest.Connect(t, s, mcpkit.Revision20260728, nil)
	id := c.NextID()
	done := c.Send(id, "subscriptions/listen", c.WithMeta(map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"test://r"}, "toolsListChanged": true}}))
	ack := c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/subscriptions/acknowledged" })
	var p struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(ack, &p)
	if got := string(p.Params.Meta["io.modelcontextprotocol/subscriptionId"]); got != jsonNumber(id) {
		t.Errorf("subscription id %s, want %s", got, jsonNumber(id))
	}
	s.NotifyResourceUpdated("test://other") // not subscribed: must not arrive
	s.NotifyResourceUpdated("test://r")
	n := c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/resources/updated" })
	var up struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(n, &up)
	if up.Params.URI != "test://r" {
		t.Errorf("updated %s, want test://r only", n)
	}
	c.Notify("notifications/cancelled", map[string]any{"requestId": id})
	select {
	case r := <-done:
		t.Errorf("a cancelled listen must not answer, got %s", r.Raw)
	default:
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLegacySubscribeAndLogLevel(t *testing.T) {
	s := serverWithResource()
	c := mcpkittest.Connect(t, s, mcpkit.Revision20251125, nil)
	c.Call("resources/subscribe", map[string]any{"uri": "test://r"})
	s.NotifyResourceUpdated("test://r")
	c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/resources/updated" })
	c.Call("logging/setLevel", map[string]any{"level": "warning"})
	c.CallTool("log", map[string]any{})
	n := c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/message" })
	var msg struct {
		Params struct {
			Level string `json:"level"`
		} `json:"params"`
	}
	_ = json.Unmarshal(n, &msg)
	if msg.Params.Level != "error" {
		t.Errorf("got %s: the debug message is below the level set", n)
	}
}

func TestModernLogOnlyWhenAsked(t *testing.T) {
	c := mcpkittest.Connect(t, serverWithResource(), mcpkit.Revision20260728, nil)
	c.CallTool("log", map[string]any{})
	res := c.Call("tools/call", map[string]any{"name": "log", "_meta": map[string]any{"io.modelcontextprotocol/logLevel": "error"}})
	_ = res
	n := c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/message" })
	for _, raw := range c.Notifications() {
		var m struct{ Method string }
		_ = json.Unmarshal(raw, &m)
		if m.Method == "notifications/message" && string(raw) != string(n) {
			t.Errorf("more than one log message: the first call did not ask for logs: %s", raw)
		}
	}
}

func TestLegacyListChangedHasNoNullParams(t *testing.T) {
	s := serverWithResource()
	c := mcpkittest.Connect(t, s, mcpkit.Revision20251125, nil)
	s.NotifyResourcesListChanged()
	n := c.WaitNotification(func(m string, _ json.RawMessage) bool { return m == "notifications/resources/list_changed" })
	if strings.Contains(string(n), "null") {
		t.Errorf("notification %s carries null params; the schema wants an object or none", n)
	}
}
