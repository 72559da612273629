package serve

import (
	"bytes"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// openPTY opens a pseudo-terminal and returns its follower side, a terminal as a
// person's shell gives a program.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no pseudo-terminals here: %v", err)
		}
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { leader.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, leader.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, leader.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("ptsname: %v", e)
	}
	follower, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follower.Close() })
	return follower
}

// TestFirstContactAtATerminal: started at a terminal, the server says on stderr what
// it is, that a host normally starts it, how to quit and where the example session is;
// started with a pipe (as a host does) or /dev/null, it says nothing (issue #25).
func TestFirstContactAtATerminal(t *testing.T) {
	var logs bytes.Buffer
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "mcp-server-demo", Version: "1"}, &mcpkit.ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	firstContact(s, openPTY(t))
	got := logs.String()
	for _, want := range []string{"mcp-server-demo is an MCP server", "host", "normally starts it", "Ctrl-D", ByHandURL} {
		if !strings.Contains(got, want) {
			t.Errorf("first-contact line %q lacks %q", got, want)
		}
	}
	if n := strings.Count(got, "\n"); n != 1 {
		t.Errorf("%d lines; want one", n)
	}

	logs.Reset()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, in := range []*os.File{r, null} {
		firstContact(s, in)
	}
	if logs.Len() != 0 {
		t.Errorf("said something with stdin a pipe or /dev/null: %s", logs.String())
	}
}
