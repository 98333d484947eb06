#!/usr/bin/env bash
# Builds wasm/toolsearch.wasm reproducibly, rewrites wasm/exports.txt, and
# copies the module (and the default DWS snapshot) into the Python and npm
# packages, which ship them.
#
#   wasm/build.sh            build into wasm/
#   wasm/build.sh --check    build into a temporary directory and fail if the
#                            bytes differ from the committed module or its
#                            copies (CI)
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

copies=(bindings/python/src/toolsift/toolsearch.wasm:wasm/toolsearch.wasm
        bindings/python/src/toolsift/dws.snap:catalogs/dws/dws.snap
        bindings/js/toolsearch.wasm:wasm/toolsearch.wasm
        bindings/js/dws.snap:catalogs/dws/dws.snap)
if [ "$out" = wasm ]; then
  for pair in "${copies[@]}"; do cp "${pair#*:}" "${pair%%:*}"; done
fi

if [ "$out" != wasm ]; then
  for pair in "${copies[@]}"; do
    if ! cmp -s "${pair#*:}" "${pair%%:*}"; then
      echo "${pair%%:*} differs from ${pair#*:}: run wasm/build.sh and commit" >&2
      exit 1
    fi
  done
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
