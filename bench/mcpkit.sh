#!/usr/bin/env bash
# mcpkit.sh runs mcpkit's protocol benchmarks quickly and prints their ratio tables:
#   - pkg/mcpkit BenchmarkToolCall: a typed tool's tools/call in memory, over the
#     pipes of a subprocess and over HTTP, against a bare line echo of the same size;
#   - internal/everything BenchmarkVsGoSDK: the conformance fixture against the Go
#     SDK's (v1.8.0, installed on first use into the user cache), stdio and HTTP.
# Usage: bench/mcpkit.sh [ITERATIONS [COUNT]]   (defaults: 3000 iterations, 3 runs;
# the tables keep each case's fastest run, the least disturbed on a shared machine).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-3000}"
count="${2:-3}"
go test -run '^$' -bench 'BenchmarkToolCall|BenchmarkVsGoSDK' -benchtime "${n}x" -count "$count" -benchmem \
	./pkg/mcpkit/ ./pkg/mcpkit/internal/everything/
