"""The generic catalog (a multi-server MCP catalog) through this host: the
module builds the same snapshot bytes as the Go core (profile generic-v3, the
format's default; their SHA-256 is testdata/generic/mcp-generic-v3.snap.sha256),
and every vector of every generic profile (golden-generic-v3.jsonl over that
snapshot, golden.jsonl for generic-v2 over the committed mcp.snap,
golden-generic-v1.jsonl over mcp-generic-v1.snap) gets the same bytes (or the
same typed error)."""

from __future__ import annotations

import gzip
import hashlib
import json
from typing import Any, Dict, List

import pytest

import toolsift

from conftest import REPO

GENERIC = REPO / "testdata" / "generic"


def generic_vectors(name: str) -> List[Dict[str, Any]]:
    with open(GENERIC / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def generic_engine() -> Any:
    catalog = gzip.decompress((GENERIC / "livemcpbench-mcp.json.gz").read_bytes())
    snap = toolsift.build_snapshot("mcp", catalog)
    want = (GENERIC / "mcp-generic-v3.snap.sha256").read_text(encoding="ascii").strip()
    assert hashlib.sha256(snap).hexdigest() == want, "the module built a different generic snapshot"
    e = toolsift.Engine.open(snap)
    yield e
    e.close()


@pytest.fixture(scope="module")
def generic_v2_engine() -> Any:
    e = toolsift.Engine.open((GENERIC / "mcp.snap").read_bytes())
    yield e
    e.close()


@pytest.fixture(scope="module")
def generic_v1_engine() -> Any:
    e = toolsift.Engine.open((GENERIC / "mcp-generic-v1.snap").read_bytes())
    yield e
    e.close()


def test_generic_info(generic_engine: toolsift.Engine, generic_v2_engine: toolsift.Engine, generic_v1_engine: toolsift.Engine) -> None:
    info = generic_engine.info()
    assert (info["profile"], info["format"], info["tool_count"]) == ("generic-v3", "mcp", 527)
    info = generic_v2_engine.info()
    assert (info["profile"], info["format"], info["tool_count"]) == ("generic-v2", "mcp", 527)
    info = generic_v1_engine.info()
    assert (info["profile"], info["format"], info["tool_count"]) == ("generic-v1", "mcp", 527)


def replay(engine: toolsift.Engine, vectors: List[Dict[str, Any]]) -> None:
    assert len(vectors) > 25
    for v in vectors:
        call = engine.inspect_raw if v["kind"] == "inspect" else engine.search_raw
        request = json.dumps(v["request"], ensure_ascii=False)
        if "error" in v:
            with pytest.raises(toolsift.ToolsiftError) as caught:
                call(request)
            assert (caught.value.category, caught.value.reason) == (v["error"]["category"], v["error"]["reason"]), request
        else:
            assert call(request).decode("utf-8") == v["response"], request


def test_generic_golden(generic_engine: toolsift.Engine) -> None:
    replay(generic_engine, generic_vectors("golden-generic-v3.jsonl"))


def test_generic_v2_golden(generic_v2_engine: toolsift.Engine) -> None:
    replay(generic_v2_engine, generic_vectors("golden.jsonl"))


def test_generic_v1_golden(generic_v1_engine: toolsift.Engine) -> None:
    replay(generic_v1_engine, generic_vectors("golden-generic-v1.jsonl"))


def test_generic_bad_catalog_names_the_entry() -> None:
    with pytest.raises(toolsift.ValidationError) as caught:
        toolsift.build_snapshot("mcp", {"servers": {"github": {"tools": [{"description": "no name"}]}}})
    assert caught.value.reason == "invalid_catalog"
    assert 'servers["github"]' in str(caught.value) and "tools[0]" in str(caught.value)


def nested(levels: int) -> str:
    """JSON nested `levels` deep: arrays and objects alternating."""
    half = levels // 2
    return '{"a":[' * half + "]}" * half


@pytest.mark.parametrize("levels", [514, 8000, 9998])
def test_deep_nesting_is_invalid_catalog_in_every_format(levels: int) -> None:
    """A catalog nested deeper than the core's bound (512 levels) is refused
    as invalid_catalog in every format; 8,000 levels used to overflow
    wasmtime's stack (host_failure) where Node and wazero refused it."""
    deep = nested(levels)
    catalogs = {
        "toolsift": '{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"x","input_schema":' + deep + "}]}]}",
        "mcp": '{"tools":[{"name":"x","inputSchema":{"type":"object","properties":{"q":' + deep + "}}}]}",
        "openai": '[{"type":"function","name":"x","parameters":' + deep + "}]",
        "anthropic": '[{"name":"x","input_schema":' + deep + "}]",
        "beir": '{"id":"x","description":"d","doc":' + deep + "}",
        "dws": '{"catalog.json":' + deep + "}",
    }
    for fmt, text in catalogs.items():
        with pytest.raises(toolsift.ValidationError) as caught:
            toolsift.build_snapshot(fmt, text.encode())
        assert caught.value.reason == "invalid_catalog", fmt
        assert "nested more than 512 levels deep" in str(caught.value), fmt
    for fmt, load in (("openai", toolsift.from_openai_tools), ("anthropic", toolsift.from_anthropic_tools), ("mcp", toolsift.from_mcp_tools)):
        with pytest.raises(toolsift.ValidationError) as caught:
            load(catalogs[fmt].encode())
        assert caught.value.reason == "invalid_catalog", fmt


def test_the_deepest_catalog_admitted_builds_and_answers() -> None:
    """512 levels (the tool list, the tool and 510 below) stay within
    wasmtime's stack: built, imported, opened and rendered back."""
    text = ('[{"name":"x","input_schema":' + nested(510) + "}]").encode()
    assert toolsift.build_snapshot("anthropic", text)
    e = toolsift.from_anthropic_tools(text).open()
    try:
        out = e.provider_raw({"op": "definitions", "provider": "anthropic"})
        assert out.count(b'{"a":[') == 255
    finally:
        e.close()
