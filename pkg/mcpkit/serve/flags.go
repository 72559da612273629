package serve

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/auth"
)

// Flags are the standard flags of every server's main: transport, remote
// deployment (authorization, limits, timeouts, shutdown) and observability. Each flag
// also has an environment variable ([FlagEnv]), used when the flag is not given,
// so a container is configured the same way as a command line.
//
//	fs := flag.NewFlagSet("mcp-server-x", flag.ContinueOnError)
//	sf := serve.RegisterFlags(fs)
//	sf.JWT = jwt.FromIssuer            // --auth-issuer (package auth/jwt)
//	sf.Reporter = sentryreport.FromEnv // SENTRY_DSN (package sentryreport)
//	... the server's own flags ...
//	if err := fs.Parse(args); err != nil { return err }
//	opts, err := sf.Options()
//	if err != nil { return err }
//	return serve.Serve(ctx, newServer(...), opts)
type Flags struct {
	// JWT makes the verifier of the JWT access tokens --auth-issuer asks for. It is
	// nil unless main sets it, to jwt.FromIssuer of package auth/jwt, so that a
	// server that does not want JWT verification does not link a JOSE library;
	// such a server refuses --auth-issuer.
	JWT func(issuer, audience, jwksURL string, algorithms []string) (auth.Verifier, error)
	// Reporter makes the reporter of panics and internal errors from the environment
	// (nil, nil: none configured). It is nil unless main sets it, to
	// sentryreport.FromEnv of package sentryreport, so that a server that does not
	// report to Sentry does not link sentry-go; such a server refuses SENTRY_DSN.
	Reporter func(release string) (mcpkit.ErrorReporter, error)
	// TaskStore opens the shared store of the Tasks extension's tasks that
	// --task-store names (a URL). It is nil unless main sets it, to
	// redisstore.FromURL of package taskstore/redisstore, so that a server that does
	// not want a shared store does not link a Redis client; such a server refuses
	// --task-store and keeps its tasks in memory.
	TaskStore func(url string) (mcpkit.TaskStore, error)
	// Telemetry makes the OpenTelemetry instrumentation from the standard OTEL_*
	// environment when --otel is given (enabled) or the environment asks for it on
	// its own (nil, nil: none configured). It is nil unless main sets it, to
	// otelmcp.FromEnv of package otelmcp, so that a server without it links no
	// OpenTelemetry SDK; such a server refuses --otel (and ignores OTEL_*
	// variables, which hosts often set for every process). service is the flag
	// set's name, the default service.name.
	Telemetry func(enabled bool, service, version string) (Telemetry, error)

	fs *flag.FlagSet

	httpAddr, path                              string
	allowedOrigins, allowedHosts                string
	authStaticFile, authIssuer, authJWKSURL     string
	authResource, authScopes, authAlgorithms    string
	maxConcurrent, maxStreams, maxCallerStreams int
	maxBodyBytes                                int64
	toolTimeout, keepAlive, streamLifetime      time.Duration
	readHeaderTimeout, readTimeout, idleTimeout time.Duration
	shutdownTimeout, drainDelay                 time.Duration
	audit, otel                                 bool
	stateKeyFile                                string
	taskStore, replayStore, limitStore          string
	maxRate                                     int
	taskTTL, taskLease                          time.Duration
}

// FlagEnv maps each standard flag to its environment variable.
var FlagEnv = map[string]string{
	"http":                   "MCP_HTTP_ADDR",
	"http-path":              "MCP_HTTP_PATH",
	"allowed-origins":        "MCP_ALLOWED_ORIGINS",
	"allowed-hosts":          "MCP_ALLOWED_HOSTS",
	"auth-static-file":       "MCP_AUTH_STATIC_FILE",
	"auth-issuer":            "MCP_AUTH_ISSUER",
	"auth-jwks-url":          "MCP_AUTH_JWKS_URL",
	"auth-resource":          "MCP_AUTH_RESOURCE",
	"auth-scopes":            "MCP_AUTH_SCOPES",
	"auth-algorithms":        "MCP_AUTH_ALGORITHMS",
	"max-concurrent":         "MCP_MAX_CONCURRENT",
	"max-body-bytes":         "MCP_MAX_BODY_BYTES",
	"max-streams":            "MCP_MAX_STREAMS",
	"max-streams-per-caller": "MCP_MAX_STREAMS_PER_CALLER",
	"stream-lifetime":        "MCP_STREAM_LIFETIME",
	"keep-alive":             "MCP_KEEP_ALIVE",
	"tool-timeout":           "MCP_TOOL_TIMEOUT",
	"read-header-timeout":    "MCP_READ_HEADER_TIMEOUT",
	"read-timeout":           "MCP_READ_TIMEOUT",
	"idle-timeout":           "MCP_IDLE_TIMEOUT",
	"shutdown-timeout":       "MCP_SHUTDOWN_TIMEOUT",
	"drain-delay":            "MCP_DRAIN_DELAY",
	"audit":                  "MCP_AUDIT",
	"otel":                   "MCP_OTEL",
	"state-key-file":         EnvStateKeyFile,
	"task-store":             "MCP_TASK_STORE",
	"replay-store":           "MCP_REPLAY_STORE",
	"limit-store":            "MCP_LIMIT_STORE",
	"max-rate":               "MCP_MAX_RATE",
	"task-ttl":               "MCP_TASK_TTL",
	"task-lease":             "MCP_TASK_LEASE",
}

// Environment variables read without a flag: they hold secrets, which do not belong
// on a command line (visible in ps and in container specs).
const (
	// EnvAuthStaticTokens holds a static token list inline (see [auth.StaticTokens];
	// entries separated by newlines or ';').
	EnvAuthStaticTokens = "MCP_AUTH_STATIC_TOKENS"
	// EnvSentryDSN turns on error reporting to Sentry ([Flags.Reporter]).
	EnvSentryDSN = "SENTRY_DSN"
)

// defaultJWTAlgorithms is the default of --auth-algorithms: every asymmetric JWS
// algorithm, as jwt.DefaultAlgorithms lists them (a test of package auth/jwt checks
// that they agree; this package does not import it).
const defaultJWTAlgorithms = "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA"

// OTelEnv are the standard OpenTelemetry variables a server built with package
// otelmcp ([Flags.Telemetry]) reads; OTEL_EXPORTER_OTLP_ENDPOINT alone turns
// exporting on. A server built without it ignores them.
var OTelEnv = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_SDK_DISABLED"}

// StandardEnv lists every environment variable [Flags] and [Serve] read (the Sentry
// ones when [Flags.Reporter] is set, the OpenTelemetry ones when [Flags.Telemetry]
// is), for documentation and for checking deployment manifests.
func StandardEnv() []string {
	env := append([]string{EnvStateKey, EnvAuthStaticTokens, EnvSentryDSN, "SENTRY_ENVIRONMENT", "SENTRY_RELEASE"}, OTelEnv...)
	for _, e := range FlagEnv {
		if !slices.Contains(env, e) {
			env = append(env, e)
		}
	}
	slices.Sort(env)
	return env
}

// RegisterFlags defines the standard flags on fs.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	env := func(name string) string { return " (env " + FlagEnv[name] + ")" }
	fs.StringVar(&f.httpAddr, "http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080 or :8080) instead of stdio"+env("http"))
	fs.StringVar(&f.path, "http-path", "/mcp", "path of the MCP endpoint on HTTP"+env("http-path"))
	fs.StringVar(&f.allowedOrigins, "allowed-origins", "", "comma-separated browser origins allowed besides loopback ones, * for any"+env("allowed-origins"))
	fs.StringVar(&f.allowedHosts, "allowed-hosts", "", "comma-separated Host header values accepted (default: any, or loopback names when listening on loopback)"+env("allowed-hosts"))
	fs.StringVar(&f.authStaticFile, "auth-static-file", "", "require bearer tokens from this static token file (lines: sha256:<hex> subject scope1,scope2); tokens may also come inline from "+EnvAuthStaticTokens+env("auth-static-file"))
	fs.StringVar(&f.authIssuer, "auth-issuer", "", "require JWT access tokens from this OAuth issuer (its JWKS is discovered from its metadata)"+env("auth-issuer"))
	fs.StringVar(&f.authJWKSURL, "auth-jwks-url", "", "fetch the issuer's keys from this URL instead of discovering it"+env("auth-jwks-url"))
	fs.StringVar(&f.authResource, "auth-resource", "", "this server's canonical URI, the public URL of its MCP endpoint (e.g. https://mcp.example.com/mcp): the audience tokens must be issued for"+env("auth-resource"))
	fs.StringVar(&f.authScopes, "auth-scopes", "", "comma-separated scopes every request needs"+env("auth-scopes"))
	fs.StringVar(&f.authAlgorithms, "auth-algorithms", defaultJWTAlgorithms, "comma-separated JWT signature algorithms accepted (asymmetric only)"+env("auth-algorithms"))
	fs.IntVar(&f.maxConcurrent, "max-concurrent", 64, "requests one caller (token subject, or client address without auth) may have in flight; more get 429 (0: no limit)"+env("max-concurrent"))
	fs.IntVar(&f.maxRate, "max-rate", 0, "requests one caller (as for --max-concurrent) may send per minute; more get 429 (0: no limit)"+env("max-rate"))
	fs.Int64Var(&f.maxBodyBytes, "max-body-bytes", 4<<20, "largest request body accepted on HTTP"+env("max-body-bytes"))
	fs.IntVar(&f.maxStreams, "max-streams", 1000, "subscriptions/listen streams open at once on this instance (negative: no limit)"+env("max-streams"))
	fs.IntVar(&f.maxCallerStreams, "max-streams-per-caller", mcpkit.DefaultMaxStreamsPerCaller, "subscriptions/listen streams one caller (token subject, or client address without auth) may have open on this instance; more get 429 (negative: no limit)"+env("max-streams-per-caller"))
	fs.DurationVar(&f.streamLifetime, "stream-lifetime", 30*time.Minute, "a listen stream ends with its completion result after this long; clients listen again (negative: never)"+env("stream-lifetime"))
	fs.DurationVar(&f.keepAlive, "keep-alive", 15*time.Second, "interval of keep-alive comments on open streams"+env("keep-alive"))
	fs.DurationVar(&f.toolTimeout, "tool-timeout", 0, "time limit of one tool call, answered isError when reached (0: none)"+env("tool-timeout"))
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", 10*time.Second, "time a client has to send request headers"+env("read-header-timeout"))
	fs.DurationVar(&f.readTimeout, "read-timeout", 60*time.Second, "time a client has to send a whole request"+env("read-timeout"))
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 120*time.Second, "time an idle keep-alive connection stays open"+env("idle-timeout"))
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 10*time.Second, "time in-flight calls get to finish on shutdown"+env("shutdown-timeout"))
	fs.DurationVar(&f.drainDelay, "drain-delay", 0, "on shutdown, keep serving this long with /readyz failing before closing the listener"+env("drain-delay"))
	fs.BoolVar(&f.audit, "audit", true, "log one line per request (method, name, subject, outcome, duration, bytes, trace id)"+env("audit"))
	fs.BoolVar(&f.otel, "otel", false, "export OpenTelemetry traces and metrics of every request over OTLP, configured by the standard OTEL_* variables (default endpoint http://localhost:4318); OTEL_EXPORTER_OTLP_ENDPOINT alone turns it on too"+env("otel"))
	fs.StringVar(&f.stateKeyFile, "state-key-file", "", "file with the key signing multi-round-trip state, shared by all instances (or "+EnvStateKey+")"+env("state-key-file"))
	fs.StringVar(&f.taskStore, "task-store", "", "keep the tasks of the Tasks extension in this shared store, e.g. redis://redis:6379/0, so that any instance answers for any task (default: this process's memory)"+env("task-store"))
	fs.StringVar(&f.replayStore, "replay-store", "", "remember used multi-round-trip requestStates in this shared store, so a confirmed write replayed to any instance is refused (default: the --task-store URL, else this process's memory; memory: this process's)"+env("replay-store"))
	fs.StringVar(&f.limitStore, "limit-store", "", "count --max-concurrent and --max-rate in this shared store, so they hold across instances (default: the --task-store URL, else this process's memory; memory: this process's)"+env("limit-store"))
	fs.DurationVar(&f.taskTTL, "task-ttl", mcpkit.DefaultTaskTTL, "how long a task and its result are kept after it last changed"+env("task-ttl"))
	fs.DurationVar(&f.taskLease, "task-lease", mcpkit.DefaultTaskLease, "a task whose instance has not said it is running it for this long is reported failed (that instance stopped)"+env("task-lease"))
	return f
}

// Options builds Serve's options from the parsed flags, taking each flag that was
// not given from its environment variable ([EnvFlags] with the process
// environment). It loads static tokens and the state key, checks the authorization
// settings, and makes the error reporter ([Flags.Reporter]).
func (f *Flags) Options() (*Options, error) {
	if err := EnvFlags(f.fs, os.Getenv, FlagEnv); err != nil {
		return nil, err
	}
	o := &Options{
		HTTPAddr:          f.httpAddr,
		Path:              f.path,
		ShutdownTimeout:   f.shutdownTimeout,
		ReadHeaderTimeout: f.readHeaderTimeout,
		ReadTimeout:       f.readTimeout,
		IdleTimeout:       f.idleTimeout,
		DrainDelay:        f.drainDelay,
		ToolTimeout:       f.toolTimeout,
		Audit:             f.audit,
		HTTP: mcpkit.HTTPOptions{
			AllowedOrigins:         splitList(f.allowedOrigins),
			AllowedHosts:           splitList(f.allowedHosts),
			MaxBodyBytes:           f.maxBodyBytes,
			KeepAlive:              f.keepAlive,
			MaxConcurrentPerCaller: f.maxConcurrent,
			MaxRatePerCaller:       f.maxRate,
			MaxStreams:             f.maxStreams,
			MaxStreamsPerCaller:    f.maxCallerStreams,
			StreamLifetime:         f.streamLifetime,
		},
	}
	if f.stateKeyFile != "" {
		k, err := LoadStateKeyFile(f.stateKeyFile)
		if err != nil {
			return nil, err
		}
		o.StateKey = k
	} else if k, err := StateKeyFromEnv(); err != nil {
		return nil, err
	} else {
		o.StateKey = k
	}
	a, err := f.authOptions()
	if err != nil {
		return nil, err
	}
	if a != nil && o.HTTPAddr == "" {
		return nil, errors.New("authorization settings apply to HTTP only: add --http ADDR (stdio servers take credentials from their environment)")
	}
	o.Auth = a
	if o.ErrorReporter, err = f.reporter(); err != nil {
		return nil, err
	}
	if o.Telemetry, err = f.telemetry(); err != nil {
		return nil, err
	}
	o.TaskTTL, o.TaskLease = f.taskTTL, f.taskLease
	if err := f.sharedStores(o); err != nil {
		return nil, err
	}
	return o, nil
}

// reporter makes the error reporter, or nil when none is configured.
func (f *Flags) reporter() (mcpkit.ErrorReporter, error) {
	if f.Reporter == nil {
		if os.Getenv(EnvSentryDSN) != "" {
			return nil, errors.New(EnvSentryDSN + " is set, but this server was built without Sentry reporting; unset it, or build the server with package sentryreport (serve.Flags.Reporter = sentryreport.FromEnv)")
		}
		return nil, nil
	}
	return f.Reporter(mcpkit.Version)
}

// telemetry makes the OpenTelemetry instrumentation, or nil when none is configured.
func (f *Flags) telemetry() (Telemetry, error) {
	if f.Telemetry == nil {
		if f.otel {
			return nil, errors.New("--otel (" + FlagEnv["otel"] + "): this server was built without OpenTelemetry; build it with package otelmcp (serve.Flags.Telemetry = otelmcp.FromEnv)")
		}
		return nil, nil
	}
	return f.Telemetry(f.otel, f.fs.Name(), mcpkit.Version)
}

// authOptions builds the authorization settings, or nil when none are asked for.
func (f *Flags) authOptions() (*auth.Options, error) {
	var verifiers []auth.Verifier
	if f.authStaticFile != "" {
		st, err := auth.LoadStaticTokens(f.authStaticFile)
		if err != nil {
			return nil, err
		}
		verifiers = append(verifiers, st)
	}
	if inline := os.Getenv(EnvAuthStaticTokens); inline != "" {
		st, err := auth.ParseStaticTokens(inline)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvAuthStaticTokens, err)
		}
		verifiers = append(verifiers, st)
	}
	var servers []string
	if f.authIssuer != "" {
		if f.JWT == nil {
			return nil, errors.New("--auth-issuer: this server was built without JWT verification; accept static tokens instead (--auth-static-file or " + EnvAuthStaticTokens + "), or build the server with package auth/jwt (serve.Flags.JWT = jwt.FromIssuer)")
		}
		jv, err := f.JWT(f.authIssuer, f.authResource, f.authJWKSURL, splitList(f.authAlgorithms))
		if err != nil {
			return nil, err
		}
		verifiers = append(verifiers, jv)
		servers = []string{f.authIssuer}
	} else if f.authJWKSURL != "" {
		return nil, errors.New("--auth-jwks-url needs --auth-issuer (the iss every token must carry)")
	}
	if len(verifiers) == 0 {
		if f.authResource != "" || f.authScopes != "" {
			return nil, errors.New("--auth-resource and --auth-scopes need a token verifier: --auth-static-file, " + EnvAuthStaticTokens + " or --auth-issuer")
		}
		return nil, nil
	}
	if f.authResource == "" {
		return nil, errors.New("authorization needs --auth-resource: this server's public MCP endpoint URL, e.g. https://mcp.example.com/mcp")
	}
	a := &auth.Options{
		Verifier:             auth.Verifiers(verifiers...),
		Resource:             f.authResource,
		AuthorizationServers: servers,
		Scopes:               splitList(f.authScopes),
	}
	if _, err := auth.New(*a); err != nil {
		return nil, err
	}
	return a, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
