package mcpkit

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ServerOptions configure a Server. The zero value is usable.
type ServerOptions struct {
	// Instructions tell the model how to use the server (server/discover, initialize).
	Instructions string
	// Logger receives the server's own logs; nil logs to stderr at info level. Logs never
	// contain tokens or tool arguments.
	Logger *slog.Logger
	// ReadOnly makes AddTool skip every tool whose annotations do not say ReadOnlyHint,
	// so a read-only server does not expose write tools at all.
	ReadOnly bool
	// WritesHint says how to enable writes, for the answer to a call of a write tool
	// that ReadOnly left out (a model or a person who read the README calls it anyway):
	// "tool write_file changes things, and this server runs read-only: <hint>". Empty:
	// "restart the server with --allow-writes", the flag of every server here.
	WritesHint string
	// WriteScope, when set, is added to the Scopes of every tool registered whose
	// annotations do not say ReadOnlyHint (the tools ReadOnly leaves out), by every
	// registration path: over authorized HTTP a token then needs it for any tool that
	// changes something, and Protected Resource Metadata lists it. The servers here set
	// it to their [WriteScope] ("files:write"), so no write tool can be added without it.
	WriteScope string
	// SchemaCompiler validates the arguments of tools whose input schema uses JSON
	// Schema keywords beyond those mcpkit checks itself (see internal/argschema): $ref,
	// if/then/else, patternProperties and the like. schemafull.Compile is a complete
	// one. Without it such a tool panics at registration (a schema the server wrote)
	// or fails its first call and Server.CheckTools (one mcpkit generated) rather
	// than go unchecked.
	SchemaCompiler SchemaCompiler
	// StateKey signs the requestState of multi-round-trip requests. Every instance
	// behind one load balancer needs the same key; nil picks a random key per process.
	StateKey []byte
	// StateTTL bounds how long a requestState stays valid (default 10 minutes).
	StateTTL time.Duration
	// ReplayGuard remembers the requestStates already used, so each is good for one
	// retry and a finished confirmation sent again repeats nothing. nil: an in-memory
	// guard of this process (NewReplayGuard). Instances behind one load balancer can
	// share one to refuse a replay sent to another instance as well.
	ReplayGuard ReplayGuard
	// InputSchemas are the input schemas of the server's typed tools generated ahead of
	// time: a JSON object from tool name to schema, as mcpkittest.InputSchemas writes
	// it (a file the server embeds with //go:embed). [AddTool] takes a tool's schema
	// from it instead of generating it from the Go input type by reflection, most of
	// a server's start otherwise; a tool it lacks is generated as before. It must be
	// what reflection gives: mcpkittest.InputSchemas fails the server's tests when an
	// entry differs or is missing, and rewrites the file with -update. The JSON is
	// trusted (it is the server's own); an entry must be a compact JSON object.
	InputSchemas []byte
	// ToolVisible, when set, narrows the registered tools per request: tools/list
	// leaves out, and tools/call answers as unknown, every tool it returns false for.
	// It can only hide what is registered, never add a tool; a server reads
	// [Request.Header] in it to let an HTTP deployment's clients ask for fewer tools
	// than the command line enables (the github server's X-MCP-Toolsets). nil: every
	// registered tool.
	ToolVisible func(req *Request, name string) bool
	// OutputSchemas publishes each tool's output schema in tools/list, and then every
	// typed tool's result carries its structuredContent as the schema says (the spec
	// requires it of a tool with an output schema). Off by default, the one policy of
	// the servers here: no host puts an outputSchema in front of the model (VS Code
	// and Claude Code pass it only name, description and inputSchema), yet it is most
	// of a typed tool's tools/list bytes, and validating clients (the TypeScript and
	// Python SDKs, Claude Code) turn any mismatch into a failed call. Without it a
	// result whose JSON is an object still comes as structuredContent plus the same
	// JSON as text (valid for clients that use it); any other value, and an output
	// that renders as text ([TextRenderer]), comes as text only: VS Code and Claude
	// Code give the model JSON.stringify(structuredContent) in place of the text
	// blocks whenever structuredContent is present, which would turn a file's lines
	// back into an escaped JSON string. Turn it on for programmatic clients that want
	// the typed values of every tool.
	OutputSchemas bool
	// NoConfirm makes Request.Confirm return nil without asking the user: for
	// unattended agents whose host already confirms each call. The servers of this
	// repository set it from their --no-confirm flag.
	NoConfirm bool
	// PageSize is the number of items per page of list results (default 100).
	PageSize int
	// ListTTL is the ttlMs hint on list results and server/discover (default 60 s; a
	// list_changed notification invalidates it earlier).
	ListTTL time.Duration
	// MaxMessageBytes bounds one incoming message (default 4 MiB).
	MaxMessageBytes int
	// MaxConcurrent bounds requests handled at once on one stdio connection (default 64).
	MaxConcurrent int
	// ToolTimeout bounds one tools/call: the handler's context ends after it, and a
	// call that stops for that reason answers isError saying so (0: no limit). On a
	// legacy session it includes waiting for the client's answer to an elicitation.
	ToolTimeout time.Duration
	// ErrorReporter, when set, receives handler panics and internal errors (for
	// example sentryreport.New). It is called on the request's goroutine.
	ErrorReporter ErrorReporter

	// Tasks (the Tasks extension, for tools with TaskSupport; see tasks.go).

	// TaskStore keeps task state (nil: NewMemoryTaskStore, this process only).
	// Instances behind one load balancer need one shared store (package
	// taskstore/redisstore), as they need one StateKey.
	TaskStore TaskStore
	// TaskBudget is how long a call of a tool with TaskSupport, from a client that
	// declared the extension, may run before it is answered as a task (default
	// DefaultTaskBudget, 250 ms). Work that ends sooner is answered inline.
	TaskBudget time.Duration
	// TaskTTL is how long a task and its result are kept after the task last
	// changed (default DefaultTaskTTL, one hour); its ttlMs counts from its creation
	// to that time. It also bounds how long a task's work may run.
	TaskTTL time.Duration
	// TaskPollInterval is the pollIntervalMs suggested to clients (default 1 s).
	TaskPollInterval time.Duration
	// TaskLease is how long a task's work is taken to be running on an instance
	// after that instance last said so (it renews it every third of it): a task
	// whose instance stopped is reported failed once the lease has run out (default
	// DefaultTaskLease, 15 s).
	TaskLease time.Duration
}

// Server holds what an MCP server exposes and answers requests for it over any
// transport. Register tools, resources and prompts before serving; registering later
// is allowed and notifies listening clients.
type Server struct {
	info     Implementation
	infoOnce sync.Once
	infoRaw  json.RawMessage
	opts     ServerOptions
	logger   *slog.Logger

	// What the server exposes, each kind in one [registry] (registration order, one
	// notification rule).
	tools     *registry[*registeredTool]
	withheld  sync.Map // names of the write tools ReadOnly left out (see ServerOptions.WritesHint)
	resources *registry[*registeredResource]
	templates *registry[*registeredTemplate]
	prompts   *registry[*registeredPrompt]

	mu             sync.RWMutex
	resourceLister ResourceLister
	completer      CompletionHandler
	logging        bool
	mws            []Middleware
	// observers is replaced whole by Observe (under mu) and read without a lock on
	// every request.
	observers atomic.Pointer[[]Observer]
	// lifecycle is replaced whole by ObserveLifecycle (observe_lifecycle.go).
	lifecycle atomic.Pointer[[]LifecycleObserver]
	// handler is the dispatch chain with middleware applied: replaced by Use (under
	// mu), read without a lock on every request.
	handler atomic.Pointer[MethodHandler]

	hub      *hub
	tasks    *taskManager
	replay   ReplayGuard
	stateKey []byte
	// stateKeySet is true when the operator chose the key (ServerOptions.StateKey or
	// SetStateKey); otherwise serve.Serve may take one from the environment.
	stateKeySet bool

	// inputSchemas is ServerOptions.InputSchemas by tool name (values share its bytes).
	inputSchemas map[string]json.RawMessage

	// live is set once the server has begun serving; registry changes after that notify.
	live atomic.Bool
}

// NewServer returns a server that introduces itself as info.
func NewServer(info Implementation, opts *ServerOptions) *Server {
	s := &Server{info: info, hub: newHub()}
	s.tools = newRegistry[*registeredTool](&s.live, s.NotifyToolsListChanged)
	s.resources = newRegistry[*registeredResource](&s.live, s.NotifyResourcesListChanged)
	s.templates = newRegistry[*registeredTemplate](&s.live, s.NotifyResourcesListChanged)
	s.prompts = newRegistry[*registeredPrompt](&s.live, s.NotifyPromptsListChanged)
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.StateTTL <= 0 {
		s.opts.StateTTL = 10 * time.Minute
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.ListTTL <= 0 {
		s.opts.ListTTL = 60 * time.Second
	}
	if s.opts.MaxMessageBytes <= 0 {
		s.opts.MaxMessageBytes = 4 << 20
	}
	if s.opts.MaxConcurrent <= 0 {
		s.opts.MaxConcurrent = 64
	}
	if len(s.opts.InputSchemas) > 0 {
		s.inputSchemas = map[string]json.RawMessage{}
		ok := splitObject(s.opts.InputSchemas, func(key, value []byte) bool {
			s.inputSchemas[string(key)] = value[:len(value):len(value)]
			return true
		})
		if !ok {
			panic("mcpkit: ServerOptions.InputSchemas is not a JSON object of tool names to schemas")
		}
	}
	s.tasks = newTaskManager(s, &s.opts)
	s.replay = s.opts.ReplayGuard
	if s.replay == nil {
		s.replay = NewReplayGuard(0)
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	s.stateKey = s.opts.StateKey
	s.stateKeySet = len(s.stateKey) > 0
	if len(s.stateKey) == 0 {
		s.stateKey = make([]byte, 32)
		_, _ = rand.Read(s.stateKey)
	}
	h := MethodHandler(s.dispatch)
	s.handler.Store(&h)
	return s
}

// stderr is a variable so tests can silence the default logger.
var stderr io.Writer = os.Stderr

// Info returns the server's implementation info.
func (s *Server) Info() Implementation { return s.info }

// Logger returns the server's logger, for handlers that want to log.
func (s *Server) Logger() *slog.Logger { return s.logger }

// MethodHandler answers one request. The result is a JSON-encodable value; an error
// that is (or wraps) *Error becomes a JSON-RPC error, any other error -32603.
type MethodHandler func(ctx context.Context, req *Request) (any, error)

// Middleware wraps every request's handling: audit logs, authorization, metrics.
type Middleware func(next MethodHandler) MethodHandler

// Use adds middleware; the first added runs outermost.
func (s *Server) Use(mw ...Middleware) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := MethodHandler(s.dispatch)
	all := append(slices.Clone(s.mws), mw...)
	for i := len(all) - 1; i >= 0; i-- {
		h = all[i](h)
	}
	s.mws = all
	s.handler.Store(&h)
}

// EnableLogging advertises the logging capability so handlers' Request.Log messages
// reach clients that ask for them.
func (s *Server) EnableLogging() {
	s.mu.Lock()
	s.logging = true
	s.mu.Unlock()
}

// capabilities computes what the server advertises from what is registered.
func (s *Server) capabilities() ServerCapabilities {
	var c ServerCapabilities
	if s.tools.len() > 0 {
		c.Tools = &ListChangedCap{ListChanged: true}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.resources.len() > 0 || s.templates.len() > 0 || s.resourceLister != nil {
		c.Resources = &ResourcesCap{Subscribe: true, ListChanged: true}
	}
	if s.prompts.len() > 0 {
		c.Prompts = &ListChangedCap{ListChanged: true}
	}
	if s.completer != nil {
		c.Completions = &struct{}{}
	}
	if s.logging {
		c.Logging = &struct{}{}
	}
	if s.tasks.capable.Load() {
		c.Extensions = tasksExtensionCaps
	}
	return c
}

// markLive records that serving has begun: from then on registrations notify.
func (s *Server) markLive() { s.live.Store(true) }
