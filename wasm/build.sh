#!/usr/bin/env bash
# Builds wasm/toolsearch.wasm reproducibly and rewrites wasm/exports.txt.
#
#   wasm/build.sh            build into wasm/
#   wasm/build.sh --check    build into a temporary directory and fail if the
#                            bytes differ from the committed module (CI)
#
# The bytes depend on the Go version (recorded in exports.txt); everything
# else that could leak into the binary (paths, VCS stamps, build IDs, GOFLAGS)
# is pinned here.
set -euo pipefail
cd "$(dirname "$0")/.."

out=wasm
if [ "${1:-}" = "--check" ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi

export GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 GOFLAGS= GOWASM=
go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
  -o "$out/toolsearch.wasm" ./wasm/module
unset GOOS GOARCH
{
  echo "# toolsearch.wasm: exports and imports (wasm/build.sh; $(go env GOVERSION))"
  go run ./wasm/internal/abilist "$out/toolsearch.wasm"
} > "$out/exports.txt"

if [ "$out" != wasm ]; then
  if ! cmp -s "$out/toolsearch.wasm" wasm/toolsearch.wasm; then
    echo "wasm/toolsearch.wasm is stale: rebuilding gives different bytes; run wasm/build.sh and commit" >&2
    exit 1
  fi
  if ! cmp -s "$out/exports.txt" wasm/exports.txt; then
    echo "wasm/exports.txt is stale:" >&2
    diff "$out/exports.txt" wasm/exports.txt >&2 || true
    exit 1
  fi
  echo "wasm/toolsearch.wasm and wasm/exports.txt are up to date ($(wc -c < wasm/toolsearch.wasm) bytes)"
fi
