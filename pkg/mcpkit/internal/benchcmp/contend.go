package benchcmp

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// spinEnv makes any binary that links this package a CPU-bound competitor instead of
// what it is (checked in init, before flags): the processes [Contend] starts.
const spinEnv = "BENCHCMP_SPIN"

func init() {
	if os.Getenv(spinEnv) == "1" {
		runtime.GOMAXPROCS(1)
		spin()
	}
}

// spinSink keeps the busy loop from being optimised away.
var spinSink uint64

// spin burns one core until the process is killed.
func spin() {
	x := uint64(88172645463325252)
	for {
		for range 1 << 20 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		spinSink += x
	}
}

// Contend starts n CPU-bound processes (one busy loop each, at the same priority as
// this one), so a benchmark can measure a server with a competitor on every core:
// Contend(runtime.NumCPU()). They are copies of the running binary (which links this
// package, so they spin instead of running tests). stop kills them and waits.
func Contend(n int) (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
		for _, c := range cmds {
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command(exe)
		c.Env = append(os.Environ(), spinEnv+"=1")
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting a CPU-bound competitor: %w", err)
		}
		cmds = append(cmds, c)
	}
	time.Sleep(50 * time.Millisecond) // let them reach their loops
	return stop, nil
}

// LoadAvg is the 1-minute load average and the number of CPUs, as "load 3.21/2cpu",
// printed next to every ratio: on a shared machine a ratio means little without it.
func LoadAvg() string { return mcpkittest.LoadAvg() }
