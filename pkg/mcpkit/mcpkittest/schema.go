package mcpkittest

// This file checks MCP messages against the official JSON schemas of the protocol
// (vendored under testdata/spec, see testdata/spec/SOURCE.md). Tests use it to prove
// that what a server puts on the wire is what the specification says, independently
// of the Go types pkg/mcpkit marshals: a bug shared by the encoder and its own tests
// cannot hide from the upstream schema. It deliberately does not import pkg/mcpkit.

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// specFiles holds the upstream schema files byte-for-byte, so tests never depend on
// anything outside the module.
//
//go:embed testdata/spec/2026-07-28/schema.json testdata/spec/2025-11-25/schema.json testdata/ext-tasks/schema.json
var specFiles embed.FS

// The Tasks extension (io.modelcontextprotocol/tasks) has a schema of its own, outside
// the core one (testdata/ext-tasks, see its SOURCE.md). A 2026-07-28 Validator checks
// against it what the extension adds: CreateTaskResult (resultType "task") answering
// tools/call, the tasks/get, tasks/update and tasks/cancel results, and
// notifications/tasks.
var (
	extTasksCatalog = sync.OnceValues(loadExtTasksCatalog)
	extTasksResults = map[string]string{"tasks/get": "GetTaskResult", "tasks/update": "UpdateTaskResult", "tasks/cancel": "CancelTaskResult"}
)

func loadExtTasksCatalog() (*schemaCatalog, error) {
	data, err := specFiles.ReadFile("testdata/ext-tasks/schema.json")
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("mcpkittest: ext-tasks schema: not valid JSON: %v", err)
	}
	c := &schemaCatalog{revision: "ext-tasks", base: "mcp-ext:///tasks/schema.json",
		compiler: jsonschema.NewCompiler(), compiled: map[string]*jsonschema.Schema{}}
	if err := c.compiler.AddResource(c.base, doc); err != nil {
		return nil, err
	}
	return c, nil
}

// validateExtTasks checks a message the Tasks extension defines against its schema,
// and the JSON-RPC envelope against the core one. handled is false for other messages.
func (v *Validator) validateExtTasks(what, def string, at string, msg map[string]any, envelope string) (handled bool, err error) {
	if v.revision != "2026-07-28" {
		return false, nil
	}
	ext, err := extTasksCatalog()
	if err != nil {
		return true, v.errorf("%v", err)
	}
	if envelope != "" {
		if err := v.run(what, msg, []schemaCheck{{def: envelope}}); err != nil {
			return true, err
		}
	}
	sch, err := ext.schema(def)
	if err != nil {
		return true, v.errorf("%v", err)
	}
	var instance any = msg
	prefix := ""
	if at != "" {
		instance, prefix = msg[at], "/"+at
	}
	var verr *jsonschema.ValidationError
	if err := sch.Validate(instance); errors.As(err, &verr) {
		return true, v.errorf("%s is not a valid %s (Tasks extension): %s", what, def, describeSchemaError(verr, prefix))
	} else if err != nil {
		return true, v.errorf("%s: validating against %s: %v", what, def, err)
	}
	return true, nil
}

// schemaFileFor maps each protocol revision a Validator accepts to the vendored schema
// that describes it. No 2025-06-18 schema is vendored: messages of that revision are
// checked against 2025-11-25, the revision that succeeded it.
var schemaFileFor = map[string]string{
	"2026-07-28": "2026-07-28",
	"2025-11-25": "2025-11-25",
	"2025-06-18": "2025-11-25",
}

// schemaCatalogs loads and indexes each vendored schema at most once per process; every
// Validator of a revision shares its schemaCatalog and thus its compiled schemas.
var schemaCatalogs = map[string]func() (*schemaCatalog, error){
	"2026-07-28": sync.OnceValues(func() (*schemaCatalog, error) { return loadSchemaCatalog("2026-07-28") }),
	"2025-11-25": sync.OnceValues(func() (*schemaCatalog, error) { return loadSchemaCatalog("2025-11-25") }),
}

// emptyResultMethods lists requests whose result type the JSON schema does not name:
// their TypeScript return type is EmptyResult, and the generated JSON keeps no link
// from the request to it (there is no PingResult, SetLevelResult, ...). Every other
// request is linked to its result by the schema's own naming (XRequest -> XResult or
// XResultResponse), and loadSchemaCatalog fails when a request has neither, so a schema
// update that adds a request cannot be silently skipped.
var emptyResultMethods = map[string]bool{
	"ping":                  true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
}

// Names that have a fixed meaning in every schema revision.
const (
	defResultResponse   = "JSONRPCResultResponse"
	defErrorResponse    = "JSONRPCErrorResponse"
	defEmptyResult      = "EmptyResult"
	defInputRequired    = "InputRequiredResult"
	resultTypeComplete  = "complete"
	resultTypeInputReq  = "input_required"
	maxReportedFailures = 6
)

// Validator checks MCP messages against the official JSON schema of one protocol
// revision. It is safe for concurrent use; schemas are compiled on first use and cached.
type Validator struct {
	revision string // as asked for, e.g. "2025-06-18"
	cat      *schemaCatalog
}

// NewValidator returns a Validator for revision "2026-07-28" or "2025-11-25";
// "2025-06-18" is accepted and checked against the 2025-11-25 schema.
func NewValidator(revision string) (*Validator, error) {
	file, ok := schemaFileFor[revision]
	if !ok {
		return nil, fmt.Errorf("mcpkittest: no schema for protocol revision %q; supported: 2026-07-28, 2025-11-25, 2025-06-18", revision)
	}
	cat, err := schemaCatalogs[file]()
	if err != nil {
		return nil, err
	}
	return &Validator{revision: revision, cat: cat}, nil
}

// ValidateResponse checks a JSON-RPC response the server sent for a request of the
// given method. A result is checked as a whole against the response type the schema
// gives that method (2026-07-28: e.g. ListToolsResultResponse; 2025-11-25: the
// JSONRPCResultResponse envelope plus e.g. ListToolsResult at /result). Where the
// schema allows an InputRequiredResult, the result's resultType picks the branch, so
// a "complete" result must be a full CallToolResult and not merely a Result.
// An error is checked against JSONRPCErrorResponse and, when the schema defines a type
// for its code (e.g. -32022 UnsupportedProtocolVersionError), against that type too;
// the method may then be any string, because servers answer unknown methods with errors.
func (v *Validator) ValidateResponse(method string, raw []byte) error {
	msg, err := v.decode("response", raw)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s response", method)
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	switch {
	case hasResult && hasError:
		return v.errorf("%s has both \"result\" and \"error\"; JSON-RPC 2.0 allows exactly one", what)
	case hasError:
		return v.checkError(what, msg)
	case !hasResult:
		return v.errorf("%s has neither \"result\" nor \"error\"; JSON-RPC 2.0 requires exactly one", what)
	}

	result, _ := msg["result"].(map[string]any)
	if def, ok := extTasksResults[method]; ok {
		if handled, err := v.validateExtTasks(what, def, "result", msg, defResultResponse); handled {
			return err
		}
	}
	if rt, _ := result["resultType"].(string); rt == "task" && method == "tools/call" {
		if handled, err := v.validateExtTasks(what, "CreateTaskResult", "result", msg, defResultResponse); handled {
			return err
		}
	}
	shape, ok := v.cat.results[method]
	if !ok {
		return v.errorf("no result type for method %q: it is not a client request in the schema (known: %s)",
			method, strings.Join(sortedSchemaKeys(v.cat.results), ", "))
	}
	var checks []schemaCheck
	resultType, _ := result["resultType"].(string) // result not an object: the envelope check says so
	switch {
	case resultType == resultTypeInputReq && !slices.Contains(shape.members, defInputRequired):
		return v.errorf("%s has resultType %q, but the schema allows only %s for %s",
			what, resultTypeInputReq, strings.Join(shape.members, " | "), method)
	case resultType == resultTypeInputReq:
		checks = append(checks, schemaCheck{def: defInputRequired, at: "result"})
	case resultType == resultTypeComplete && len(shape.members) == 2 && slices.Contains(shape.members, defInputRequired):
		complete := slices.DeleteFunc(slices.Clone(shape.members), func(d string) bool { return d == defInputRequired })
		checks = append(checks, schemaCheck{def: complete[0], at: "result"})
	}
	checks = append(checks, schemaCheck{def: shape.envelope})
	if shape.envelope == defResultResponse {
		for _, m := range shape.members {
			checks = append(checks, schemaCheck{def: m, at: "result"})
		}
	}
	return v.run(what, msg, checks)
}

// checkError validates an error response, then the error type its code selects.
func (v *Validator) checkError(what string, msg map[string]any) error {
	checks := []schemaCheck{{def: defErrorResponse}}
	if e, ok := msg["error"].(map[string]any); ok {
		if n, ok := e["code"].(json.Number); ok {
			if code, err := n.Int64(); err == nil {
				if def, ok := v.cat.errorResponses[code]; ok {
					checks = append(checks, schemaCheck{def: def})
				} else if def, ok := v.cat.errorObjects[code]; ok {
					checks = append(checks, schemaCheck{def: def, at: "error"})
				}
			}
		}
	}
	return v.run(what, msg, checks)
}

// ValidateNotification checks a notification a server sends to a client, by its
// method, against the members of the schema's ServerNotification union.
func (v *Validator) ValidateNotification(raw []byte) error {
	if bytes.Contains(raw, []byte(`"notifications/tasks"`)) {
		msg, err := v.decode("notification", raw)
		if err != nil {
			return err
		}
		if m, _ := msg["method"].(string); m == "notifications/tasks" {
			if handled, err := v.validateExtTasks("notifications/tasks notification", "TaskStatusNotification", "", msg, ""); handled {
				return err
			}
		}
	}
	return v.validateByMethod("notification", "ServerNotification", v.cat.serverNotifications, raw)
}

// ValidateServerRequest checks a request a server sends to a client, by its method,
// against the members of the schema's ServerRequest union. Only legacy revisions have
// one: in 2026-07-28 servers never send requests; they return an InputRequiredResult.
func (v *Validator) ValidateServerRequest(raw []byte) error {
	if v.cat.serverRequests == nil {
		return v.errorf("the schema defines no server-to-client requests (no ServerRequest union); " +
			"in this revision a server asks for input with an InputRequiredResult")
	}
	return v.validateByMethod("server request", "ServerRequest", v.cat.serverRequests, raw)
}

// ValidateRequest checks a request a client sends to a server, by its method, against
// the members of the schema's ClientRequest union. Tests use it to prove their own
// clients send what the specification allows.
func (v *Validator) ValidateRequest(raw []byte) error {
	if bytes.Contains(raw, []byte(`"tasks/`)) {
		msg, err := v.decode("client request", raw)
		if err != nil {
			return err
		}
		m, _ := msg["method"].(string)
		if def, ok := extTasksRequests[m]; ok {
			if handled, err := v.validateExtTasks(m+" client request", def, "", msg, ""); handled {
				return err
			}
		}
	}
	return v.validateByMethod("client request", "ClientRequest", v.cat.clientRequests, raw)
}

// extTasksRequests are the requests the Tasks extension adds.
var extTasksRequests = map[string]string{"tasks/get": "GetTaskRequest", "tasks/update": "UpdateTaskRequest", "tasks/cancel": "CancelTaskRequest"}

func (v *Validator) validateByMethod(what, union string, byMethod map[string]string, raw []byte) error {
	msg, err := v.decode(what, raw)
	if err != nil {
		return err
	}
	method, ok := msg["method"].(string)
	if !ok {
		return v.errorf("%s has no string \"method\"", what)
	}
	_, hasID := msg["id"]
	if what == "notification" && hasID {
		return v.errorf("%s %q has an \"id\"; a JSON-RPC notification must not have one", what, method)
	}
	def, ok := byMethod[method]
	if !ok {
		return v.errorf("unknown %s method %q: not in the schema's %s (known: %s)",
			what, method, union, strings.Join(sortedSchemaKeys(byMethod), ", "))
	}
	return v.run(fmt.Sprintf("%s %s", method, what), msg, []schemaCheck{{def: def}})
}

// decode parses one JSON object, keeping numbers exact as the schema validator wants.
func (v *Validator) decode(what string, raw []byte) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, v.errorf("%s is not valid JSON: %v", what, err)
	}
	msg, ok := doc.(map[string]any)
	if !ok {
		return nil, v.errorf("%s is not a JSON object (got %s)", what, jsonKind(doc))
	}
	return msg, nil
}

// check is one schema type applied to the message, or to one of its top-level members.
type schemaCheck struct {
	def string // name under $defs
	at  string // "" for the whole message, else a top-level member such as "result"
}

// run applies checks in order and reports the first that fails.
func (v *Validator) run(what string, msg map[string]any, checks []schemaCheck) error {
	for _, c := range checks {
		sch, err := v.cat.schema(c.def)
		if err != nil {
			return v.errorf("%v", err)
		}
		var instance any = msg
		prefix := ""
		if c.at != "" {
			instance, prefix = msg[c.at], "/"+c.at
		}
		var verr *jsonschema.ValidationError
		if err := sch.Validate(instance); errors.As(err, &verr) {
			return v.errorf("%s is not a valid %s: %s", what, c.def, describeSchemaError(verr, prefix))
		} else if err != nil {
			return v.errorf("%s: validating against %s: %v", what, c.def, err)
		}
	}
	return nil
}

func (v *Validator) errorf(format string, args ...any) error {
	rev := v.revision
	if rev != v.cat.revision {
		rev += " (checked with the " + v.cat.revision + " schema)"
	}
	return fmt.Errorf("mcp %s: %s", rev, fmt.Sprintf(format, args...))
}

// resultShape is what the schema says a successful response to one request looks like.
type resultShape struct {
	envelope string   // type checked against the whole response
	members  []string // types the "result" member may have (checked separately when envelope is generic)
}

// schemaCatalog is one schema file, indexed by method and error code, with a cache of
// compiled types.
type schemaCatalog struct {
	revision            string
	base                string // resource URL the file is registered under
	clientRequests      map[string]string
	serverRequests      map[string]string // nil when the schema has no ServerRequest union
	serverNotifications map[string]string
	results             map[string]resultShape // by client request method
	errorResponses      map[int64]string       // code -> type of the whole error response
	errorObjects        map[int64]string       // code -> type of the "error" member

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// schema returns the compiled type defs[name], compiling it on first use.
func (c *schemaCatalog) schema(name string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.compiled[name]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(c.base + "#/$defs/" + name)
	if err != nil {
		return nil, fmt.Errorf("compiling %s from the %s schema: %w", name, c.revision, err)
	}
	c.compiled[name] = s
	return s, nil
}

// loadSchemaCatalog reads the embedded schema of a revision and derives every method and
// error code mapping from its $defs, so the validator follows the schema, not a list
// kept by hand.
func loadSchemaCatalog(revision string) (*schemaCatalog, error) {
	fail := func(format string, args ...any) (*schemaCatalog, error) {
		return nil, fmt.Errorf("mcpkittest: schema %s: %s", revision, fmt.Sprintf(format, args...))
	}
	data, err := specFiles.ReadFile("testdata/spec/" + revision + "/schema.json")
	if err != nil {
		return fail("%v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fail("not valid JSON: %v", err)
	}
	root, _ := doc.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	if len(defs) == 0 {
		return fail("no $defs")
	}
	c := &schemaCatalog{
		revision: revision,
		base:     "mcp-spec:///" + revision + "/schema.json",
		compiler: jsonschema.NewCompiler(),
		compiled: map[string]*jsonschema.Schema{},
	}
	if err := c.compiler.AddResource(c.base, doc); err != nil {
		return fail("%v", err)
	}

	if c.clientRequests, err = unionByMethod(defs, "ClientRequest"); err != nil {
		return fail("%v", err)
	}
	if c.serverNotifications, err = unionByMethod(defs, "ServerNotification"); err != nil {
		return fail("%v", err)
	}
	if _, ok := defs["ServerRequest"]; ok {
		if c.serverRequests, err = unionByMethod(defs, "ServerRequest"); err != nil {
			return fail("%v", err)
		}
	}
	if c.results, err = resultShapes(defs, c.clientRequests); err != nil {
		return fail("%v", err)
	}
	c.errorResponses, c.errorObjects = errorTypes(defs)

	// Fail now, not in the middle of a test, if a referenced type does not compile.
	for _, name := range []string{defResultResponse, defErrorResponse} {
		if _, err := c.schema(name); err != nil {
			return fail("%v", err)
		}
	}
	return c, nil
}

// unionByMethod maps each method of a union type (ClientRequest, ServerNotification,
// ...) to the name of the member type that defines it through its `method` const.
func unionByMethod(defs map[string]any, union string) (map[string]string, error) {
	u, ok := defs[union].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no $defs/%s", union)
	}
	var members []string
	switch {
	case u["anyOf"] != nil:
		for _, alt := range schemaArray(u["anyOf"]) {
			name, ok := refName(alt)
			if !ok {
				return nil, fmt.Errorf("$defs/%s has an anyOf member that is not a $ref", union)
			}
			members = append(members, name)
		}
	case u["$ref"] != nil:
		name, _ := refName(u)
		members = []string{name}
	default:
		// A one-member union is generated inline, as a copy of its only member
		// (2026-07-28 ClientNotification is CancelledNotification): check against it.
		members = []string{union}
	}
	byMethod := make(map[string]string, len(members))
	for _, name := range members {
		method, ok := methodConst(defs[name])
		if !ok {
			return nil, fmt.Errorf("$defs/%s (in %s) has no method const", name, union)
		}
		byMethod[method] = name
	}
	return byMethod, nil
}

// resultShapes links each client request to its result type: XRequest to the
// XResultResponse type where the schema has one (2026-07-28), otherwise to XResult
// inside the generic JSONRPCResultResponse (2025-11-25), otherwise, for the few
// methods in emptyResultMethods, to EmptyResult.
func resultShapes(defs map[string]any, requests map[string]string) (map[string]resultShape, error) {
	shapes := make(map[string]resultShape, len(requests))
	for method, req := range requests {
		stem, ok := strings.CutSuffix(req, "Request")
		if !ok {
			return nil, fmt.Errorf("request type %s for %q does not end in Request", req, method)
		}
		if resp, ok := defs[stem+"ResultResponse"].(map[string]any); ok {
			props, _ := resp["properties"].(map[string]any)
			members := refNames(props["result"])
			if len(members) == 0 {
				return nil, fmt.Errorf("$defs/%sResultResponse has no $ref result", stem)
			}
			shapes[method] = resultShape{envelope: stem + "ResultResponse", members: members}
			continue
		}
		result := stem + "Result"
		if _, ok := defs[result]; !ok {
			if !emptyResultMethods[method] {
				return nil, fmt.Errorf("no result type for request %s (%q): neither %sResultResponse nor %s exists; "+
					"if it returns EmptyResult add it to emptyResultMethods", req, method, stem, result)
			}
			result = defEmptyResult
		}
		shapes[method] = resultShape{envelope: defResultResponse, members: []string{result}}
	}
	return shapes, nil
}

// errorTypes finds the error types whose code is a const: whole error responses
// (2026-07-28 UnsupportedProtocolVersionError, 2025-11-25 URLElicitationRequiredError,
// ...) and bare error objects (2026-07-28 ParseError, InvalidParamsError, ...).
func errorTypes(defs map[string]any) (responses, objects map[int64]string) {
	responses, objects = map[int64]string{}, map[int64]string{}
	for name, d := range defs {
		props, _ := schemaObject(d)["properties"].(map[string]any)
		if code, ok := codeConst(props["code"]); ok {
			objects[code] = name
		}
		for _, part := range schemaArray(schemaObject(props["error"])["allOf"]) {
			partProps, _ := schemaObject(part)["properties"].(map[string]any)
			if code, ok := codeConst(partProps["code"]); ok {
				responses[code] = name
			}
		}
	}
	return responses, objects
}

func codeConst(schema any) (int64, bool) {
	n, ok := schemaObject(schema)["const"].(json.Number)
	if !ok {
		return 0, false
	}
	code, err := n.Int64()
	return code, err == nil
}

func methodConst(def any) (string, bool) {
	props, _ := schemaObject(def)["properties"].(map[string]any)
	m, ok := schemaObject(props["method"])["const"].(string)
	return m, ok
}

// refNames returns the $defs names a schema refers to directly or through anyOf.
func refNames(schema any) []string {
	if name, ok := refName(schema); ok {
		return []string{name}
	}
	var names []string
	for _, alt := range schemaArray(schemaObject(schema)["anyOf"]) {
		if name, ok := refName(alt); ok {
			names = append(names, name)
		}
	}
	return names
}

func refName(schema any) (string, bool) {
	ref, _ := schemaObject(schema)["$ref"].(string)
	return strings.CutPrefix(ref, "#/$defs/")
}

func schemaObject(v any) map[string]any { m, _ := v.(map[string]any); return m }
func schemaArray(v any) []any           { s, _ := v.([]any); return s }
func sortedSchemaKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

var englishPrinter = message.NewPrinter(language.English)

// schemaFailure is one leaf of a schema validation error.
type schemaFailure struct {
	at, reason string
	defs       []string // the $defs types whose keyword failed there
}

// describeSchemaError flattens a validation error to its leaves, "at <pointer>: <reason> (<type>)",
// dropping anyOf/oneOf branches that were clearly not meant (see plausibleBranches)
// and merging identical leaves, so a message says what to fix in one line.
func describeSchemaError(verr *jsonschema.ValidationError, prefix string) string {
	var leaves []schemaFailure
	collectSchemaFailures(verr, prefix, &leaves)
	var merged []schemaFailure
	for _, l := range leaves {
		i := slices.IndexFunc(merged, func(m schemaFailure) bool { return m.at == l.at && m.reason == l.reason })
		if i < 0 {
			merged = append(merged, l)
		} else if !slices.Contains(merged[i].defs, l.defs[0]) {
			merged[i].defs = append(merged[i].defs, l.defs...)
		}
	}
	var parts []string
	for i, m := range merged {
		if i == maxReportedFailures {
			parts = append(parts, fmt.Sprintf("and %d more", len(merged)-i))
			break
		}
		at := m.at
		if at == "" {
			at = "top level"
		}
		parts = append(parts, fmt.Sprintf("at %s: %s (%s)", at, m.reason, strings.Join(m.defs, ", ")))
	}
	return strings.Join(parts, "; ")
}

func collectSchemaFailures(e *jsonschema.ValidationError, prefix string, out *[]schemaFailure) {
	if len(e.Causes) == 0 {
		*out = append(*out, schemaFailure{
			at:     prefix + jsonPointer(e.InstanceLocation),
			reason: e.ErrorKind.LocalizedString(englishPrinter),
			defs:   []string{defName(e.SchemaURL)},
		})
		return
	}
	causes := e.Causes
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		causes = plausibleBranches(e)
	}
	for _, c := range causes {
		collectSchemaFailures(c, prefix, out)
	}
}

// plausibleBranches drops the alternatives of an anyOf/oneOf that failed on a
// discriminator: a const or enum of a direct property (e.g. a content block whose
// "type" is "text" is not an ImageContent). If that would drop every branch, all stay.
func plausibleBranches(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	depth := len(e.InstanceLocation) + 1
	var kept []*jsonschema.ValidationError
	for _, branch := range e.Causes {
		if !failsDiscriminator(branch, depth) {
			kept = append(kept, branch)
		}
	}
	if len(kept) == 0 {
		return e.Causes
	}
	return kept
}

func failsDiscriminator(e *jsonschema.ValidationError, depth int) bool {
	switch e.ErrorKind.(type) {
	case *kind.Const, *kind.Enum:
		if len(e.InstanceLocation) == depth {
			return true
		}
	}
	for _, c := range e.Causes {
		if failsDiscriminator(c, depth) {
			return true
		}
	}
	return false
}

// jsonPointer renders an instance location as a JSON pointer (RFC 6901).
func jsonPointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return sb.String()
}

// defName extracts the $defs type from a schema location such as
// "mcp-spec:///2026-07-28/schema.json#/$defs/ListToolsResult/properties/tools".
func defName(schemaURL string) string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	rest, ok := strings.CutPrefix(frag, "/$defs/")
	if !ok {
		return "schema"
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}
