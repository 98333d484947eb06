#!/usr/bin/env bash
# make bench: every host of toolsift and the libraries a user would pick
# instead, on the same catalogs and queries, in one run on this machine; the
# tables go to docs/BENCHMARKS.md. See bench/README.md.
#
#   bench/run.sh                 the full run (about half an hour on 2 cores)
#   BENCH_QUICK=1 bench/run.sh   DWS only, 100 queries, short timings (smoke test)
#
# Each engine whose run takes under BENCH_REPEAT_UNDER seconds (default 60)
# is run again, in turn with the catalog's other engines, until it has
# BENCH_RUNS runs (default 3; 1 for the smoke test); the tables give the
# medians of its latency and qps over them (toolsiftbench render).
#
# Environment: BENCH_SECONDS (timing per phase, default 2), BENCH_CATALOGS
# (default "dws stb syn10k syn100k"), BENCH_QUERIES (use only the first n
# queries of each catalog), BENCH_BUDGET (seconds after which an engine's
# quality pass stops early, default 120), BENCH_SHARED (the public benchmarks,
# default ../shared/data/bench, read at run time), GO, NODE, PYTHON.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
NODE=${NODE:-node}
PYTHON=${PYTHON:-python3}
QUICK=${BENCH_QUICK:-0}
SHARED=${BENCH_SHARED:-../shared/data/bench}
RESULTS=$ROOT/bench/results
DATA=$RESULTS/data
RAW=$RESULTS/raw
BIN=$RESULTS/bin
if [ "$QUICK" = 1 ]; then
  SECS=${BENCH_SECONDS:-0.3}; CATALOGS=${BENCH_CATALOGS:-dws}; NQ=100; COMMAND="make bench QUICK=1"
else
  SECS=${BENCH_SECONDS:-2}; CATALOGS=${BENCH_CATALOGS:-dws stb syn10k syn100k}; NQ=0; COMMAND="make bench"
fi
NQ=${BENCH_QUERIES:-$NQ}
if [ "$QUICK" = 1 ]; then RUNS=${BENCH_RUNS:-1}; else RUNS=${BENCH_RUNS:-3}; fi
REPEAT_UNDER=${BENCH_REPEAT_UNDER:-60}
BUDGET=${BENCH_BUDGET:-120}
FOURGIB=4294967296
log() { echo "bench: $(date -u +%H:%M:%S) $*" >&2; }
die() { log "$*"; exit 1; }

log "installing the runners' dependencies"
$GO build -o "$BIN/toolsiftbench" ./bench/toolsiftbench || die "go build toolsiftbench failed"
(cd bench/go && $GO build -o "$BIN/blevebench" .) || die "go build blevebench failed"
(cd bench/node && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in bench/node failed"
if [ ! -x bench/.venv/bin/python ]; then $PYTHON -m venv bench/.venv || die "python venv failed"; fi
bench/.venv/bin/pip install --quiet -r bench/python/requirements.txt || die "pip install failed"
# The binding from this tree, reinstalled every run (its version number does
# not change when its code does).
bench/.venv/bin/pip install --quiet --force-reinstall --no-deps ./bindings/python || die "pip install ./bindings/python failed"

log "exporting catalogs"
rm -rf "$RAW" && mkdir -p "$RAW/rounds" "$RAW/repeat"
if [ "$QUICK" = 1 ]; then
  "$BIN/toolsiftbench" prep -out "$DATA" -quick || die "prep failed"
else
  "$BIN/toolsiftbench" prep -out "$DATA" -shared "$SHARED" || die "prep failed"
fi

# run NAME CATALOG COMMAND…: one engine on one catalog in a fresh process.
# A runner that dies without writing its result gets an error result, so the
# table shows the failure instead of leaving the row out.
# An engine that ran well in under REPEAT_UNDER seconds is listed (with its
# command) for the repeats.
run() {
  local name=$1 cat=$2; shift 2
  local out="$RAW/$name-$cat.json" err="$RAW/$name-$cat.stderr"
  log "$name on $cat"
  local started=$SECONDS
  "$@" >/dev/null 2>"$err"
  local rc=$?
  if [ ! -s "$out" ]; then
    local msg
    msg=$(tail -c 600 "$err" | tr '\n"\\' '  /')
    printf '{"engine":"%s","host":"%s","catalog":"%s","error":"exit %d: %s","loadavg":"%s"}\n' \
      "$name" "${name%%-*}" "$cat" "$rc" "$msg" "$(cut -d' ' -f1-3 /proc/loadavg)" >"$out"
  elif [ $((SECONDS - started)) -lt "$REPEAT_UNDER" ] && ! grep -q '"error"' "$out"; then
    printf '%q ' "$@" >"$RAW/repeat/$cat.$name"
    echo "$name" >>"$RAW/repeat/$cat.list"
  fi
}

# repeat CATALOG: runs 2..RUNS of every listed engine, the engines in turn,
# each into rounds/NAME-CATALOG.RUN.json (a failed repeat writes nothing and
# is left out of the medians).
repeat() {
  local cat=$1 r name cmd
  [ -s "$RAW/repeat/$cat.list" ] || return 0
  for r in $(seq 2 "$RUNS"); do
    while read -r name; do
      cmd=$(cat "$RAW/repeat/$cat.$name")
      cmd=${cmd//"$RAW/$name-$cat.json"/"$RAW/rounds/$name-$cat.$r.json"}
      log "$name on $cat, run $r of $RUNS"
      eval "$cmd" </dev/null >/dev/null 2>>"$RAW/$name-$cat.stderr"
    done <"$RAW/repeat/$cat.list"
  done
}

common() { echo -catalog "$1" -data "$DATA" -seconds "$SECS" -queries "$NQ" -budget "$BUDGET" -out "$RAW/$2-$1.json"; }
jscommon() { echo --catalog "$1" --data "$DATA" --seconds "$SECS" --queries "$NQ" --budget "$BUDGET" --out "$RAW/$2-$1.json"; }
# failed_open NAME CATALOG: the engine did not open (for toolsift's module,
# typically out of memory under the default limit).
failed_open() { grep -q '"error": *"\(open: \|exit \)' "$RAW/$1-$2.json" 2>/dev/null; }

for cat in $CATALOGS; do
  [ -d "$DATA/$cat" ] || { log "no catalog $cat"; continue; }
  run go-native "$cat" "$BIN/toolsiftbench" run -engine native $(common "$cat" go-native)
  run go-wasm "$cat" "$BIN/toolsiftbench" run -engine wasm $(common "$cat" go-wasm)
  if failed_open go-wasm "$cat"; then
    run go-wasm4g "$cat" "$BIN/toolsiftbench" run -engine wasm -memory-limit $FOURGIB $(common "$cat" go-wasm4g)
  fi
  run go-bleve "$cat" "$BIN/blevebench" $(common "$cat" go-bleve)
  for e in toolsift minisearch flexsearch orama; do
    run node-$e "$cat" $NODE --expose-gc --max-old-space-size=8192 bench/node/run.mjs --engine $e $(jscommon "$cat" node-$e)
  done
  run python-toolsift "$cat" bench/.venv/bin/python bench/python/run.py --engine toolsift $(jscommon "$cat" python-toolsift)
  if failed_open python-toolsift "$cat"; then
    run python-toolsift4g "$cat" bench/.venv/bin/python bench/python/run.py --engine toolsift --memory-limit $FOURGIB $(jscommon "$cat" python-toolsift4g)
  fi
  for e in bm25s rank-bm25; do
    run python-$e "$cat" bench/.venv/bin/python bench/python/run.py --engine $e $(jscommon "$cat" python-$e)
  done
  repeat "$cat"
  # The page is rewritten after every catalog, so an interrupted run still
  # leaves the catalogs it finished.
  "$BIN/toolsiftbench" render -data "$DATA" -results "$RAW" -doc docs/BENCHMARKS.md -json "$RESULTS/summary.json" -budget "$BUDGET" -command "$COMMAND" || die "render failed"
done
log "done: docs/BENCHMARKS.md, $RESULTS/summary.json"
