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
    """Every input line gets one output line, blank ones too (they used to be
    skipped, so output line n no longer answered input line n): a blank line
    gets the module's invalid_request_json, as wasmhost answers it."""
    stdin = "\n".join(LINES).encode()
    proc = _run(["search", "--batch"], stdin)
    assert proc.returncode == 0, proc.stderr
    want = b"".join(_expected(engine, l) + b"\n" for l in LINES)
    assert proc.stdout == want
    out = proc.stdout.splitlines()
    assert len(out) == len(LINES)
    for i, line in enumerate(LINES):
        if not line.strip():
            assert out[i].startswith(b'{"error":{"category":"validation","code":3,"message":"cannot decode tool-search.v1 request: ')
            assert out[i].endswith(b'"reason":"invalid_request_json"}}')
    # A final newline ends the last line; it does not start an empty one.
    proc = _run(["search", "--batch"], b"\n\n")
    assert proc.stdout.count(b"\n") == 2 and proc.stdout.count(b"invalid_request_json") == 2


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
    assert err["category"] == "discovery" and proc.stderr.startswith(b'{"error":{"category":"discovery","code":6,')
    assert proc.stderr.count(b"\n") == 1 and proc.stderr.endswith(b"}}\n")

    proc = _run(["inspect", "--request-json", "-"], b'{"version":"schema-inspect.v1"')
    assert proc.returncode == 3


def _error_line(proc: subprocess.CompletedProcess) -> dict:
    """The one compact error line on stderr, parsed; nothing on stdout."""
    assert proc.stdout == b""
    assert proc.stderr.endswith(b"}}\n") and proc.stderr.count(b"\n") == 1, proc.stderr
    assert proc.stderr.startswith(b'{"error":{"category":"') and b'": ' not in proc.stderr[:40]
    return json.loads(proc.stderr)["error"]  # type: ignore[no-any-return]


def test_errors_are_one_compact_line(dws_snapshot: bytes, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every CLI error is one compact {"error":{...}} line on stderr with exit
    3/5/6: a bad, missing or non-regular snapshot too (they printed plain
    text with exit 1), and --snapshot "" is refused (never the built-in
    catalog), with wasmhost's words."""
    import os

    truncated = tmp_path / "truncated.snap"
    truncated.write_bytes(dws_snapshot[:1000])
    cases = [
        (["search", "--query", "x", "--snapshot", ""], 3, "invalid_snapshot_path",
         '--snapshot "" names no file (leave the flag out to serve the built-in DWS snapshot)'),
        (["info", "--snapshot="], 3, "invalid_snapshot_path", None),
        (["search", "--query", "x", "--snapshot", str(truncated)], 3, "invalid_snapshot", "open snapshot in the module: "),
        (["inspect", "--path", "chat.x", "--snapshot", str(tmp_path / "missing.snap")], 3, "read_snapshot_failed",
         f"read snapshot: stat {tmp_path / 'missing.snap'}: no such file or directory"),
        (["info", "--snapshot", str(tmp_path)], 3, "read_snapshot_failed",
         f"read snapshot: {tmp_path} is not a regular file (a directory)"),
        (["search", "--request-json", "x"], 3, "invalid_transport", None),
        (["search", "--batch", "--query", "x"], 3, "ambiguous_input", None),
        (["search", "--query", "x", "--limit", "99"], 3, "invalid_limit", None),
    ]
    if os.path.exists("/dev/zero"):
        cases.append((["info", "--snapshot", "/dev/zero"], 3, "read_snapshot_failed",
                       "read snapshot: /dev/zero is not a regular file (a character device)"))
    for args, code, reason, message in cases:
        proc = _run(args, b"")
        assert proc.returncode == code, (args, proc.stderr)
        err = _error_line(proc)
        assert (err["code"], err["reason"]) == (code, reason), args
        if message is not None:
            assert err["message"].startswith(message), (args, err)


def test_internal_errors_are_one_line(monkeypatch, capsysbinary) -> None:  # type: ignore[no-untyped-def]
    """Exit 5 with one line: a trap in the host (InternalError) and a bug in
    the CLI itself (any other exception)."""
    from toolsift import __main__ as cli
    from toolsift._errors import host_failure

    for exc, reason in ((host_failure("the module trapped"), "host_failure"), (RuntimeError("boom"), "host_failure")):
        def failing(self: object, *a: object, _exc: BaseException = exc, **k: object) -> bytes:
            raise _exc
        monkeypatch.setattr(toolsift.Engine, "search_raw", failing)
        assert cli.main(["search", "--query", "x"]) == 5
        out, err = capsysbinary.readouterr()
        assert out == b"" and err.count(b"\n") == 1
        assert json.loads(err)["error"]["reason"] == reason


def test_version() -> None:
    """--version and version print the module's version JSON on one compact
    line (the bytes wasmhost --version prints), with exit 0 and no command."""
    for args in (["--version"], ["version"]):
        proc = _run(args, b"")
        assert proc.returncode == 0, proc.stderr
        line = proc.stdout.decode()
        assert line.endswith("\n") and line.count("\n") == 1 and ", " not in line
        version = json.loads(line)
        assert version == toolsift.module_version()
        assert version["version"] == toolsift.__version__
