package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// TestInputSchemas holds input_schemas.json, the schemas newServer takes instead of
// generating them at every start, to what the tools' Go types generate (-update or
// go generate rewrites it).
func TestInputSchemas(t *testing.T) {
	mcpkittest.InputSchemas(t, "input_schemas.json", newServer(slog.New(slog.NewTextHandler(io.Discard, nil))))
}
