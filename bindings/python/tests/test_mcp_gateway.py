"""wasmhost mcp end to end, from the Python MCP SDK's stdio client: the
gateway (built from this checkout with go) in front of the real npm
filesystem and everything servers (installed by `npm ci` in examples/mcp):
search → inspect → call read_text_file → the file's content comes back;
SIGTERM stops the gateway and its children.

Skipped when go, node or the npm packages are missing; under CI=true that
is a failure instead."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import REPO

MODULES = REPO / "examples" / "mcp" / "node_modules" / "@modelcontextprotocol"


def _missing() -> str:
    if shutil.which("go") is None:
        return "go is not installed"
    if shutil.which("node") is None or shutil.which("npx") is None:
        return "node/npx is not installed"
    if not (MODULES / "server-filesystem" / "dist" / "index.js").is_file():
        return "examples/mcp/node_modules is missing (run: make setup, or make mcp-deps)"
    try:
        import mcp  # noqa: F401
    except ImportError:
        return "the mcp package is not installed (pip install './bindings/python[test]')"
    return ""


@pytest.fixture(scope="module")
def wasmhost(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = _missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the MCP gateway test needs it under CI: {missing}")
        pytest.skip(missing)
    out = tmp_path_factory.mktemp("bin") / "wasmhost"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/wasmhost"], cwd=REPO, check=True, timeout=600)
    return out


def _config(tmp_path: Path, root: Path) -> Path:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "filesystem": {"command": "node", "args": [str(MODULES / "server-filesystem" / "dist" / "index.js"), str(root)]},
        "everything": {"command": "node", "args": [str(MODULES / "server-everything" / "dist" / "index.js"), "stdio"]},
    }}))
    return config


def _text(result: Any, i: int = 0) -> str:
    return result.content[i].text


async def _session(wasmhost: Path, config: Path, file: Path) -> Dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(wasmhost), args=["mcp", "--config", str(config)])
    seen: Dict[str, Any] = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            seen["tools"] = sorted(t.name for t in tools.tools)

            found = await session.call_tool("search_tools", {"query": "read the complete contents of a text file", "servers": ["filesystem"]})
            assert not found.is_error, _text(found)
            answer = json.loads(_text(found))
            seen["paths"] = [c["canonical_path"] for c in answer["candidates"]]
            hashes = {"source_hash": answer["catalog"]["source_hash"], "surface_hash": answer["catalog"]["surface_hash"]}
            seen["rendering"] = _text(found, 1)

            spec = await session.call_tool("inspect_tool", {"path": "filesystem.read_text_file", **hashes})
            assert not spec.is_error, _text(spec)
            seen["schema"] = json.loads(_text(spec))["tool_spec"]["input_schema"]

            called = await session.call_tool("call_tool", {"path": "filesystem.read_text_file", "arguments": {"path": str(file)}, **hashes})
            seen["call"] = (called.is_error, _text(called))

            stale = await session.call_tool("call_tool", {"path": "filesystem.read_text_file", "arguments": {"path": str(file)},
                                                          "source_hash": "sha256:" + "0" * 64, "surface_hash": hashes["surface_hash"]})
            seen["stale"] = (stale.is_error, json.loads(_text(stale))["error"]["reason"])
    return seen


def test_search_inspect_call_read_file(wasmhost: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    file = root / "notes.txt"
    content = "hello from the gateway test\nline two\n"
    file.write_text(content)
    seen = asyncio.run(_session(wasmhost, _config(tmp_path, root), file))
    assert seen["tools"] == ["call_tool", "inspect_tool", "search_tools"]
    assert "filesystem.read_text_file" in seen["paths"]
    assert "filesystem.read_text_file" in seen["rendering"]
    assert "path" in seen["schema"]["properties"]
    assert seen["call"] == (False, content)
    assert seen["stale"] == (True, "catalog_changed")


def _children(pid: int) -> List[int]:
    out: List[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    for task in task_dir.iterdir():
        children = (task / "children").read_text().split()
        out.extend(int(c) for c in children)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads child processes from /proc")
def test_sigterm_stops_the_children(wasmhost: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    proc = subprocess.Popen([str(wasmhost), "mcp", "--config", str(_config(tmp_path, root))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        children: List[int] = []
        deadline = time.monotonic() + 60
        while len(children) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            children = _children(proc.pid)
        assert len(children) == 2, "the two servers run as children"
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout is not None and proc.stdout.read() == b"", "nothing but MCP messages on stdout"
        deadline = time.monotonic() + 10
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(c) for c in children), "SIGTERM stops every child"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
