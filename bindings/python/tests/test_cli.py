"""python -m toolsift: one line per request, the library's bytes."""

from __future__ import annotations

import json
import subprocess
import sys

import toolsift

from conftest import CHINESE_QUERY

LINES = [
    json.dumps(CHINESE_QUERY, ensure_ascii=False),
    "",
    '{"version":"tool-search.v1","query":"x","bogus":1}',
    "   ",
    "not json",
    '{"version":"tool-search.v1","query":"<查询日程&>","limit":2}\r',
    '{"version":"tool-search.v2","query":"x"}',
]


def _run(args: list, stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolsift", *args], input=stdin, capture_output=True, timeout=120)


def _expected(engine: toolsift.Engine, line: str) -> bytes:
    try:
        return engine.search_raw(line.rstrip("\r").encode())
    except toolsift.ToolsiftError as err:
        return err.raw


def test_batch(engine: toolsift.Engine) -> None:
    stdin = "\n".join(LINES).encode()
    proc = _run(["search", "--batch"], stdin)
    assert proc.returncode == 0, proc.stderr
    want = b"".join(_expected(engine, l) + b"\n" for l in LINES if l.strip())
    assert proc.stdout == want
    assert len(proc.stdout.splitlines()) == 5


def test_batch_too_large_line() -> None:
    big = b'{"version":"tool-search.v1","query":"' + b"a" * 70000 + b'"}'
    proc = _run(["search", "--batch"], big + b"\n" + json.dumps(CHINESE_QUERY).encode() + b"\n")
    out = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(out) == 2
    assert out[0] == (b'{"error":{"category":"validation","code":3,'
                      b'"message":"the request is larger than 65536 bytes","reason":"request_too_large"}}')
    assert json.loads(out[1])["candidates"]


def test_query_and_inspect(engine: toolsift.Engine) -> None:
    proc = _run(["search", "--query", "给群里发文件并确认消息已读", "--limit", "5"], b"")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == engine.search_raw(CHINESE_QUERY) + b"\n"

    info = engine.info()
    request = {"version": "schema-inspect.v1", "canonical_path": "chat.query_msg_read_status",
               "expected_source_hash": info["source_hash"], "expected_surface_hash": info["surface_hash"]}
    proc = _run(["inspect", "--request-json", "-"], json.dumps(request).encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == engine.inspect_raw(request) + b"\n"

    request["expected_source_hash"] = "sha256:" + "0" * 64
    proc = _run(["inspect", "--request-json", "-"], json.dumps(request).encode())
    assert proc.returncode == 6 and proc.stdout == b""
    err = json.loads(proc.stderr)["error"]
    assert err["category"] == "discovery" and proc.stderr.startswith(b'{\n  "error": {\n    "category": "discovery",')

    proc = _run(["inspect", "--request-json", "-"], b'{"version":"schema-inspect.v1"')
    assert proc.returncode == 3


def test_indent_matches_go() -> None:
    from toolsift.__main__ import indent_json
    assert indent_json(b'{"a":{"b":[1,2],"c":{},"d":[]},"e":"x:,{}\\""}') == (
        b'{\n  "a": {\n    "b": [\n      1,\n      2\n    ],\n    "c": {},\n    "d": []\n  },\n  "e": "x:,{}\\""\n}')
