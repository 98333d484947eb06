"""The component in wasmtime: the Python wasmtime package's component API
(wasmtime.component: Component, Linker.add_wasip2) instantiates
wasm/toolsift.component.wasm, and every line of the DWS golden sets must
answer through it with exactly the bytes the core module gives
(bindings/python/tests/test_golden.py replays the same lines through the
core module): the reference's wire response, or an error record with the
reference's category and reason."""

import gzip
import json
from pathlib import Path

import pytest
from wasmtime import Engine, Store, WasiConfig
from wasmtime.component import Component, Linker

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "testdata" / "dws" / "golden"
INTERFACE = "toolsift:search/tool-search@1.0.0"
SEARCH_SETS = ["misc.jsonl.gz", "workflows.jsonl.gz", "identity.jsonl.gz",
               "intent_use_when.jsonl.gz", "forbidden_avoid_when.jsonl.gz"]
# Inspect cases that exercise CLI flags a JSON request cannot express.
INSPECT_CLI_ONLY = {"missing_compact", "with_all", "with_fields", "with_jq", "format_table"}


_compiled = {}


def compiled():
    """The committed component, compiled once per test run (6 to 8 s)."""
    if not _compiled:
        engine = Engine()
        _compiled["engine"] = engine
        _compiled["component"] = Component(engine, (REPO / "wasm" / "toolsift.component.wasm").read_bytes())
    return _compiled["engine"], _compiled["component"]


class Toolsift:
    """One instance of the component: its interface's functions by name.
    memory_limit, when given, caps the store's linear memory (bytes), as a
    host that limits memory does."""

    def __init__(self, memory_limit=None):
        engine, component = compiled()
        linker = Linker(engine)
        linker.add_wasip2()
        self.store = Store(engine)
        self.store.set_wasi(WasiConfig())  # no preopens, no environment, no arguments
        if memory_limit is not None:
            self.store.set_limits(memory_size=memory_limit)
        self.instance = linker.instantiate(self.store, component)
        self.interface = self.instance.get_export_index(self.store, INTERFACE)

    def call(self, name, *args):
        index = self.instance.get_export_index(self.store, name, self.interface)
        return self.instance.get_func(self.store, index)(self.store, *args)


def golden(name):
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def toolsift():
    return Toolsift()


@pytest.fixture(scope="module")
def engine(toolsift):
    opened = toolsift.call("[static]engine.open", (REPO / "catalogs" / "dws" / "dws.snap").read_bytes())
    assert not isinstance(opened, (str, bytes)) and not hasattr(opened, "reason"), opened
    return opened


def mismatch(answer, line, missing_reason=""):
    """None when an answer (a string, or the error record) matches the line."""
    if isinstance(answer, str):
        if line.get("wire_response") is None:
            return f"answered {answer[:120]}, want error {line.get('error')}"
        return None if answer == line["wire_response"] else f"bytes differ: got {answer[:200]}"
    want = line.get("error")
    if not want:
        return f"unexpected error {answer.category}/{answer.reason}: {answer.message}"
    reason = want.get("reason") or missing_reason
    if answer.category == want["category"] and answer.reason == reason:
        return None
    return f"error {answer.category}/{answer.reason}, want {want['category']}/{reason}"


def replay(label, lines, call, to_request, missing_reason=""):
    failures, identical = [], 0
    for i, line in enumerate(lines):
        request = json.dumps(to_request(line), ensure_ascii=False, separators=(",", ":"))
        problem = mismatch(call(request), line, missing_reason)
        if problem is None:
            identical += 1
        elif len(failures) < 10:
            failures.append(f"line {i + 1} {request[:200]}: {problem}")
    print(f"component (wasmtime) {label}: {identical} / {len(lines)} identical")
    assert failures == []
    assert identical == len(lines) > 0


def test_opens_the_dws_snapshot(toolsift, engine):
    info = json.loads(toolsift.call("[method]engine.info", engine))
    assert info["profile"] == "dws-v1" and info["tool_count"] == 1122
    assert json.loads(toolsift.call("version"))["abi"] == 1


@pytest.mark.parametrize("name", SEARCH_SETS)
def test_golden_search(toolsift, engine, name):
    replay(name, golden(name), lambda r: toolsift.call("[method]engine.search", engine, r, False),
           lambda line: {"version": "tool-search.v1", **line["request"]})


def test_golden_inspect(toolsift, engine):
    lines = [l for l in golden("inspect.jsonl.gz") if l["set"] == "inspect"]
    assert len(lines) > 1000
    replay("inspect", lines, lambda r: toolsift.call("[method]engine.inspect", engine, r),
           lambda line: line["request"])


def test_golden_inspect_errors(toolsift, engine):
    lines = [l for l in golden("inspect.jsonl.gz")
             if l["set"] == "inspect_error" and l["case"] not in INSPECT_CLI_ONLY]
    replay("inspect_error", lines, lambda r: toolsift.call("[method]engine.inspect", engine, r),
           lambda line: line["request"], "unknown_path")


def test_bad_input_is_an_error_record(toolsift, engine):
    err = toolsift.call("[static]engine.open", b"\x01\x02\x03")
    assert (err.category, err.code, err.reason) == ("validation", 3, "invalid_snapshot")
    assert toolsift.call("[method]engine.search", engine, "{", False).reason == "invalid_request_json"
    assert toolsift.call("build-snapshot", "nope", b"").reason == "unknown_format"


# Ordinary use must never trap. The component may not call an import while
# the host lowers arguments into it (cabi_realloc), and wasmtime traps when
# it does ("cannot leave component instance"), after which every call of
# the instance fails: this killed the third open of a session and a run of
# large arguments under a memory limit (issue 36, item 10).


def test_open_and_search_six_rounds():
    toolsift = Toolsift()
    snap = (REPO / "catalogs" / "dws" / "dws.snap").read_bytes()
    request = json.dumps({"version": "tool-search.v1", "query": "send a file to the group", "limit": 3})
    answers = set()
    for _ in range(6):
        engine = toolsift.call("[static]engine.open", snap)
        assert not hasattr(engine, "reason"), engine
        answer = toolsift.call("[method]engine.search", engine, request, False)
        assert isinstance(answer, str), answer
        answers.add(answer)
    assert len(answers) == 1
    assert json.loads(toolsift.call("version"))["abi"] == 1


@pytest.mark.parametrize("limit_mib", [64, 128])
def test_large_arguments_under_a_memory_limit(limit_mib):
    """With the DWS snapshot open, twelve 4 MB arguments, each refused with
    a typed error (a search request over the request limit; once each, a
    snapshot that is not one and a catalog that is not JSON), in a store
    whose memory the host caps and tells the component (set-memory-limit):
    none may trap, and the instance still answers after them. Before the
    fix the eleventh trapped at 64 MiB. (Most are strings: the wasmtime
    package lowers a list<u8> one element at a time in Python, seconds per
    4 MB.)"""
    limit = limit_mib << 20
    toolsift = Toolsift(memory_limit=limit)
    assert toolsift.call("set-memory-limit", limit) == limit - limit // 16
    engine = toolsift.call("[static]engine.open", (REPO / "catalogs" / "dws" / "dws.snap").read_bytes())
    assert not hasattr(engine, "reason"), engine
    request = json.dumps({"version": "tool-search.v1", "query": "send a file to the group", "limit": 3})
    want = toolsift.call("[method]engine.search", engine, request, False)
    assert isinstance(want, str), want
    big = 4 << 20
    for i in range(12):
        if i == 3:
            err = toolsift.call("[static]engine.open", bytes([i]) * big)
            assert err.reason == "invalid_snapshot", err
        elif i == 7:
            err = toolsift.call("build-snapshot", "mcp", b"x" * big)
            assert (err.category, err.reason) == ("validation", "invalid_catalog"), err
        else:
            err = toolsift.call("[method]engine.search", engine, chr(ord("a") + i) * big, False)
            assert err.reason == "request_too_large", err
    assert toolsift.call("[method]engine.search", engine, request, False) == want
    small = toolsift.call("build-snapshot", "mcp", json.dumps({"tools": [
        {"name": "send_file", "description": "Send a file to a group chat", "inputSchema": {"type": "object"}}]}).encode())
    assert isinstance(small, bytes), small
