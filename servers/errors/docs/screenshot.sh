#!/usr/bin/env bash
# Makes page.png, the README's picture of the collector's page, the way a person
# sees it: the collector (mcp-server-errors --ingest-only) built from this tree, the
# checkout example's night sent to it by the real sentry-go SDK, the checkout issue's
# page opened in headless Chromium. Run through `make errors-screenshot`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/servers/errors/docs/page.png}
chromium=$(command -v chromium || command -v chromium-browser || command -v chromium-headless-shell || true)
[ -n "$chromium" ] || { echo "errors-screenshot: no headless Chromium (apt-get install chromium)" >&2; exit 1; }
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

shop=$root/examples/checkout/shop
(cd "$root/servers/errors" && CGO_ENABLED=0 go build -o "$work/mcp-server-errors" ./cmd/mcp-server-errors)
(cd "$shop" && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$work/night" ./cmd/night)

"$work/mcp-server-errors" --ingest-only --ingest 127.0.0.1:0 --spotlight off --data "$work/data" \
  --code-mapping "example.com/shop=$shop" 2>"$work/collector.log" &
pid=$!
for _ in $(seq 100); do grep -q 'page=' "$work/collector.log" && break; sleep 0.1; done
dsn=$(grep -o 'dsn=[^ ]*' "$work/collector.log" | head -1 | cut -d= -f2)
page=$(grep -o 'page=[^ ]*' "$work/collector.log" | head -1 | cut -d= -f2)
[ -n "$dsn" ] && [ -n "$page" ] || { cat "$work/collector.log" >&2; exit 1; }
SENTRY_DSN=$dsn "$work/night" >/dev/null

browse() { timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --user-data-dir="$work/profile" "$@" 2>/dev/null; }
issue=$(browse --dump-dom "$page" | grep -o 'data-issue="[0-9a-f]*"' | head -1 | cut -d'"' -f2)
[ -n "$issue" ] || { echo "errors-screenshot: the page lists no issue" >&2; exit 1; }
browse --screenshot="$out" --window-size=1280,900 "${page}issues/$issue" >/dev/null
echo "wrote $out ($(wc -c <"$out") bytes): ${page}issues/$issue"
