package mcpkittest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Which Validate method a case goes through.
const (
	asResponse      = "response"
	asNotification  = "notification"
	asServerRequest = "server request"
	asRequest       = "client request"
)

type schemaCase struct {
	name     string
	revision string
	kind     string // one of the as* constants
	method   string // for responses: the method of the request answered
	msg      string
	// wantErr lists fragments the error must contain; empty means the message is valid.
	wantErr []string
	// notErr lists fragments the error must not contain (noise the report should drop).
	notErr []string
}

func (c schemaCase) validate(t *testing.T) error {
	t.Helper()
	v, err := NewValidator(c.revision)
	if err != nil {
		t.Fatalf("NewValidator(%q): %v", c.revision, err)
	}
	raw := []byte(c.msg)
	switch c.kind {
	case asResponse:
		return v.ValidateResponse(c.method, raw)
	case asNotification:
		return v.ValidateNotification(raw)
	case asServerRequest:
		return v.ValidateServerRequest(raw)
	case asRequest:
		return v.ValidateRequest(raw)
	}
	t.Fatalf("bad case kind %q", c.kind)
	return nil
}

const (
	schemaTestRequestMeta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	schemaTestServerInfoMeta  = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-server-test","version":"0.1.0"}}`
)

func TestValidatorAcceptsSpecValidMessages(t *testing.T) {
	cases := []schemaCase{
		// 2026-07-28 results: each is checked against its XResultResponse type.
		{name: "2026 tools/list with resultType, ttlMs, cacheScope", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public",` + schemaTestServerInfoMeta + `,
				"tools":[{"name":"read_file","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}]}}`},
		{name: "2026 tools/call complete", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"structuredContent":{"n":1},"isError":false}}`},
		{name: "2026 tools/call input_required", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"opaque",
				"inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Proceed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}}}`},
		{name: "2026 server/discover", revision: "2026-07-28", kind: asResponse, method: "server/discover",
			msg: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}}}}`},
		{name: "2026 subscriptions/listen ended", revision: "2026-07-28", kind: asResponse, method: "subscriptions/listen",
			msg: `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`},
		{name: "2026 error -32022 with supported and requested", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg: `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}}`},
		{name: "2026 error -32021 with requiredCapabilities", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the elicitation capability","data":{"requiredCapabilities":{"elicitation":{}}}}}`},
		{name: "2026 error -32020 header mismatch", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}`},
		{name: "2026 error -32601 for an unknown method, without id", revision: "2026-07-28", kind: asResponse, method: "no/such/method",
			msg: `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}`},
		{name: "2026 acknowledged notification", revision: "2026-07-28", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]},"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"}}}`},
		{name: "2026 progress notification", revision: "2026-07-28", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":3,"total":10,"message":"scanning"}}`},
		{name: "2026 tools/list_changed notification", revision: "2026-07-28", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`},
		{name: "2026 resources/updated notification", revision: "2026-07-28", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///tmp/a.txt"}}`},
		{name: "2026 cancelled notification closing a listen stream", revision: "2026-07-28", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"shutdown"}}`},
		{name: "2026 tools/call request", revision: "2026-07-28", kind: asRequest,
			msg: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + schemaTestRequestMeta2026 + `,"name":"read_file","arguments":{"path":"a"}}}`},

		// 2025-11-25 results: JSONRPCResultResponse envelope plus the XResult at /result.
		{name: "2025 initialize result", revision: "2025-11-25", kind: asResponse, method: "initialize",
			msg: `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"mcp-server-test","version":"0.1.0"},"instructions":"Read-only."}}`},
		{name: "2025-06-18 initialize result", revision: "2025-06-18", kind: asResponse, method: "initialize",
			msg: `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`},
		{name: "2025 tools/call with object structuredContent", revision: "2025-11-25", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}}`},
		{name: "2025 ping result is EmptyResult", revision: "2025-11-25", kind: asResponse, method: "ping",
			msg: `{"jsonrpc":"2.0","id":4,"result":{}}`},
		{name: "2025 logging/setLevel result is EmptyResult", revision: "2025-11-25", kind: asResponse, method: "logging/setLevel",
			msg: `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{name: "2025 error -32042 URL elicitation required", revision: "2025-11-25", kind: asResponse, method: "tools/call",
			msg: `{"jsonrpc":"2.0","id":6,"error":{"code":-32042,"message":"Authorization required","data":{"elicitations":[{"mode":"url","message":"Sign in","url":"https://example.com/auth","elicitationId":"e1"}]}}}`},
		{name: "2025 message notification", revision: "2025-11-25", kind: asNotification,
			msg: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"fs","data":{"msg":"slow"}}}`},
		{name: "2025 elicitation/create server request", revision: "2025-11-25", kind: asServerRequest,
			msg: `{"jsonrpc":"2.0","id":10,"method":"elicitation/create","params":{"message":"Proceed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`},
		{name: "2025 roots/list server request", revision: "2025-11-25", kind: asServerRequest,
			msg: `{"jsonrpc":"2.0","id":11,"method":"roots/list"}`},
		{name: "2025 ping server request", revision: "2025-11-25", kind: asServerRequest,
			msg: `{"jsonrpc":"2.0","id":12,"method":"ping"}`},
		{name: "2025 initialize client request", revision: "2025-11-25", kind: asRequest,
			msg: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.validate(t); err != nil {
				t.Errorf("valid message rejected: %v", err)
			}
		})
	}
}

func TestValidatorRejectsInvalidMessages(t *testing.T) {
	cases := []schemaCase{
		{name: "2026 tools/list without ttlMs", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","cacheScope":"public","tools":[]}}`,
			wantErr: []string{"ListToolsResultResponse", "at /result: missing property 'ttlMs' (ListToolsResult)"}},
		{name: "2026 tools/call without resultType", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
			wantErr: []string{"CallToolResultResponse", "at /result: missing property 'resultType' (InputRequiredResult, CallToolResult)"}},
		{name: "2026 complete tools/call without content is not taken for an InputRequiredResult", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`,
			wantErr: []string{"not a valid CallToolResult", "at /result: missing property 'content' (CallToolResult)"}},
		{name: "2026 input_required on tools/list", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}`,
			wantErr: []string{`resultType "input_required"`, "only ListToolsResult for tools/list"}},
		{name: "2026 content block of type text without text names only TextContent", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","txt":"typo"}]}}`,
			wantErr: []string{"at /result/content/0: missing property 'text' (TextContent)"},
			notErr:  []string{"ImageContent", "AudioContent", "EmbeddedResource"}},
		{name: "2026 result without id", revision: "2026-07-28", kind: asResponse, method: "server/discover",
			msg:     `{"jsonrpc":"2.0","result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":[],"capabilities":{}}}`,
			wantErr: []string{"DiscoverResultResponse", "at top level: missing property 'id'"}},
		{name: "2025 structuredContent that is an array", revision: "2025-11-25", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1,2]}}`,
			wantErr: []string{"not a valid CallToolResult", "at /result/structuredContent: got array, want object"}},
		{name: "2025 initialize result without serverInfo", revision: "2025-11-25", kind: asResponse, method: "initialize",
			msg:     `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
			wantErr: []string{"InitializeResult", "missing property 'serverInfo'"}},
		{name: "2025-06-18 says which schema checked it", revision: "2025-06-18", kind: asResponse, method: "initialize",
			msg:     `{"jsonrpc":"2.0","id":0,"result":{"capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
			wantErr: []string{"mcp 2025-06-18 (checked with the 2025-11-25 schema)", "missing property 'protocolVersion'"}},
		{name: "error missing code", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"message":"boom"}}`,
			wantErr: []string{"not a valid JSONRPCErrorResponse", "at /error: missing property 'code' (Error)"}},
		{name: "2025 error missing code", revision: "2025-11-25", kind: asResponse, method: "ping",
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"message":"boom"}}`,
			wantErr: []string{"JSONRPCErrorResponse", "missing property 'code'"}},
		{name: "2026 error -32022 without supported", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"1900-01-01"}}}`,
			wantErr: []string{"UnsupportedProtocolVersionError", "at /error/data: missing property 'supported'"}},
		{name: "2026 error -32602 with non-string message", revision: "2026-07-28", kind: asResponse, method: "tools/call",
			msg:     `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":7}}`,
			wantErr: []string{"at /error/message: got number, want string"}},
		{name: "response with result and error", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"},"error":{"code":1,"message":"x"}}`,
			wantErr: []string{`both "result" and "error"`}},
		{name: "response with neither result nor error", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0","id":1}`,
			wantErr: []string{`neither "result" nor "error"`}},
		{name: "2026 result for a method the revision does not have", revision: "2026-07-28", kind: asResponse, method: "initialize",
			msg:     `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`,
			wantErr: []string{`no result type for method "initialize"`, "tools/list"}},
		{name: "response that is not JSON", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `{"jsonrpc":"2.0",`,
			wantErr: []string{"response is not valid JSON"}},
		{name: "response that is an array", revision: "2026-07-28", kind: asResponse, method: "tools/list",
			msg:     `[{"jsonrpc":"2.0","id":1,"result":{}}]`,
			wantErr: []string{"response is not a JSON object (got array)"}},
		{name: "notification with unknown method", revision: "2026-07-28", kind: asNotification,
			msg:     `{"jsonrpc":"2.0","method":"notifications/tools/changed"}`,
			wantErr: []string{`unknown notification method "notifications/tools/changed"`, "ServerNotification", "notifications/tools/list_changed"}},
		{name: "2026 notification only a client sends", revision: "2026-07-28", kind: asNotification,
			msg:     `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			wantErr: []string{`unknown notification method "notifications/initialized"`}},
		{name: "notification with an id", revision: "2025-11-25", kind: asNotification,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"notifications/tools/list_changed"}`,
			wantErr: []string{`has an "id"`}},
		{name: "2026 acknowledged notification without notifications", revision: "2026-07-28", kind: asNotification,
			msg:     `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`,
			wantErr: []string{"SubscriptionsAcknowledgedNotification", "at /params: missing property 'notifications'"}},
		{name: "2025 progress notification without progress", revision: "2025-11-25", kind: asNotification,
			msg:     `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`,
			wantErr: []string{"ProgressNotification", "missing property 'progress'"}},
		{name: "2026 has no server-to-client requests", revision: "2026-07-28", kind: asServerRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
			wantErr: []string{"no server-to-client requests", "InputRequiredResult"}},
		{name: "2025 server request a server cannot send", revision: "2025-11-25", kind: asServerRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			wantErr: []string{`unknown server request method "tools/list"`, "ServerRequest"}},
		{name: "2025 elicitation/create without requestedSchema", revision: "2025-11-25", kind: asServerRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"?"}}`,
			wantErr: []string{"ElicitRequest"}},
		{name: "2026 client request without _meta", revision: "2026-07-28", kind: asRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
			wantErr: []string{"ListToolsRequest", "at /params: missing property '_meta'"}},
		{name: "2026 client request without protocolVersion", revision: "2026-07-28", kind: asRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			wantErr: []string{"at /params/_meta: missing property 'io.modelcontextprotocol/protocolVersion'"}},
		{name: "2026 initialize is not a request", revision: "2026-07-28", kind: asRequest,
			msg:     `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
			wantErr: []string{`unknown client request method "initialize"`, "server/discover"}},
		{name: "request without method", revision: "2025-11-25", kind: asRequest,
			msg:     `{"jsonrpc":"2.0","id":1}`,
			wantErr: []string{`has no string "method"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.validate(t)
			if err == nil {
				t.Fatalf("invalid message accepted; want an error containing %q", c.wantErr)
			}
			got := err.Error()
			var missing, unwanted []string
			for _, w := range c.wantErr {
				if !strings.Contains(got, w) {
					missing = append(missing, w)
				}
			}
			for _, n := range c.notErr {
				if strings.Contains(got, n) {
					unwanted = append(unwanted, n)
				}
			}
			if diff := cmp.Diff([]string(nil), missing); diff != "" {
				t.Errorf("error lacks fragments (-want +missing):\n%s\nerror: %s", diff, got)
			}
			if diff := cmp.Diff([]string(nil), unwanted); diff != "" {
				t.Errorf("error has noise (-want +found):\n%s\nerror: %s", diff, got)
			}
			if n := strings.Count(got, "\n"); n != 0 {
				t.Errorf("error spans %d lines, want one: %s", n+1, got)
			}
		})
	}
}

func TestNewValidatorRejectsUnknownRevision(t *testing.T) {
	_, err := NewValidator("2024-11-05")
	if err == nil || !strings.Contains(err.Error(), `"2024-11-05"`) || !strings.Contains(err.Error(), "2026-07-28") {
		t.Errorf("NewValidator(2024-11-05) error = %v; want one naming the revision and the supported ones", err)
	}
}

// TestCatalogDerivedFromSchema pins what loadSchemaCatalog derives from each schema, so a
// schema update that changes a method's result or error type shows up as a diff.
func TestCatalogDerivedFromSchema(t *testing.T) {
	type shapes = map[string]resultShape
	cases := []struct {
		revision   string
		results    shapes // a sample of methods
		errorCodes map[int64]string
	}{
		{
			revision: "2026-07-28",
			results: shapes{
				"tools/list":           {envelope: "ListToolsResultResponse", members: []string{"ListToolsResult"}},
				"tools/call":           {envelope: "CallToolResultResponse", members: []string{"InputRequiredResult", "CallToolResult"}},
				"resources/read":       {envelope: "ReadResourceResultResponse", members: []string{"InputRequiredResult", "ReadResourceResult"}},
				"prompts/get":          {envelope: "GetPromptResultResponse", members: []string{"InputRequiredResult", "GetPromptResult"}},
				"server/discover":      {envelope: "DiscoverResultResponse", members: []string{"DiscoverResult"}},
				"subscriptions/listen": {envelope: "SubscriptionsListenResultResponse", members: []string{"SubscriptionsListenResult"}},
				"completion/complete":  {envelope: "CompleteResultResponse", members: []string{"CompleteResult"}},
			},
			errorCodes: map[int64]string{
				-32700: "ParseError", -32600: "InvalidRequestError", -32601: "MethodNotFoundError",
				-32602: "InvalidParamsError", -32603: "InternalError",
				-32020: "HeaderMismatchError", -32021: "MissingRequiredClientCapabilityError", -32022: "UnsupportedProtocolVersionError",
			},
		},
		{
			revision: "2025-11-25",
			results: shapes{
				"initialize":          {envelope: "JSONRPCResultResponse", members: []string{"InitializeResult"}},
				"tools/list":          {envelope: "JSONRPCResultResponse", members: []string{"ListToolsResult"}},
				"tools/call":          {envelope: "JSONRPCResultResponse", members: []string{"CallToolResult"}},
				"ping":                {envelope: "JSONRPCResultResponse", members: []string{"EmptyResult"}},
				"logging/setLevel":    {envelope: "JSONRPCResultResponse", members: []string{"EmptyResult"}},
				"resources/subscribe": {envelope: "JSONRPCResultResponse", members: []string{"EmptyResult"}},
				"tasks/result":        {envelope: "JSONRPCResultResponse", members: []string{"GetTaskPayloadResult"}},
			},
			errorCodes: map[int64]string{-32042: "URLElicitationRequiredError"},
		},
	}
	for _, c := range cases {
		t.Run(c.revision, func(t *testing.T) {
			cat, err := schemaCatalogs[c.revision]()
			if err != nil {
				t.Fatal(err)
			}
			got := shapes{}
			for m := range c.results {
				got[m] = cat.results[m]
			}
			if diff := cmp.Diff(c.results, got, cmp.AllowUnexported(resultShape{})); diff != "" {
				t.Errorf("result shapes (-want +got):\n%s", diff)
			}
			codes := map[int64]string{}
			for code, def := range cat.errorResponses {
				codes[code] = def
			}
			for code, def := range cat.errorObjects {
				codes[code] = def
			}
			if diff := cmp.Diff(c.errorCodes, codes); diff != "" {
				t.Errorf("error types by code (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCatalogMethods pins the method sets each schema's unions give, per direction.
func TestCatalogMethods(t *testing.T) {
	cases := []struct {
		revision                                string
		clientRequests, serverNotes, serverReqs []string
	}{
		{
			revision: "2026-07-28",
			clientRequests: []string{"completion/complete", "prompts/get", "prompts/list", "resources/list", "resources/read",
				"resources/templates/list", "server/discover", "subscriptions/listen", "tools/call", "tools/list"},
			serverNotes: []string{"notifications/cancelled", "notifications/message", "notifications/progress",
				"notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated",
				"notifications/subscriptions/acknowledged", "notifications/tools/list_changed"},
			serverReqs: []string{},
		},
		{
			revision: "2025-11-25",
			clientRequests: []string{"completion/complete", "initialize", "logging/setLevel", "ping", "prompts/get", "prompts/list",
				"resources/list", "resources/read", "resources/subscribe", "resources/templates/list", "resources/unsubscribe",
				"tasks/cancel", "tasks/get", "tasks/list", "tasks/result", "tools/call", "tools/list"},
			serverNotes: []string{"notifications/cancelled", "notifications/elicitation/complete", "notifications/message",
				"notifications/progress", "notifications/prompts/list_changed", "notifications/resources/list_changed",
				"notifications/resources/updated", "notifications/tasks/status", "notifications/tools/list_changed"},
			serverReqs: []string{"elicitation/create", "ping", "roots/list", "sampling/createMessage",
				"tasks/cancel", "tasks/get", "tasks/list", "tasks/result"},
		},
	}
	for _, c := range cases {
		t.Run(c.revision, func(t *testing.T) {
			cat, err := schemaCatalogs[c.revision]()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.clientRequests, sortedSchemaKeys(cat.clientRequests)); diff != "" {
				t.Errorf("client requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.serverNotes, sortedSchemaKeys(cat.serverNotifications)); diff != "" {
				t.Errorf("server notifications (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.serverReqs, sortedSchemaKeys(cat.serverRequests)); diff != "" {
				t.Errorf("server requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.clientRequests, sortedSchemaKeys(cat.results)); diff != "" {
				t.Errorf("methods with a result type (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryMappedTypeCompiles compiles every type a message can be checked against,
// so a mapping to a type that does not exist fails here rather than in a server test.
func TestEveryMappedTypeCompiles(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		cat, err := schemaCatalogs[rev]()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range []map[string]string{cat.clientRequests, cat.serverRequests, cat.serverNotifications} {
			for _, def := range m {
				names = append(names, def)
			}
		}
		for _, shape := range cat.results {
			names = append(names, shape.envelope)
			names = append(names, shape.members...)
		}
		for _, def := range cat.errorResponses {
			names = append(names, def)
		}
		for _, def := range cat.errorObjects {
			names = append(names, def)
		}
		for _, name := range names {
			if _, err := cat.schema(name); err != nil {
				t.Errorf("%s: %v", rev, err)
			}
		}
	}
}

// TestValidatorConcurrentUse validates from many goroutines at once with fresh
// Validators, so first-use compilation races are exercised (run with -race).
func TestValidatorConcurrentUse(t *testing.T) {
	valid := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":1,"cacheScope":"private","tools":[]}}`
	invalid := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","cacheScope":"private","tools":[]}}`
	v, err := NewValidator("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	const workers = 8
	errs := make([][2]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			errs[i][0] = v.ValidateResponse("tools/list", []byte(valid))
			errs[i][1] = v.ValidateResponse("tools/list", []byte(invalid))
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e[0] != nil {
			t.Errorf("worker %d: valid message rejected: %v", i, e[0])
		}
		if e[1] == nil || !strings.Contains(e[1].Error(), "ttlMs") {
			t.Errorf("worker %d: invalid message error = %v, want one naming ttlMs", i, e[1])
		}
	}
}

// TestEmbeddedSchemasMatchSource proves the embedded files are the upstream bytes
// (SHA-256 and git blob SHA-1 as recorded when they were copied) and that SOURCE.md
// states the same facts.
func TestEmbeddedSchemasMatchSource(t *testing.T) {
	type facts struct {
		Blob, SHA256 string
		Size         int
	}
	want := map[string]facts{
		"2026-07-28/schema.json": {Blob: "213c58f6d9a1c2ce6ad055afe90bbdb095a29ee8", SHA256: "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203", Size: 181474},
		"2025-11-25/schema.json": {Blob: "c722dd45ba83610bec2b3f576a7658d5d6dc1553", SHA256: "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7", Size: 174323},
	}

	embedded := map[string]facts{}
	for file := range want {
		data, err := specFiles.ReadFile("testdata/spec/" + file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		blob := sha1.New()
		fmt.Fprintf(blob, "blob %d\x00", len(data))
		blob.Write(data)
		embedded[file] = facts{Blob: hex.EncodeToString(blob.Sum(nil)), SHA256: hex.EncodeToString(sum[:]), Size: len(data)}
	}
	if diff := cmp.Diff(want, embedded); diff != "" {
		t.Errorf("embedded schema files differ from the upstream copies (-want +got):\n%s", diff)
	}

	doc, err := os.ReadFile(filepath.Join("testdata", "spec", "SOURCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Rows look like: | `2026-07-28/schema.json` | `schema/...` | `<blob>` | `<sha256>` | 181474 |
	row := regexp.MustCompile("(?m)^\\| `([^`]+/schema\\.json)` \\| `schema/([^`]+)` \\| `([0-9a-f]{40})` \\| `([0-9a-f]{64})` \\| ([0-9]+) \\|$")
	stated := map[string]facts{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		if m[1] != m[2] {
			t.Errorf("SOURCE.md row for %s names upstream path schema/%s", m[1], m[2])
		}
		size, _ := strconv.Atoi(m[5])
		stated[m[1]] = facts{Blob: m[3], SHA256: m[4], Size: size}
	}
	if diff := cmp.Diff(want, stated); diff != "" {
		t.Errorf("SOURCE.md table differs from the embedded files (-want +stated):\n%s", diff)
	}
	for _, fact := range []string{
		"https://github.com/modelcontextprotocol/modelcontextprotocol",
		"b0f60ba5409db7a6582440a7b473cc0398890f15",
		"Apache License, Version 2.0", "MIT License",
	} {
		if !strings.Contains(string(doc), fact) {
			t.Errorf("SOURCE.md does not state %q", fact)
		}
	}
}

// TestExtTasksSchemaMatchesSource proves the embedded Tasks extension schema is the
// upstream file SOURCE.md names.
func TestExtTasksSchemaMatchesSource(t *testing.T) {
	data, err := specFiles.ReadFile("testdata/ext-tasks/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	blob := sha1.New()
	fmt.Fprintf(blob, "blob %d\x00", len(data))
	blob.Write(data)
	doc, err := os.ReadFile(filepath.Join("testdata", "ext-tasks", "SOURCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fact := range []string{hex.EncodeToString(blob.Sum(nil)), hex.EncodeToString(sum[:]), strconv.Itoa(len(data)) + " bytes",
		"e4345978be1f602f1fc48d89051e8559dd5302a6", "https://github.com/modelcontextprotocol/ext-tasks", "Apache License, Version 2.0"} {
		if !strings.Contains(string(doc), fact) {
			t.Errorf("testdata/ext-tasks/SOURCE.md does not state %q", fact)
		}
	}
	if len(data) != 99181 || hex.EncodeToString(sum[:]) != "10933a5003097bbccb03d964e6a5f7a2819cc4d7a1d07e27c6765cbf5da35c5c" {
		t.Errorf("the embedded ext-tasks schema is not the file copied from upstream")
	}
}
