package serve

import "runtime/debug"

// serverGCPercent is the garbage collector's target for a serving process. An MCP
// server keeps a small live heap (a few MiB of schemas and caches) and turns over
// garbage on every call (arguments, results, file contents), so at Go's default of 100
// a collection runs every few dozen calls and costs a fifth of the CPU of a call that
// reads a file. At 200 collections run half as often for a few MiB more memory
// (measured with servers/filesystem's BenchmarkVsReference: peak RSS 22.5 → 26.5 MiB).
const serverGCPercent = 200

// tuneGC applies serverGCPercent unless the operator set GOGC, which always wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}
