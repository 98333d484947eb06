#!/usr/bin/env bash
# Builds wasm/toolsearch.wasm reproducibly, rewrites wasm/exports.txt, and
# copies the module (and the default DWS snapshot) into the Python and npm
# packages, which ship them.
#
#   wasm/build.sh            build into wasm/
#   wasm/build.sh --check    build into a temporary directory and fail if the
#                            bytes differ from the committed module or its
#                            copies (CI)
#   --component              also build wasm/toolsift.component.wasm (the
#                            WASI 0.2 component, COMPONENT.md) with jco from
#                            wasm/component/js (npm ci there if needed); on
#                            whenever wasm/component/js/node_modules exists
#
# The bytes depend on the Go version (recorded in exports.txt); everything
# else that could leak into the binary (paths, VCS stamps, build IDs, GOFLAGS)
# is pinned here.
set -euo pipefail
cd "$(dirname "$0")/.."

out=wasm
component=0
[ -d wasm/component/js/node_modules ] && component=1
for arg in "$@"; do
  case "$arg" in
    --check) out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT ;;
    --component) component=1 ;;
    *) echo "usage: wasm/build.sh [--check] [--component]" >&2; exit 2 ;;
  esac
done

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

# The component: its own core module (wasm/component, the same core/
# sources), made a component by jco (wasm/component/js/build.mjs).
if [ "$component" = 1 ]; then
  [ -d wasm/component/js/node_modules ] || (cd wasm/component/js && npm ci --no-audit --no-fund)
  core="$(mktemp)"
  GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 GOFLAGS= GOWASM= \
    go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
    -o "$core" ./wasm/component
  node wasm/component/js/build.mjs "$core" "$out/toolsift.component.wasm"
  rm -f "$core"
  if [ "$out" != wasm ]; then
    if ! cmp -s "$out/toolsift.component.wasm" wasm/toolsift.component.wasm; then
      echo "wasm/toolsift.component.wasm is stale: rebuilding gives different bytes; run wasm/build.sh --component and commit" >&2
      exit 1
    fi
    echo "wasm/toolsift.component.wasm is up to date ($(wc -c < wasm/toolsift.component.wasm) bytes)"
  fi
fi
