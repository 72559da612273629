package distcheck

import (
	"fmt"
	"path"
	"strings"
)

// DockerRun is what a `docker run` (or `podman run`) command gives the server.
type DockerRun struct {
	Options []string // docker's own options, as written
	Image   string
	Server  string   // "github" for an image named mcp-server-github (any registry, tag)
	Args    []string // the server's arguments, after the image
	Env     []string // variables set with -e/--env, by name
	// EnvValued marks the variables given a value (-e NAME=value); the others are
	// passed on from docker's own environment.
	EnvValued map[string]bool
}

// dockerValued are the `docker run` options that take a value, as far as READMEs and
// server.json files use them; dockerBool those that do not. An option in neither is
// an error, so a typo cannot shift the image name.
var (
	dockerValued = setOf("-e", "--env", "--env-file", "-v", "--volume", "--mount", "-p", "--publish",
		"--name", "--network", "--net", "-u", "--user", "-w", "--workdir", "--entrypoint", "--tmpfs",
		"--security-opt", "--cap-add", "--cap-drop", "-m", "--memory", "--cpus", "--pids-limit",
		"--add-host", "-l", "--label", "--platform", "--pull", "--restart", "-h", "--hostname",
		"--ulimit", "--device", "--group-add", "--log-driver", "--log-opt", "--dns", "--ipc", "--pid",
		"--userns", "--shm-size", "--stop-signal", "--stop-timeout", "--memory-swap", "--cgroupns")
	dockerBool = setOf("-i", "--interactive", "-t", "--tty", "-it", "-ti", "-d", "--detach", "--rm",
		"--read-only", "--init", "-P", "--publish-all", "--privileged", "-q", "--quiet")
)

// ParseDockerRun reads the words after `docker`: "run", docker's options, the image
// and the server's arguments.
func ParseDockerRun(words []string) (DockerRun, error) {
	if len(words) == 0 || words[0] != "run" {
		return DockerRun{}, fmt.Errorf("docker without run: a host starts a container with docker run -i --rm IMAGE")
	}
	run := DockerRun{EnvValued: map[string]bool{}}
	words = words[1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			run.Image, run.Args = w, words[i+1:]
			break
		}
		name, value, hasValue := strings.Cut(w, "=")
		switch {
		case dockerBool[name] && !hasValue:
			run.Options = append(run.Options, w)
		case dockerBool[name]:
			run.Options = append(run.Options, w) // --rm=true
		case dockerValued[name]:
			if !hasValue {
				if i+1 >= len(words) {
					return DockerRun{}, fmt.Errorf("docker run option %s needs a value", name)
				}
				i++
				value = words[i]
			}
			run.Options = append(run.Options, name+"="+value)
			if name == "-e" || name == "--env" {
				k, _, valued := strings.Cut(value, "=")
				run.Env = append(run.Env, k)
				if valued {
					run.EnvValued[k] = true
				}
			}
		default:
			return DockerRun{}, fmt.Errorf("docker run option %s is not one this check knows; add it to dockerValued or dockerBool in internal/distcheck/docker.go", name)
		}
	}
	if run.Image == "" {
		return DockerRun{}, fmt.Errorf("docker run without an image")
	}
	if !hasInteractive(run.Options) && !hasOption(run.Options, "-p", "--publish") {
		// A stdio server needs -i (stdin kept open); an HTTP one publishes a port.
		return DockerRun{}, fmt.Errorf("docker run without -i: a stdio server reads requests from stdin, which docker closes without -i")
	}
	run.Server = imageServer(run.Image)
	if run.Server == "" {
		return DockerRun{}, fmt.Errorf("image %q is not an mcp-server-* image of this repository", run.Image)
	}
	return run, nil
}

// imageServer returns "github" for mcp-server-github, ghcr.io/mcpkit/mcp-server-github:v1
// or ...@sha256:..., else "".
func imageServer(image string) string {
	ref, _, _ := strings.Cut(image, "@")
	base := path.Base(ref)
	if i := strings.LastIndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	if !strings.HasPrefix(base, "mcp-server-") {
		return ""
	}
	return strings.TrimPrefix(base, "mcp-server-")
}

func hasInteractive(opts []string) bool {
	return hasOption(opts, "-i", "--interactive", "-it", "-ti")
}

// hasOption reports whether any of names appears among opts (bare or name=value).
func hasOption(opts []string, names ...string) bool {
	for _, o := range opts {
		n, _, _ := strings.Cut(o, "=")
		for _, want := range names {
			if n == want {
				return true
			}
		}
	}
	return false
}

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
