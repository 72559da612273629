package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Smoke unpacks the image with umoci and runs it under runc with everything a
// hardened deployment takes away: no network (a fresh network namespace with no
// interfaces), read-only root, non-root user, no capabilities, no new privileges. It
// sends server/discover and tools/list and checks both answers, then closes stdin and
// checks the server exits.
func Smoke(layoutDir string, spec Spec) (string, error) {
	for _, tool := range []string{"umoci", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is not installed (apt-get install runc umoci): %w", tool, err)
		}
	}
	work, err := os.MkdirTemp("", "ocibuild-smoke-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	bundle := filepath.Join(work, "bundle")
	if out, err := exec.Command("umoci", "unpack", "--image", layoutDir+":"+spec.Version, bundle).CombinedOutput(); err != nil {
		return "", fmt.Errorf("umoci unpack: %v: %s", err, out)
	}
	if err := harden(filepath.Join(bundle, "config.json"), spec); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := fmt.Sprintf("ocibuild-%s-%d", spec.Name, os.Getpid())
	cmd := exec.CommandContext(ctx, "runc", "--root", filepath.Join(work, "state"), "run", "--bundle", bundle, id)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"ocibuild-smoke","version":"1"}}`
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`+"\n")
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var version string
	var tools int
	for got := 0; got < 2 && sc.Scan(); {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			_ = stdin.Close()
			return "", fmt.Errorf("stdout carried a non-JSON line %q", sc.Text())
		}
		if m.Error != nil {
			_ = stdin.Close()
			return "", fmt.Errorf("request %d failed: %s", m.ID, m.Error)
		}
		switch m.ID {
		case 1:
			var r struct {
				Meta map[string]struct {
					Version string `json:"version"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.Result, &r)
			version = r.Meta["io.modelcontextprotocol/serverInfo"].Version
		case 2:
			var r struct {
				Tools []json.RawMessage `json:"tools"`
			}
			_ = json.Unmarshal(m.Result, &r)
			tools = len(r.Tools)
		}
		got++
	}
	_ = stdin.Close() // EOF: the server must exit by itself
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return "", fmt.Errorf("the server did not exit after stdin closed; stderr: %s", stderr.String())
	}
	if waitErr != nil {
		return "", fmt.Errorf("runc run: %v; stderr: %s", waitErr, stderr.String())
	}
	if version == "" || tools == 0 {
		return "", fmt.Errorf("server/discover version %q, tools/list %d tools; stderr: %s", version, tools, stderr.String())
	}
	if version != spec.Version {
		return "", fmt.Errorf("serverInfo version %q, want the image version %q", version, spec.Version)
	}
	return fmt.Sprintf("server/discover ok (version %s), tools/list ok (%d tools), exited on EOF; no network, read-only root, uid 65532, no capabilities", version, tools), nil
}

// harden edits the runtime spec umoci generated.
func harden(path string, image Spec) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		return err
	}
	proc, _ := spec["process"].(map[string]any)
	if proc == nil {
		return fmt.Errorf("%s has no process section", path)
	}
	proc["terminal"] = false
	proc["noNewPrivileges"] = true
	proc["user"] = map[string]any{"uid": 65532, "gid": 65532}
	proc["capabilities"] = map[string]any{"bounding": []string{}, "effective": []string{}, "inheritable": []string{}, "permitted": []string{}, "ambient": []string{}}
	root, _ := spec["root"].(map[string]any)
	if root == nil {
		return fmt.Errorf("%s has no root section", path)
	}
	root["readonly"] = true
	// Writable scratch space only where a hardened deployment mounts it.
	mounts, _ := spec["mounts"].([]any)
	for _, dir := range append([]string{"/tmp"}, image.Tmpfs...) {
		mounts = append(mounts, map[string]any{"destination": dir, "type": "tmpfs", "source": "tmpfs",
			"options": []string{"nosuid", "nodev", "mode=1777", "size=64m"}})
	}
	for _, b := range image.Bind {
		src, dst, ok := strings.Cut(b, ":")
		if !ok {
			return fmt.Errorf("bind %q: want HOST:CONTAINER", b)
		}
		mounts = append(mounts, map[string]any{"destination": dst, "type": "bind", "source": src,
			"options": []string{"rbind", "nosuid", "nodev"}})
	}
	spec["mounts"] = mounts
	if len(image.Args) > 0 {
		argv, _ := proc["args"].([]any)
		for _, a := range image.Args {
			argv = append(argv, a)
		}
		proc["args"] = argv
	}
	linux, _ := spec["linux"].(map[string]any)
	if linux == nil {
		return fmt.Errorf("%s has no linux section", path)
	}
	// A new network namespace with no interfaces but loopback: no network.
	ns, _ := linux["namespaces"].([]any)
	hasNet := false
	for _, n := range ns {
		if m, ok := n.(map[string]any); ok && m["type"] == "network" {
			hasNet = true
			delete(m, "path")
		}
	}
	if !hasNet {
		linux["namespaces"] = append(ns, map[string]any{"type": "network"})
	}
	out, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
