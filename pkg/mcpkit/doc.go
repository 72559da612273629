// Package mcpkit is a small Model Context Protocol server library: JSON-RPC 2.0
// dispatch, revision 2026-07-28 (stateless, per-request _meta) and the 2025-11-25 /
// 2025-06-18 initialize handshake in one server, typed tools whose input and output
// schemas come from Go structs, resources, prompts, completion, multi-round-trip
// input (elicitation, sampling, roots) with signed request state, change
// notifications, and two transports: stdio and Streamable HTTP.
//
// A complete server:
//
//	type greetIn struct {
//		Name string `json:"name" jsonschema_description:"Who to greet"`
//	}
//	type greetOut struct {
//		Greeting string `json:"greeting"`
//	}
//
//	func main() {
//		s := mcpkit.NewServer(mcpkit.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//		mcpkit.AddTool(s, &mcpkit.Tool{
//			Name:        "greet",
//			Description: "Greet someone by name.",
//			Annotations: mcpkit.ReadOnly(),
//		}, func(ctx context.Context, req *mcpkit.Request, in greetIn) (greetOut, error) {
//			return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
//		})
//		if err := serve.Serve(context.Background(), s, nil); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// serve.Serve (package serve, the process around a server: signals, health checks,
// graceful shutdown, the standard flags) speaks stdio by default and Streamable HTTP
// with serve.Options.HTTPAddr; [Server.ServeStdio] and [Server.HTTPHandler] are the
// transports themselves. Both revisions are served at once: a request whose _meta
// names 2026-07-28 is answered statelessly; a client that sends initialize gets the
// legacy session semantics.
//
// Every request takes one path whatever the transport: the connection's session admits
// it (an id in flight once, cancellable by notifications/cancelled), [Server] prepares
// it for its revision, [Middleware] installed with [Server.Use] wraps the handler, and
// observers installed with [Server.Observe] (the audit log, [Audit]) see the encoded
// response. Tools, resources, templates and prompts are kept in registration order
// and follow one rule: a change after serving began notifies listening clients once.
//
// What not every server needs lives in packages of its own, so a binary links only
// what it uses: package auth (OAuth resource server: bearer tokens, Protected
// Resource Metadata, per-tool scopes; an [HTTPAuthenticator]), package auth/jwt (JWT
// access tokens, the only importer of a JOSE library), package sentryreport (an
// [ErrorReporter] for Sentry, the only importer of sentry-go), package otelmcp
// (OpenTelemetry spans and metrics of every request, from [Middleware] and
// [Server.ObserveLifecycle]; the only importer of the OpenTelemetry SDK) and package
// serve.
//
// Arguments are checked against the tool's input schema before the handler runs, and
// a failure is an isError result naming each bad field. mcpkit checks the keywords its
// generated schemas use itself (type, properties, required, additionalProperties,
// items, enum, const, bounds, lengths, pattern, anyOf/oneOf/allOf/not); a hand-written
// schema with others ($ref, if/then/else, …) needs [ServerOptions].SchemaCompiler, for
// which package schemafull offers a complete 2020-12 validator. Registering such a tool
// without one panics, so no keyword is silently left unchecked. An optional argument
// sent as null is treated as absent, at both revisions: agent frameworks with strict
// schemas (OpenAI's) make every property required-or-null, so their models send null
// for each argument they leave out. A required argument sent as null is refused.
//
// A typed tool's output goes out as structuredContent plus the same JSON as text (an
// output that is a [TextRenderer] as its text alone), and no output schema is
// published unless [ServerOptions].OutputSchemas asks for it: no host shows output
// schemas to the model, which pays for every byte of tools/list it is shown.
//
// Handlers return Go values and errors. A Go error from a tool becomes a tool result
// with isError set (the model can read it and correct itself); an *[Error] becomes a
// JSON-RPC error. [Request.Elicit], [Request.Sample] and [Request.ListRoots] ask the client
// for input: on a legacy session they send a server-to-client request and wait; on
// 2026-07-28 they make the handler return [ErrInputRequired], mcpkit answers
// input_required with a signed requestState, and runs the handler again with the
// answers when the client retries. Each requestState is good for one retry (a
// ReplayGuard remembers the used ones), so a finished round sent again is refused.
// A tool whose work may take long sets [Tool].TaskSupport: for a client that
// declared the Tasks extension ([ExtensionTasks]) a call that outlasts
// ServerOptions.TaskBudget is answered with a task (tasks/get, tasks/update,
// tasks/cancel, notifications/tasks on subscriptions/listen), kept in a [TaskStore]
// that instances behind one load balancer share; other clients get the same handler
// blocking, with progress. See tasks.go.
//
// Request.Confirm is the one way the servers here ask the user to confirm a write: it
// handles every answer, a client without elicitation and ServerOptions.NoConfirm the
// same way everywhere, and binds the answer to what was shown.
package mcpkit
