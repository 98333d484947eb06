"""Provider tool search through this host: testdata/provider/golden.jsonl
replayed byte for byte (import report, snapshot SHA-256, every answer or
typed error), as hostapi and the Node binding do; every answer validated
against the official SDKs' own types (openai, anthropic: the request
TypedDicts through pydantic, the response models) and round-tripped; and
one recorded conversation per provider replayed end to end. No network, no
API key."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any, Dict, List

import pytest
from anthropic.types import MessageParam, ToolParam as AnthropicToolParam, ToolResultBlockParam, ToolUseBlock
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseInputItemParam,
    ResponseToolSearchCall,
    ResponseToolSearchOutputItemParam,
    ToolParam as OpenAIToolParam,
)
from pydantic import TypeAdapter

import toolsift

from conftest import REPO

DIR = REPO / "testdata" / "provider"

# Tests that run the module skip until it is rebuilt with the provider
# exports; the SDK checks of the golden answers need no module.
needs_module = pytest.mark.skipif(
    b"toolsift_provider" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
    reason="the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh",
)

IMPORTERS = {"openai": toolsift.from_openai_tools, "anthropic": toolsift.from_anthropic_tools, "mcp": toolsift.from_mcp_tools}


def read_json(name: str) -> Any:
    return json.loads((DIR / name).read_text(encoding="utf-8"))


def golden() -> List[Dict[str, Any]]:
    with open(DIR / "golden.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def engines() -> Iterator[Dict[str, toolsift.ProviderEngine]]:
    opened: Dict[str, toolsift.ProviderEngine] = {}
    for g in golden():
        if "import" in g:
            tools = (DIR / g["import"]["file"]).read_bytes()
            listed = IMPORTERS[g["import"]["format"]](tools)
            assert listed.report_text == g["report"], g["catalog"]
            assert hashlib.sha256(listed.snapshot).hexdigest() == g["snapshot_sha256"], g["catalog"]
            opened[g["catalog"]] = listed.open()
    yield opened
    for e in opened.values():
        e.close()


@needs_module
def test_golden_bytes(engines: Dict[str, toolsift.ProviderEngine]) -> None:
    calls = 0
    for g in golden():
        if "import" in g:
            continue
        request = g["request"] if isinstance(g["request"], str) else json.dumps(g["request"], ensure_ascii=False, separators=(",", ":"))
        e = engines[g["catalog"]]
        if "error" in g:
            with pytest.raises(toolsift.ToolsiftError) as info:
                e.provider_raw(request)
            assert (info.value.category, info.value.reason) == (g["error"]["category"], g["error"]["reason"]), request
        else:
            assert e.provider_raw(request).decode("utf-8") == g["response"], request
        calls += 1
    assert calls > 90


# -- the SDKs' own types -------------------------------------------------

_adapters: Dict[Any, TypeAdapter] = {}  # kept alive: pydantic validates Iterable members lazily


def _materialize(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _materialize(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)) or isinstance(v, Iterator):
        return [_materialize(x) for x in v]
    return v


def validate_param(param_type: Any, value: Any) -> None:
    """``value`` is a valid SDK request parameter of ``param_type`` (a
    TypedDict: required keys, literals, value types) and comes back equal."""
    adapter = _adapters.setdefault(param_type, TypeAdapter(param_type))
    assert _materialize(adapter.validate_python(value)) == value


def test_the_validation_refuses_a_wrong_shape() -> None:
    good = {"type": "tool_search_output", "call_id": "c", "execution": "client", "status": "completed", "tools": []}
    validate_param(ResponseInputItemParam, good)
    for bad in (
        dict(good, tools=[{"type": "function", "name": "f"}]),  # no parameters, no strict
        dict(good, type="tool_search_outputs"),
        dict(good, tools=[{"type": "namespace", "name": "n", "tools": []}]),  # no description
    ):
        with pytest.raises(Exception):
            validate_param(ResponseInputItemParam, bad)
    with pytest.raises(Exception):
        validate_param(ToolResultBlockParam, {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "tool_reference"}]})


def test_every_golden_answer_fits_the_sdk_types() -> None:
    checked = 0
    for g in golden():
        if "response" not in g or not isinstance(g["request"], dict):
            continue
        out = json.loads(g["response"])
        op = g["request"]["op"]
        if "session" in g["request"]:
            assert list(out) == ["output", "session", "catalog_changed", "already_loaded", "over_cap"]
            out = out["output"]
        if op == "answer_tool_search_call":
            validate_param(ResponseInputItemParam, out)
            model = ResponseToolSearchOutputItemParam.model_validate(out)
            assert model.model_dump(mode="json", exclude_unset=True) == out
        elif op == "openai_tool_search_tool":
            validate_param(OpenAIToolParam, out)
        elif op == "definitions" and g["request"]["provider"] == "openai":
            for d in out:
                validate_param(OpenAIToolParam, d)
        elif op in ("anthropic_search_tool",):
            validate_param(AnthropicToolParam, out)
        elif op == "definitions":
            for d in out:
                validate_param(AnthropicToolParam, d)
        elif op == "answer_tool_use":
            validate_param(ToolResultBlockParam, out)
            validate_param(MessageParam, {"role": "user", "content": [out]})
        checked += 1
    assert checked > 40


# -- recorded conversations ----------------------------------------------


def tokens(value: Any) -> int:
    return (len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + 3) // 4


def ranked(engine: toolsift.Engine, query: str) -> List[str]:
    return [c["canonical_path"] for c in engine.search({"version": "tool-search.v1", "query": query})["candidates"]]


@needs_module
def test_openai_transcript() -> None:
    tr = read_json("openai-transcript.json")
    with toolsift.from_openai_tools(read_json(tr["catalog"])).open() as e:
        loaded: Dict[str, Dict[str, Any]] = {}
        called = 0
        for turn in tr["turns"]:
            for item in turn["output"]:
                if item["type"] == "tool_search_call":
                    call = ResponseToolSearchCall.model_validate(item)  # the model's item, as the SDK parses it
                    out = e.answer_tool_search_call(call.model_dump(mode="json", exclude_unset=True), budget_tokens=tr["budget_tokens"])
                    validate_param(ResponseInputItemParam, out)
                    assert out["call_id"] == item["call_id"]
                    assert tokens(out["tools"]) <= tr["budget_tokens"]
                    names: List[str] = []
                    for t in out["tools"]:
                        members = t["tools"] if t["type"] == "namespace" else [t]
                        for m in members:
                            key = f"{t['name']}.{m['name']}" if t["type"] == "namespace" else m["name"]
                            loaded[key] = m
                            names.append(key if t["type"] == "namespace" else f"tools.{key}")
                    best = ranked(e, item["arguments"]["query"])
                    assert len(names) < len(best), "the budget cut the ranking"
                    assert names == best[: len(names)]
                elif item["type"] == "function_call":
                    call = ResponseFunctionToolCall.model_validate(item)
                    called += 1
                    key = f"{call.namespace}.{call.name}" if call.namespace else call.name
                    assert key in loaded, f"{key} was loaded"
                    args = json.loads(call.arguments)
                    for r in loaded[key]["parameters"]["required"]:
                        assert r in args
        assert called == 1


@needs_module
def test_anthropic_transcript() -> None:
    tr = read_json("anthropic-transcript.json")
    with toolsift.from_anthropic_tools(read_json(tr["catalog"])).open() as e:
        by_name = {d["name"]: d for d in e.definitions("anthropic")}
        referenced = set()
        used = 0
        for turn in tr["turns"]:
            for raw in turn["content"]:
                if raw["type"] != "tool_use":
                    continue
                block = ToolUseBlock.model_validate(raw)
                if block.name == "tool_search":
                    out = e.answer_tool_use(block.model_dump(mode="json", exclude_unset=True), budget_tokens=tr["budget_tokens"])
                    validate_param(ToolResultBlockParam, out)
                    assert out["tool_use_id"] == block.id
                    names = [c["tool_name"] for c in out["content"]]
                    referenced.update(names)
                    assert tokens([by_name[n] for n in names]) <= tr["budget_tokens"]
                    best = ranked(e, raw["input"]["query"])
                    assert len(names) < len(best)
                    assert [f"tools.{n}" for n in names] == best[: len(names)]
                else:
                    used += 1
                    assert block.name in referenced
                    for r in by_name[block.name]["input_schema"]["required"]:
                        assert r in block.input
        assert used == 1


@needs_module
def test_always_loaded_and_refusals() -> None:
    listed = toolsift.from_anthropic_tools(DIR / "anthropic-tools.json")
    assert listed.always_loaded == ["web_search_20250305", "get_time"]
    with pytest.raises(toolsift.ValidationError) as info:
        toolsift.from_openai_tools({"tools": 3})
    assert info.value.reason == "invalid_catalog"
    with listed.open() as e:
        with pytest.raises(toolsift.ValidationError) as info:
            e.answer_tool_use("{not json")
        assert info.value.reason == "invalid_request_json"


@needs_module
def test_tool_session() -> None:
    with toolsift.from_openai_tools(DIR / "openai-tools.json").open() as openai, toolsift.from_anthropic_tools(DIR / "anthropic-tools.json").open() as anthropic:
        session = toolsift.ToolSession(max_tools=4)
        call = lambda i: {"type": "tool_search_call", "call_id": i, "arguments": {"query": "customer email", "limit": 3}}  # noqa: E731
        first = session.answer_tool_search_call(openai, call("c1"))
        validate_param(ResponseInputItemParam, first)
        assert len(session.loaded) == 3
        again = session.answer_tool_search_call(openai, call("c2"))
        assert again["tools"] == [] and session.already_loaded == session.loaded
        resumed = toolsift.ToolSession(state=json.loads(json.dumps(session.state)))
        resumed.answer_tool_use(anthropic, {"type": "tool_use", "id": "t1", "name": "tool_search", "input": {"query": "slack"}})
        assert resumed.catalog_changed
        assert not set(resumed.loaded) & set(session.loaded)


@needs_module
@pytest.mark.parametrize("bad,shown", [(float("nan"), "NaN"), (float("inf"), "Infinity"), (float("-inf"), "-Infinity")])
def test_non_finite_budget_is_refused(bad: float, shown: str) -> None:
    """json.dumps would write NaN or Infinity, which is not JSON: refused by
    name, with the reason and message the JS binding gives."""
    item = {"type": "tool_search_call", "call_id": "c1", "arguments": {"query": "customer email"}}
    block = {"type": "tool_use", "id": "t1", "name": "tool_search", "input": {"query": "customer email"}}
    with toolsift.from_openai_tools(DIR / "openai-tools.json").open() as openai, toolsift.from_anthropic_tools(DIR / "anthropic-tools.json").open() as anthropic:
        session = toolsift.ToolSession()
        for call in (lambda: openai.answer_tool_search_call(item, budget_tokens=bad),  # type: ignore[arg-type]
                     lambda: anthropic.answer_tool_use(block, budget_tokens=bad),  # type: ignore[arg-type]
                     lambda: session.answer_tool_search_call(openai, item, budget_tokens=bad)):  # type: ignore[arg-type]
            with pytest.raises(toolsift.ValidationError) as info:
                call()
            assert info.value.reason == "invalid_budget"
            assert f"budget_tokens must be a finite number, got {shown}" in str(info.value)
        assert session.loaded == []


@needs_module
def test_names_resolve_back(engines: Dict[str, toolsift.ProviderEngine]) -> None:
    """Server a's tool b__c and server a__b's tool c share no Anthropic name;
    every shown name maps back to its tool, and a search for it finds it."""
    e = engines["mcp-names"]
    shown = {n["canonical_path"]: n["name"] for n in e.names("anthropic")}
    assert shown["a.b__c"] == "a__b__c_44b440f7" and shown["a__b.c"] == "a__b__c_57a76311"
    for path, name in shown.items():
        assert e.resolve_name("anthropic", name)["canonical_path"] == path
        block = {"type": "tool_use", "id": "toolu_n", "name": "tool_search", "input": {"query": name}}
        assert [c["tool_name"] for c in e.answer_tool_use(block)["content"]] == [name]
    ns = next(n for n in e.names("openai") if n["canonical_path"] == "a.files.read")
    assert e.resolve_name("openai", ns["name"], namespace=ns["namespace"]) == {"canonical_path": "a.files.read", "product_id": "a", "name": "files.read"}
    for bad in ("a__b__c", ""):
        with pytest.raises(toolsift.ValidationError) as info:
            e.resolve_name("anthropic", bad)
        assert info.value.reason == "unknown_name"


@needs_module
def test_agents_adapter_loads_tools_by_their_own_names(engines: Dict[str, toolsift.ProviderEngine]) -> None:
    """The Agents SDK adapter enables tools by their own names: an answer
    shows "files.read" as files_read_46529020 (OpenAI refuses the dot)."""
    from toolsift.provider_frameworks import _loaded_names

    e = engines["mcp-names"]
    item = {"type": "tool_search_call", "call_id": "c", "arguments": {"query": "read a file from the workspace", "limit": 1}}
    output = e.answer_tool_search_call(item)
    assert [m["name"] for t in output["tools"] for m in t["tools"]] == ["files_read_46529020"]
    assert _loaded_names(e, output) == ["files.read"]
