package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
)

const (
	appName           = "mcp-server-errors"
	backendSentry     = "sentry"
	backendLocal      = "local"
	defaultIngestAddr = "127.0.0.1:8970"
	// defaultSpotlightAddr is Spotlight's sidecar port, where SDKs with their
	// spotlight option on send (POST /stream).
	defaultSpotlightAddr = "127.0.0.1:8969"
	defaultMaxBytes      = "1GiB"
	defaultMaxAge        = "30d"
	minMaxBytes          = 1 << 20
	minMaxAge            = time.Minute
	localProjectInDSN    = "1"
)

// Environment variables of this server's own flags.
var flagEnv = map[string]string{
	"backend":      "ERRORS_BACKEND",
	"sentry-url":   "SENTRY_URL",
	"sentry-org":   "SENTRY_ORG",
	"ingest":       "ERRORS_INGEST_ADDR",
	"data":         "ERRORS_DATA_DIR",
	"dsn-key":      "ERRORS_DSN_KEY",
	"max-bytes":    "ERRORS_MAX_BYTES",
	"max-age":      "ERRORS_MAX_AGE",
	"code-mapping": "ERRORS_CODE_MAPPINGS",
	"in-app":       "ERRORS_IN_APP",
	"ingest-only":  "ERRORS_INGEST_ONLY",
	"spotlight":    "ERRORS_SPOTLIGHT_ADDR",
	"page":         "ERRORS_PAGE",
}

// flags are this server's own settings, as given (flag, else environment, else
// default: serve.EnvFlags applies flagEnv after parsing).
type flags struct {
	backend, sentryURL, sentryOrg             string
	ingest, dataDir, dsnKey, maxBytes, maxAge string
	codeMappings                              codeMappings
	inApp                                     listFlag
	ingestOnly                                bool
	spotlight                                 string
	page                                      bool
	installService                            bool
}

// codeMappings is --code-mapping: repeatable, and each value (ERRORS_CODE_MAPPINGS
// too) is a list of STACK_ROOT=SOURCE_ROOT separated by commas or semicolons.
type codeMappings []event.CodeMapping

func (c *codeMappings) String() string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, m := range *c {
		parts = append(parts, m.StackRoot+"="+m.SourceRoot)
	}
	return strings.Join(parts, ",")
}

func (c *codeMappings) Set(v string) error {
	list := event.SplitList(v)
	if len(list) == 0 {
		return errors.New("give STACK_ROOT=SOURCE_ROOT, such as example.com/shop/=/home/me/src/shop")
	}
	for _, s := range list {
		m, err := event.ParseCodeMapping(s)
		if err != nil {
			return err
		}
		*c = append(*c, m)
	}
	return nil
}

// listFlag is a repeatable flag whose values are also lists separated by commas or
// semicolons (--in-app, ERRORS_IN_APP).
type listFlag []string

func (l *listFlag) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *listFlag) Set(v string) error {
	list := event.SplitList(v)
	if len(list) == 0 {
		return errors.New("give a module or path prefix such as example.com/shop")
	}
	*l = append(*l, list...)
	return nil
}

func registerFlags(fs *flag.FlagSet) *flags {
	f := &flags{}
	help := func(name, text string) string { return text + " (env " + flagEnv[name] + ")" }
	fs.StringVar(&f.backend, "backend", "", help("backend", "where errors come from: sentry (the Sentry API; needs SENTRY_AUTH_TOKEN) or local (an embedded store Sentry SDKs send to); default sentry when SENTRY_AUTH_TOKEN is set, else local"))
	fs.StringVar(&f.sentryURL, "sentry-url", "", help("sentry-url", "Sentry base URL: https://sentry.io, a regional host such as https://de.sentry.io, or a self-hosted server (default https://sentry.io)"))
	fs.StringVar(&f.sentryOrg, "sentry-org", "", help("sentry-org", "default Sentry organization slug (default: the token's only organization)"))
	fs.StringVar(&f.ingest, "ingest", defaultIngestAddr, help("ingest", "local: address the ingest endpoint for Sentry SDKs listens on (port 0 picks a free port; the DSN is logged)"))
	fs.StringVar(&f.dataDir, "data", "", help("data", "local: directory the events are kept in (default: a per-user data directory such as ~/.local/share/mcp-server-errors)"))
	fs.StringVar(&f.dsnKey, "dsn-key", "", help("dsn-key", "local: the DSN public key SDKs must send (default: generated once and kept in the data directory)"))
	fs.StringVar(&f.maxBytes, "max-bytes", defaultMaxBytes, help("max-bytes", "local: drop the oldest events while the store is larger than this, such as 500MiB or 2GB (0: no limit)"))
	fs.StringVar(&f.maxAge, "max-age", defaultMaxAge, help("max-age", "local: drop events older than this, such as 72h or 30d or 2w (0: no limit)"))
	fs.Var(&f.codeMappings, "code-mapping", help("code-mapping", "map stack frame files to this machine: `STACK_ROOT=SOURCE_ROOT` such as example.com/shop/=/home/me/src/shop (a -trimpath module path) or /build/shop/=/home/me/src/shop (a build directory); repeatable; the variable takes a list separated by commas or semicolons"))
	fs.Var(&f.inApp, "in-app", help("in-app", "`PREFIX` of the modules or files of the application's own code, such as example.com/shop; repeatable, or a list separated by commas or semicolons (default: the stack roots of --code-mapping, else the SDK's in_app)"))
	fs.BoolVar(&f.ingestOnly, "ingest-only", false, help("ingest-only", "local: run as the collector: receive events (and keep them) without serving MCP, until stopped; MCP servers started on the same --data read what it stores"))
	fs.StringVar(&f.spotlight, "spotlight", "", help("spotlight", "local: also take what SDKs send with their spotlight option on (POST /stream) on this address; default "+defaultSpotlightAddr+" with --ingest-only, else off; off disables"))
	fs.BoolVar(&f.page, "page", true, help("page", "local: serve a read-only page of the stored issues for a browser on the ingest address (and the Spotlight address), such as http://127.0.0.1:8970/; it answers to loopback host names only"))
	fs.BoolVar(&f.installService, "install-service", false, "write a per-user service that runs this binary as the collector (a systemd user unit on Linux, a launchd agent on macOS) with the local flags given, and print the command that starts it")
	return f
}

// backendKind picks the backend and refuses flags that the other backend needs: a
// setting that would be silently ignored is a mistake worth reporting.
func (f *flags) backendKind(fs *flag.FlagSet, token string) (string, error) {
	kind := strings.ToLower(strings.TrimSpace(f.backend))
	if kind == "" {
		kind = backendLocal
		if token != "" {
			kind = backendSentry
		}
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	var wrong []string
	switch kind {
	case backendSentry:
		for _, n := range []string{"ingest", "data", "dsn-key", "max-bytes", "max-age", "ingest-only", "spotlight", "page", "install-service"} {
			if given[n] {
				wrong = append(wrong, "--"+n)
			}
		}
		if len(wrong) > 0 {
			why := "SENTRY_AUTH_TOKEN is set, which selects the sentry backend"
			if f.backend != "" {
				why = "the sentry backend reads the Sentry API"
			}
			return "", fmt.Errorf("%s apply to --backend local only; %s: add --backend local (or unset SENTRY_AUTH_TOKEN) to run the local collector", strings.Join(wrong, ", "), why)
		}
		if token == "" {
			return "", errors.New("--backend sentry needs SENTRY_AUTH_TOKEN: create an auth token with the scopes org:read, project:read and event:read in Sentry (Settings > Auth Tokens) and set it in the server's environment, or use --backend local")
		}
	case backendLocal:
		for _, n := range []string{"sentry-url", "sentry-org"} {
			if given[n] {
				wrong = append(wrong, "--"+n)
			}
		}
		if len(wrong) > 0 {
			return "", fmt.Errorf("%s apply to --backend sentry only; the local backend serves the events applications send to its ingest endpoint", strings.Join(wrong, ", "))
		}
	default:
		return "", fmt.Errorf("--backend %q is not a backend: use sentry or local", f.backend)
	}
	return kind, nil
}

// localSettings are the validated settings of the local backend.
type localSettings struct {
	ingestAddr string
	dataDir    string
	dsnKey     string // empty: load or generate one in dataDir
	maxBytes   int64  // 0: no limit
	maxAge     time.Duration
	ingestOnly bool
	spotlight  string // "": no Spotlight endpoint
	page       bool   // serve the page on the ingest listeners
	// codeMappings and inApp are the server's, for the page's frames.
	codeMappings []event.CodeMapping
	inApp        []string
}

func (f *flags) localSettings(getenv func(string) string) (localSettings, error) {
	var ls localSettings
	var err error
	if ls.maxBytes, err = parseSize(f.maxBytes); err != nil {
		return ls, err
	}
	if ls.maxAge, err = parseAge(f.maxAge); err != nil {
		return ls, err
	}
	ls.ingestOnly = f.ingestOnly
	ls.page, ls.codeMappings, ls.inApp = f.page, f.codeMappings, f.inApp
	switch sp := strings.TrimSpace(f.spotlight); strings.ToLower(sp) {
	case "":
		if f.ingestOnly {
			ls.spotlight = defaultSpotlightAddr
		}
	case "off", "none", "false", "0":
	default:
		ls.spotlight = sp
	}
	ls.ingestAddr = strings.TrimSpace(f.ingest)
	if ls.ingestAddr == "" {
		return ls, fmt.Errorf("--ingest is empty: give an address such as %s (or 0.0.0.0:8970 in a container)", defaultIngestAddr)
	}
	if ls.dsnKey = strings.TrimSpace(f.dsnKey); ls.dsnKey != "" {
		if err := checkDSNKey(ls.dsnKey); err != nil {
			return ls, fmt.Errorf("--dsn-key: %w", err)
		}
	}
	ls.dataDir = strings.TrimSpace(f.dataDir)
	if ls.dataDir == "" {
		if ls.dataDir, err = defaultDataDir(getenv, runtime.GOOS); err != nil {
			return ls, err
		}
	}
	if ls.dataDir, err = filepath.Abs(ls.dataDir); err != nil {
		return ls, fmt.Errorf("--data %q: %w", f.dataDir, err)
	}
	return ls, nil
}

// defaultDataDir is the per-user data directory: $XDG_DATA_HOME/mcp-server-errors, or
// the platform's usual place (~/.local/share, ~/Library/Application Support,
// %LocalAppData%). Events are data to keep, not a cache.
func defaultDataDir(getenv func(string) string, goos string) (string, error) {
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, appName), nil
	}
	switch goos {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, appName), nil
		}
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", appName), nil
		}
	default:
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".local", "share", appName), nil
		}
	}
	return "", errors.New("cannot find a per-user data directory (HOME is not set): give one with --data DIR or ERRORS_DATA_DIR")
}

// sizePattern and dayPattern are compiled when a flag needs them, not at every start.
var sizePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+)\s*([A-Za-z]*)$`) })

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// parseSize reads --max-bytes: a number of bytes with an optional unit (KB, MB, GB,
// TB or KiB, MiB, GiB, TiB); 0 is no limit.
func parseSize(s string) (int64, error) {
	m := sizePattern().FindStringSubmatch(strings.TrimSpace(s))
	bad := fmt.Errorf("--max-bytes %q is not a size: give bytes with an optional unit such as 500MiB or 2GB (0: no limit)", s)
	if m == nil {
		return 0, bad
	}
	unit, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, bad
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > (1<<62)/unit {
		return 0, bad
	}
	n *= unit
	if n != 0 && n < minMaxBytes {
		return 0, fmt.Errorf("--max-bytes %q is below the 1MiB minimum (0: no limit)", s)
	}
	return n, nil
}

var dayPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{1,5})([dw])$`) })

// parseAge reads --max-age: a Go duration (72h, 90m) or days and weeks (30d, 2w); 0 is
// no limit.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	var d time.Duration
	if m := dayPattern().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		d = time.Duration(n) * 24 * time.Hour
		if m[2] == "w" {
			d *= 7
		}
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return 0, fmt.Errorf("--max-age %q is not an age: give a duration such as 72h or 30d or 2w (0: no limit)", s)
		}
	}
	if d != 0 && d < minMaxAge {
		return 0, fmt.Errorf("--max-age %q is below the one-minute minimum (0: no limit)", s)
	}
	return d, nil
}
