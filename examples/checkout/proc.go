package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server process the demo runs in the background (the collector, the
// errors server on HTTP), with what it logged.
type proc struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  []string
	seen chan string // every stderr line, for waitFor
	done chan struct{}

	stopOnce sync.Once
	stopErr  error
}

func startProc(name string, argv, env []string) (*proc, error) {
	p := &proc{name: name, seen: make(chan string, 256), done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = append(os.Environ(), env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log = append(p.log, sc.Text())
			p.mu.Unlock()
			select {
			case p.seen <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	return p, nil
}

// waitFor returns the value of key=value in the first logged line whose message
// contains msg (slog's text format).
func (p *proc) waitFor(msg, key string, timeout time.Duration) (string, error) {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(key) + `=("(?:[^"\\]|\\.)*"|\S+)`)
	deadline := time.After(timeout)
	for {
		select {
		case l := <-p.seen:
			if strings.Contains(l, msg) {
				if m := re.FindStringSubmatch(l); m != nil {
					return strings.Trim(m[1], `"`), nil
				}
			}
		case <-p.done:
			return "", fmt.Errorf("%s exited before logging %q:\n%s", p.name, msg, p.logText())
		case <-deadline:
			return "", fmt.Errorf("%s did not log %q within %v:\n%s", p.name, msg, timeout, p.logText())
		}
	}
}

func (p *proc) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

// stop asks the process to end (SIGTERM: requests in flight finish and the store
// closes) and kills it if it has not within ten seconds.
func (p *proc) stop() error {
	if p == nil || p.cmd.Process == nil {
		return nil
	}
	p.stopOnce.Do(func() { p.stopErr = p.terminate() })
	return p.stopErr
}

func (p *proc) terminate() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { <-p.done; exited <- p.cmd.Wait() }() // Wait after stderr is read to its end
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
			return nil // ended by the signal
		}
		return err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
		return fmt.Errorf("%s did not stop within 10s; killed", p.name)
	}
}
