#!/usr/bin/env bash
# Installs a binding the ways a user does, each into a fresh temporary
# directory or virtual environment, and answers one golden search with the
# bundled module and DWS snapshot (the first search of
# testdata/dws/golden/misc.jsonl.gz, byte for byte):
#
#   .ci/install_check.sh python   pip install ./bindings/python (the checkout),
#                                 and the wheel python -m build makes from its
#                                 sdist (no checkout around it)
#   .ci/install_check.sh js       npm install --install-links ./bindings/js
#                                 (a copy of the checkout, as bindings/js's
#                                 README says), npm install ./bindings/js (a
#                                 link: needs npm ci in bindings/js first), and
#                                 the tarball npm pack makes
#
# Git holds one copy of the module and the snapshot; these prove that the
# packages still receive them (bindings/python/setup.py,
# bindings/js/scripts/stage.mjs). PYTHON is the interpreter for the fresh
# environments (default python3); Python needs PyPI (wasmtime, setuptools,
# build), npm the registry (the one dependency), or their caches.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
PYTHON="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The golden line: its request, and the exact answer, without a newline.
"$PYTHON" - "$work" <<'EOF'
import gzip, json, sys, pathlib
out = pathlib.Path(sys.argv[1])
with gzip.open("testdata/dws/golden/misc.jsonl.gz", "rt", encoding="utf-8") as f:
    for line in f:
        g = json.loads(line)
        if g.get("wire_response") is not None:
            request = {"version": "tool-search.v1", **g["request"]}
            (out / "request.json").write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
            (out / "want.json").write_bytes(g["wire_response"].encode("utf-8"))
            break
    else:
        sys.exit("misc.jsonl.gz has no search with an answer")
EOF

fail() { echo "install_check: $*" >&2; exit 1; }

python_smoke() { # venv label
  (cd "$work" && "$1/bin/python" - "$2" <<'EOF'
import json, sys, toolsift
label = sys.argv[1]
request = json.loads(open("request.json", encoding="utf-8").read())
want = open("want.json", "rb").read()
with toolsift.Engine.open() as engine:
    got = engine.search_raw(request)
if got != want:
    sys.exit(f"{label}: the golden search differs:\n got {got[:300]!r}\nwant {want[:300]!r}")
print(f"{label}: {toolsift.__file__}: golden search identical ({len(got)} bytes)")
EOF
  ) || fail "python $2"
}

js_smoke() { # app-dir label
  (cd "$1" && node --input-type=module - "$2" "$work" <<'EOF'
import { readFileSync } from "node:fs";
import path from "node:path";
import { open } from "toolsift";
const [label, work] = process.argv.slice(2);
const request = JSON.parse(readFileSync(path.join(work, "request.json"), "utf8"));
const want = readFileSync(path.join(work, "want.json"));
const engine = await open();
const got = Buffer.from(engine.searchRaw(request));
engine.close?.();
if (!got.equals(want)) {
  console.error(`${label}: the golden search differs:\n got ${got.subarray(0, 300)}\nwant ${want.subarray(0, 300)}`);
  process.exit(1);
}
console.log(`${label}: golden search identical (${got.length} bytes)`);
EOF
  ) || fail "js $2"
}

case "${1:-}" in
  python)
    "$PYTHON" -m venv "$work/checkout"
    "$work/checkout/bin/pip" install --quiet "$REPO/bindings/python" || fail "pip install ./bindings/python failed"
    python_smoke "$work/checkout" "pip install ./bindings/python"

    # sdist first, then the wheel from the unpacked sdist (python -m build's
    # order): the wheel is built where no checkout is.
    "$PYTHON" -m venv "$work/tools"
    "$work/tools/bin/pip" install --quiet build || fail "pip install build failed"
    "$work/tools/bin/python" -m build --outdir "$work/dist" "$REPO/bindings/python" > "$work/build.log" 2>&1 ||
      { cat "$work/build.log" >&2; fail "python -m build failed"; }
    sdist=("$work"/dist/toolsift-*.tar.gz)
    tar -tzf "${sdist[0]}" > "$work/sdist.list"
    grep -q 'src/toolsift/toolsearch.wasm$' "$work/sdist.list" || fail "the sdist has no toolsearch.wasm"
    "$PYTHON" -m venv "$work/wheel"
    "$work/wheel/bin/pip" install --quiet "$work"/dist/toolsift-*.whl || fail "pip install of the wheel failed"
    python_smoke "$work/wheel" "the wheel built from the sdist"
    ;;
  js)
    mkdir "$work/copy" "$work/link" "$work/tarball"
    (cd "$work/copy" && npm init -y > /dev/null &&
      npm install --install-links --no-audit --no-fund --loglevel=error "$REPO/bindings/js") ||
      fail "npm install --install-links ./bindings/js failed"
    js_smoke "$work/copy" "npm install --install-links ./bindings/js"

    # A plain install links the folder, which then needs its own dependency.
    [ -d "$REPO/bindings/js/node_modules/@bjorn3/browser_wasi_shim" ] ||
      fail "bindings/js has no node_modules: run npm ci there first (make js-test does)"
    (cd "$work/link" && npm init -y > /dev/null &&
      npm install --no-audit --no-fund --loglevel=error "$REPO/bindings/js") || fail "npm install ./bindings/js failed"
    js_smoke "$work/link" "npm install ./bindings/js"

    (cd "$REPO/bindings/js" && npm pack --silent --pack-destination "$work") > /dev/null || fail "npm pack failed"
    tgz=("$work"/toolsift-*.tgz)
    tar -tzf "${tgz[0]}" > "$work/tgz.list"
    grep -q '^package/toolsearch.wasm$' "$work/tgz.list" || fail "the npm tarball has no toolsearch.wasm"
    (cd "$work/tarball" && npm init -y > /dev/null &&
      npm install --no-audit --no-fund --loglevel=error "${tgz[0]}") || fail "npm install of the tarball failed"
    js_smoke "$work/tarball" "npm pack tarball"
    ;;
  *) echo "usage: .ci/install_check.sh python|js" >&2; exit 2 ;;
esac
