//go:build !race

package mcpkit_test

// underRace is true when the race detector is on: load tests then run a smaller
// size, since the detector slows every call several times over.
const underRace = false
