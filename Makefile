# toolsift — one tool-search engine, byte-identical in every host.
#
#   make setup    install what the tests need on a fresh machine (a virtual
#                 environment, the npm packages, the MCP servers, Chromium)
#   make test     everything CI runs (vet, format, unit + conformance tests,
#                 race test, fuzz seed corpora, the wasip1 build of the core);
#                 it ends with the tests skipped for lack of setup, and fails
#                 on any unless ALLOW_SKIPS=1 (never under CI)
#   make search Q="..."   one search on the built-in DWS catalog
#   make bench    every host against the alternative libraries, on the same
#                 catalogs and queries (bench/run.sh; QUICK=1 for a smoke run);
#                 the table goes to docs/BENCHMARKS.md
#   make bench-micro  the Go micro-benchmarks of the core and hostapi
#   make fuzz     every fuzz target for FUZZTIME each (default 60s)

GO        ?= go
FUZZTIME  ?= 60s
Q         ?= 创建日程
BENCHTIME ?= 2s
COUNT     ?= 5

PYTHON    ?= python3
VENV      ?= .venv
# The pytest plugin that records skips (internal/testskip).
SKIPLOG_PY = $(abspath internal/testskip)

SOAK      ?= 10m

.PHONY: setup test test-suites vet fmt-check unit race wasm-check wasm python-test js-test install-check mcp-deps readme-check search bench bench-micro fuzz soak quality

# Every suite appends what it skipped for lack of setup to one file
# (TOOLSIFT_SKIP_LOG; internal/testskip); the run ends by listing it, and
# fails on a skip unless ALLOW_SKIPS=1 (not honoured under CI).
test:
	@log="$$(mktemp)"; status=0; \
	TOOLSIFT_SKIP_LOG="$$log" $(MAKE) --no-print-directory test-suites || status=$$?; \
	ALLOW_SKIPS="$(ALLOW_SKIPS)" $(PYTHON) internal/testskip/summary.py "$$log" $$status; rc=$$?; \
	rm -f "$$log"; exit $$rc

test-suites: fmt-check vet wasm-check unit race python-test js-test install-check readme-check

# A fresh machine: what make test needs, installed where it can be (.ci/setup
# says what it cannot install and how to get it). .ci/run runs it first.
setup:
	VENV="$(VENV)" PYTHON="$(PYTHON)" GO="$(GO)" .ci/setup

# Every Go file git knows of, tracked or new (not ignored), so that no
# directory can be left out; outside a git checkout, every .go file but
# node_modules'. A file gofmt cannot parse fails the check too.
fmt-check:
	@files="$$(git ls-files -co --exclude-standard -- '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*' -not -path './.git/*')"; \
	out="$$(for f in $$files; do if [ -f "$$f" ]; then echo "$$f"; fi; done | xargs -r gofmt -l)" || { echo "gofmt failed"; exit 1; }; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# The engine is immutable after construction and the host pools instances;
# prove both under the race detector, and the gateway's swaps under load.
race:
	$(GO) test -count=1 -race -run 'Concurrent' ./core/engine/ ./hostapi/ ./gateway/

# The core must compile for the WASI module (no cgo, no os/exec, no file I/O),
# and the committed module must be exactly what its sources build.
wasm-check:
	GOOS=wasip1 GOARCH=wasm $(GO) build ./core/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/module/
	wasm/build.sh --check

# The Python binding, installed from the source tree into a virtual
# environment (wasmtime comes from PyPI), tested against the golden vectors;
# then the WASI 0.2 component in wasmtime's component API (wasm/COMPONENT.md);
# then the skip log's pytest plugin and make test's summary.
python-test:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet './bindings/python[test]'
	cd bindings/python && PYTHONPATH=$(SKIPLOG_PY) $(abspath $(VENV))/bin/python -m pytest -q -p pytest_skiplog
	PYTHONPATH=$(SKIPLOG_PY) $(VENV)/bin/python -m pytest -q -p pytest_skiplog wasm/component/python/test_component_wasmtime.py
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider internal/testskip/test_skiplog.py

# The npm package: node --test, including the playground in headless Chromium
# (Debian's chromium at /usr/bin/chromium, or CHROMIUM_PATH; never a download);
# then the WASI 0.2 component through jco transpile, and the committed
# component must be what its sources build (wasm/COMPONENT.md).
js-test:
	cd bindings/js && npm ci --no-audit --no-fund && TOOLSIFT_GO_CHECK=1 npm test
	cd wasm/component/js && npm ci --no-audit --no-fund && npm test
	wasm/build.sh --check --component

# Each binding installed as a user installs it, into fresh temporary
# environments: from the checkout (pip install ./bindings/python, npm install
# ./bindings/js) and from what is published (the wheel built from the sdist,
# the npm pack tarball); one golden search in each (.ci/install_check.sh).
# Git holds one copy of the module and the DWS snapshot; the packages copy
# them and check them against wasm/artifacts.sha256.
install-check:
	PYTHON="$(PYTHON)" .ci/install_check.sh python
	.ci/install_check.sh js

# The real MCP servers the gateway's tests start (pinned in
# examples/mcp/package-lock.json); .ci/run installs them before make test.
mcp-deps:
	cd examples/mcp && npm ci --no-audit --no-fund

# Every shell block of README.md, run in a fresh clone of the committed HEAD
# (what a new user copies; a block marked readme-check: skip says why not).
readme-check:
	$(PYTHON) .ci/readme_check.py

# Rebuild wasm/toolsearch.wasm, wasm/exports.txt and wasm/artifacts.sha256
# after changing the engine.
wasm:
	wasm/build.sh

search:
	$(GO) run ./cmd/wasmhost search --query "$(Q)"

# Needs network access to npm, PyPI and the Go proxy on the first run, and
# reads the public benchmarks in ../shared/data/bench (BENCH_SHARED).
bench:
	BENCH_QUICK=$(if $(QUICK),1,$(BENCH_QUICK)) GO=$(GO) PYTHON=$(PYTHON) bench/run.sh

# Ranking quality: every profile, the plain BM25 baseline
# (../shared/tools/bm25_reference.py) and bm25s (two tokenizers, in a venv
# made on the first run: QUALITY_VENV, default .venv-quality) on every set
# in BENCH_SHARED (default ../shared/data/bench); writes the table into
# docs/QUALITY.md and every figure into bench/quality/last.json.
quality:
	GO=$(GO) PYTHON=$(PYTHON) $(PYTHON) bench/quality/run.py

bench-micro:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(COUNT) ./core/... ./hostapi/

# Runs every fuzz target in the repository for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# The load test with live catalog swaps, for SOAK (default 10m); the normal
# tests run it for 2 s.
soak:
	TOOLSIFT_SOAK=$(SOAK) $(GO) test -count=1 -v -timeout 0 -run '^TestLoadWithSwaps$$' ./hostapi/
