//go:build linux

package ingest

import (
	"bytes"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// threadCPU is the CPU time the calling OS thread has used (CLOCK_THREAD_CPUTIME_ID),
// in nanoseconds: unlike the wall clock, it hardly moves with the machine's load.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// ingestCPU is the least thread CPU time of three runs of ingestBody over body.
func ingestCPU(body []byte) int64 {
	best := int64(-1)
	for range 3 {
		start := threadCPU()
		ingestBody(body)
		if d := threadCPU() - start; best < 0 || d < best {
			best = d
		}
	}
	return best
}

// FuzzIngestCostIsLinear fails when decoding an envelope costs more than linear time
// in its size. An input is a pair of JSON fragments, the first repeated n times, then
// a value, then the second n times, inside an array of an event's extra (the shapes
// of issue 26 are such repetitions: "[" and "]" for deep arrays, `{"a":` and "}" for
// deep objects, `"k",` for many values, `{"k":1},` for many objects); the envelope
// with 8 times the repetitions must not cost more than 3 × 8 times the CPU of the
// small one (a cost that grows with the square costs 64 times), beyond a floor of
// 2 ms that keeps tiny costs' noise out. Thread CPU time, the least of three runs,
// is measured rather than wall time, so a loaded machine does not fail it.
func FuzzIngestCostIsLinear(f *testing.F) {
	for _, p := range [][2]string{{"[", "]"}, {`{"a":`, "}"}, {`{"a":[`, "]}"}, {"1,", ""}, {`"k",`, ""}, {`{"k":1},`, ""}, {`"\u0041",`, ""}, {`[[],`, "]"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, open, close string) {
		if len(open) == 0 || len(open)+len(close) > 64 {
			return
		}
		build := func(size int) []byte {
			n := size / (len(open) + len(close))
			var b bytes.Buffer
			b.WriteString(`{"event_id":"` + hexID(7) + `","extra":{"x":[`)
			b.WriteString(strings.Repeat(open, n))
			b.WriteString("1")
			b.WriteString(strings.Repeat(close, n))
			b.WriteString("]}}")
			return envelopeOf(hexID(7), [2]string{"event", b.String()})
		}
		const small = 16 << 10
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cSmall, cLarge := ingestCPU(build(small)), ingestCPU(build(8*small))
		if budget := 3*8*cSmall + 2e6; cLarge > budget {
			t.Errorf("fragments %q %q: %d KB cost %.2f ms of CPU, %d KB %.2f ms: more than linear (budget %.2f ms)",
				open, close, small>>10, float64(cSmall)/1e6, 8*small>>10, float64(cLarge)/1e6, float64(budget)/1e6)
		}
	})
}
