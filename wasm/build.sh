#!/usr/bin/env bash
# Builds wasm/toolsearch.wasm reproducibly, rewrites wasm/exports.txt, and
# records the SHA-256 of the module and of the default DWS snapshot
# (catalogs/dws/dws.snap) in wasm/artifacts.sha256. Git holds one copy of
# each; the Python and npm packages copy them when they are built, packed or
# installed from a checkout, and refuse bytes that differ from that list
# (bindings/python/setup.py, bindings/js/scripts/stage.mjs).
#
#   wasm/build.sh            build into wasm/
#   wasm/build.sh --check    build into a temporary directory and fail if the
#                            bytes differ from the committed module, or the
#                            committed files from wasm/artifacts.sha256 (CI)
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

# The artifacts the packages ship, with their hashes, in sha256sum's format
# (paths from the repository root). A snapshot rebuilt by hand needs this
# run again, or the packages refuse it.
if [ "$out" = wasm ]; then
  sha256sum wasm/toolsearch.wasm catalogs/dws/dws.snap > wasm/artifacts.sha256
fi

if [ "$out" != wasm ]; then
  if ! sha256sum --quiet --check wasm/artifacts.sha256 >&2; then
    echo "wasm/artifacts.sha256 does not match the committed artifacts: run wasm/build.sh and commit it" >&2
    exit 1
  fi
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
