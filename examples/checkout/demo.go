package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Options configure a run of the journey.
type Options struct {
	Repo    string // repository root; default: found above the working directory
	Bin     string // directory with mcp-server-errors and mcp-server-filesystem already built; default: build them
	Work    string // working directory for binaries and the event store; default: a temporary one, removed after
	Verbose bool   // print every tool result in full
	// NoCodeMapping starts mcp-server-errors without --code-mapping, as a newcomer
	// does before reading about it: frames name example.com/shop/..., and the host
	// has to find the file.
	NoCodeMapping bool
	Out           io.Writer // the transcript
}

// Result is what a run did and found.
type Result struct {
	Features  Features       `json:"features"`
	Night     Night          `json:"night"`
	Calls     []call         `json:"calls"`
	Bytes     int            `json:"bytes"`     // tool output, all calls
	ToolsList map[string]int `json:"toolsList"` // bytes of each server's tools/list
	Answer    *Answer        `json:"answer"`
	// Conclusion is the one-sentence answer the transcript ends with, built from
	// Answer ("" when the material is incomplete).
	Conclusion string `json:"conclusion,omitempty"`
	ShopDir    string `json:"shopDir"`
}

// Features are what the servers offer that the journey uses when present.
type Features struct {
	Collector   bool `json:"collector"`   // mcp-server-errors --ingest-only: events taken while no MCP server runs
	CodeMapping bool `json:"codeMapping"` // mcp-server-errors --code-mapping: frames carry a local path
	ReadByLine  bool `json:"readByLine"`  // read_text_file takes a 1-based line
}

// Night is what the traffic generator printed.
type Night struct {
	Checkouts    int    `json:"checkouts"`
	Failed       int    `json:"failed"`
	Events       int    `json:"events"`
	Acknowledged int    `json:"acknowledged"`
	First        string `json:"first"`
	Last         string `json:"last"`
}

const (
	shopModule = "example.com/shop" // the shop's module path: its frames' files in a -trimpath build
	modern     = "2026-07-28"
	legacy     = "2025-11-25"
)

// Run plays the journey: build the shop and the servers, take a night of the shop's
// errors, then investigate them in the morning through MCP, printing the
// transcript to o.Out.
func Run(ctx context.Context, o Options) (res *Result, err error) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	repo := o.Repo
	if repo == "" {
		if repo, err = findRepo(); err != nil {
			return nil, err
		}
	}
	if repo, err = filepath.Abs(repo); err != nil {
		return nil, err
	}
	shopDir := filepath.Join(repo, "examples", "checkout", "shop")
	work := o.Work
	if work != "" {
		if work, err = filepath.Abs(work); err != nil {
			return nil, err
		}
	} else {
		if work, err = os.MkdirTemp("", "checkout-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	res = &Result{ShopDir: shopDir, ToolsList: map[string]int{}}
	fmt.Fprintf(out, "question: %q\n\n", Question)

	// Build: the servers as a release is built, the shop as its release 1.4.0
	// is (-trimpath: its frames name example.com/shop/..., not this machine's paths).
	bin := filepath.Join(work, "bin")
	// The shop first: it builds in seconds, with GOWORK=off, from the module cache
	// alone when offline (its requirements agree with the workspace's, which
	// TestShopRequirementsMatchWorkspace holds), so a failure comes before minutes of
	// compiling the servers, and says why.
	if err := goBuild(shopDir, []string{"GOWORK=off"}, bin, "./cmd/shop", "./cmd/night"); err != nil {
		return res, fmt.Errorf("building the shop (examples/checkout/shop, GOWORK=off): %w", err)
	}
	serverBin := o.Bin
	if serverBin != "" {
		if serverBin, err = filepath.Abs(serverBin); err != nil {
			return nil, err
		}
	} else {
		serverBin = bin
		if err := goBuild(repo, nil, bin, "./servers/errors/cmd/mcp-server-errors", "./servers/filesystem/cmd/mcp-server-filesystem"); err != nil {
			return res, err
		}
	}
	errorsBin := filepath.Join(serverBin, "mcp-server-errors")
	fsBin := filepath.Join(serverBin, "mcp-server-filesystem")
	help := helpText(errorsBin)
	res.Features.Collector = strings.Contains(help, "-ingest-only")
	res.Features.CodeMapping = strings.Contains(help, "-code-mapping")
	if !res.Features.Collector || !res.Features.CodeMapping {
		return res, fmt.Errorf("%s has no --ingest-only or no --code-mapping: build it from this repository (or leave out -bin)", errorsBin)
	}

	data := filepath.Join(work, "errors")
	if err := os.RemoveAll(data); err != nil { // every run takes its own night
		return res, err
	}
	env := []string{"SENTRY_AUTH_TOKEN=", "SENTRY_DSN=", "ERRORS_BACKEND=", "ERRORS_DATA_DIR=", "ERRORS_INGEST_ADDR=", "ERRORS_DSN_KEY=",
		"ERRORS_CODE_MAPPINGS=", "ERRORS_IN_APP=", "ERRORS_INGEST_ONLY=", "ERRORS_SPOTLIGHT_ADDR=", "MCP_HTTP_ADDR="}
	errorsArgs := []string{"--backend", "local", "--data", data}
	if !o.NoCodeMapping {
		errorsArgs = append(errorsArgs, "--code-mapping", shopModule+"="+shopDir)
	}
	var procs []*proc
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			if serr := procs[i].stop(); serr != nil && err == nil {
				err = serr
			}
		}
	}()
	start := func(name string, args ...string) (*proc, error) {
		p, err := startProc(name, append([]string{errorsBin}, append(args, errorsArgs...)...), env)
		if err == nil {
			procs = append(procs, p)
		}
		return p, err
	}

	// Night: the collector takes the shop's events; no MCP server runs.
	collector, err := start("collector", "--ingest-only", "--ingest", "127.0.0.1:0", "--spotlight", "off")
	if err != nil {
		return res, err
	}
	dsn, err := collector.waitFor("point your application's Sentry DSN here", "dsn", 30*time.Second)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(out, "night   collector: mcp-server-errors --ingest-only (no MCP server runs), DSN %s\n", dsn)
	nightOut, err := runNight(filepath.Join(bin, "night"), dsn)
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(nightOut, &res.Night); err != nil {
		return res, fmt.Errorf("night printed %q: %v", nightOut, err)
	}
	n := res.Night
	fmt.Fprintf(out, "night   shop@1.4.0: %d checkouts, %d failed; %d events sent with their own times (%s .. %s), %d acknowledged\n",
		n.Checkouts, n.Failed, n.Events, n.First, n.Last, n.Acknowledged)

	// Morning: the host starts its servers, which read what the collector stored.
	httpProc, err := start("errors/http", "--http", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	addr, err := httpProc.waitFor("serving MCP on Streamable HTTP", "addr", 30*time.Second)
	if err != nil {
		return res, err
	}
	errorsHTTP := &server{name: "errors/http", revision: modern, url: "http://" + addr + "/mcp"}
	// The collector counts tag values a moment after it stores the events; the errors
	// server adds the events not counted yet, so the morning starts at once.
	errorsStdio := &server{name: "errors/stdio", revision: legacy, command: append([]string{errorsBin}, errorsArgs...), env: env}
	filesystem := &server{name: "filesystem", revision: modern, command: []string{fsBin, shopDir}, env: []string{"MCP_HTTP_ADDR=", "MCP_FS_ROOTS="}}
	h := newHost(errorsHTTP, errorsStdio, filesystem)
	defer h.close()
	fmt.Fprintf(out, "morning errors/http   %s  %s\n", modern, errorsHTTP.url)
	fmt.Fprintf(out, "morning errors/stdio  %s  mcp-server-errors %s\n", legacy, strings.Join(errorsArgs, " "))
	fmt.Fprintf(out, "morning filesystem    %s  mcp-server-filesystem %s\n\n", modern, shopDir)

	answer, ierr := investigate(ctx, h)
	res.Answer, res.Calls = answer, h.calls
	for _, s := range h.servers {
		if s.toolsSize > 0 {
			res.ToolsList[s.name] = s.toolsSize
		}
	}
	res.Features.ReadByLine = filesystem.hasParam("read_text_file", "line")
	for _, c := range h.calls {
		res.Bytes += c.Bytes
	}
	printTranscript(out, res, o.Verbose)
	if ierr != nil {
		return res, ierr
	}
	res.Conclusion = conclusion(*res.Answer)
	printAnswer(out, res)
	return res, nil
}

// goBuild builds packages into dir as a release is built: -trimpath, no cgo.
func goBuild(moduleDir string, env []string, dir string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = moduleDir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (in %s): %v\n%s", strings.Join(pkgs, " "), moduleDir, err, b)
	}
	return nil
}

// helpText is what a server's --help prints: the flags it has.
func helpText(bin string) string {
	var b bytes.Buffer
	cmd := exec.Command(bin, "--help")
	cmd.Stdout, cmd.Stderr = &b, &b
	_ = cmd.Run()
	return b.String()
}

// runNight sends the night's events and returns the summary it printed.
func runNight(bin, dsn string) ([]byte, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "SENTRY_DSN="+dsn)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("night: %v\n%s", err, stderr.Bytes())
	}
	return b, nil
}

// findRepo finds the repository root (go.work next to examples/checkout) above
// the working directory.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "examples", "checkout", "shop", "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run this inside a clone of github.com/mcpkit/reference (or pass -repo)")
		}
		dir = parent
	}
}
