"""Provider tool search: the tools a provider request already passes become
a snapshot, and the model's search calls are answered in the provider's own
shapes (OpenAI ``tool_search_output``, Anthropic ``tool_result`` with
``tool_reference`` blocks). The shapes are rendered inside the module
(``toolsift_import_tools`` and ``toolsift_provider``, wasm/ABI.md), so these
are thin wrappers and every host returns the same bytes.

    >>> tools = toolsift.from_openai_tools(request_tools)
    >>> with tools.open() as engine:
    ...     item = engine.answer_tool_search_call(tool_search_call)
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import wasmtime

from ._call import Export, exporter
from ._engine import Engine, _Generation
from ._errors import host_failure, validation
from ._runtime import DEFAULT_MEMORY_LIMIT, Instance, Limits, module_limits, runtime

__all__ = [
    "ToolList",
    "ProviderEngine",
    "ToolSession",
    "from_openai_tools",
    "from_anthropic_tools",
    "from_mcp_tools",
]

ToolsSource = Union[List[Any], Dict[str, Any], str, bytes, bytearray, memoryview, "os.PathLike[str]"]
Item = Union[Dict[str, Any], str, bytes]

_SIGNATURES = {
    "toolsift_import_tools": (["i32", "i32", "i32", "i32"], "i64"),
    "toolsift_provider": (["i32", "i32", "i32"], "i64"),
}


class _Capturing:
    """The runtime as Instance sees it (``engine`` and ``pre``), keeping the
    wasmtime instance it makes: the provider exports are looked up on it,
    since Instance binds only the exports of the core ABI."""

    def __init__(self) -> None:
        rt = runtime()
        self.engine = rt.engine
        self._pre = rt.pre
        self.instance: Optional[wasmtime.Instance] = None

    @property
    def pre(self) -> "_Capturing":
        return self

    # Instance reads and records the module's limits on its runtime.
    @property
    def limits(self) -> Optional[Limits]:
        return runtime().limits

    @limits.setter
    def limits(self, value: Limits) -> None:
        runtime().limits = value

    def instantiate(self, store: wasmtime.Store) -> wasmtime.Instance:
        self.instance = self._pre.instantiate(store)
        return self.instance


def _instance(memory_limit: int) -> Instance:
    """A fresh instance with its provider exports bound (``_provider``)."""
    capture = _Capturing()
    inst = Instance(capture, memory_limit)  # type: ignore[arg-type]
    assert capture.instance is not None
    exports = capture.instance.exports(inst.store)
    bound: Dict[str, Export] = {}
    for name, (params, result) in _SIGNATURES.items():
        try:
            fn = exports[name]
        except KeyError:
            fn = None
        if not isinstance(fn, wasmtime.Func):
            raise host_failure(f"module broke the ABI: missing export {name} (a module built before provider tool search: rebuild it with wasm/build.sh)")
        ty = fn.type(inst.store)
        got = ([str(p) for p in ty.params], [str(r) for r in ty.results])
        if got != (params, [result]):
            raise host_failure(f"module broke the ABI: export {name} has signature {got}")
        bound[name] = exporter(inst.store, fn, params, result)
    inst._provider = bound  # type: ignore[attr-defined]
    return inst


def _json_bytes(value: Any, what: str) -> bytes:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, os.PathLike):
        with open(value, "rb") as f:
            return f.read()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be a list, a dict, JSON text, bytes or a path, not {type(value).__name__}")


@dataclass(frozen=True)
class ToolList:
    """The result of :func:`from_openai_tools` and its siblings."""

    #: The deferred tools' snapshot, each tool with its definition as given.
    snapshot: bytes
    #: The import report (tools read, imported, skipped and why, fields, ``always_loaded``).
    report: Dict[str, Any]
    #: The report's exact JSON as the module wrote it.
    report_text: str
    #: Tools left out of the index, in input order: not deferred while others
    #: are, or the provider's built-in tools (by type). They stay in the request.
    always_loaded: List[str] = field(default_factory=list)

    def open(self, *, instances: int = 1, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> "ProviderEngine":
        """A :class:`ProviderEngine` serving this snapshot."""
        return ProviderEngine.open(self.snapshot, instances=instances, memory_limit=memory_limit)


def _import(format: str, tools: ToolsSource, memory_limit: int) -> ToolList:
    data = _json_bytes(tools, "tools")
    inst = _instance(memory_limit)
    out = inst._invoke(inst._provider["toolsift_import_tools"], (), (format.encode("ascii"), data))  # type: ignore[attr-defined]
    if len(out) < 4:
        raise host_failure(f"module broke the ABI: toolsift_import_tools returned {len(out)} bytes")
    (n,) = struct.unpack_from("<I", out)
    if 4 + n > len(out):
        raise host_failure("module broke the ABI: toolsift_import_tools report overruns its result")
    text = out[4 : 4 + n].decode("utf-8")
    report = json.loads(text)
    return ToolList(snapshot=bytes(out[4 + n :]), report=report, report_text=text, always_loaded=list(report.get("always_loaded", [])))


def from_openai_tools(tools: ToolsSource, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> ToolList:
    """Import the tools a Responses or Chat Completions request passes (a
    list, ``{"tools": [...]}``, JSON text, bytes or a path) for client-executed
    tool search: function and custom tools, namespaces, ``defer_loading``.
    Each tool keeps its definition; when any tool is deferred only the
    deferred ones are indexed. Raises :class:`ValidationError`
    (``invalid_catalog``) for a list that does not import."""
    return _import("openai", tools, memory_limit)


def from_anthropic_tools(tools: ToolsSource, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> ToolList:
    """:func:`from_openai_tools` for an Anthropic Messages tools list."""
    return _import("anthropic", tools, memory_limit)


def from_mcp_tools(tools: ToolsSource, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> ToolList:
    """:func:`from_openai_tools` for an MCP ``tools/list`` result (or
    ``{"servers": {...}}``); every tool is indexed, each server a namespace."""
    return _import("mcp", tools, memory_limit)


def _request(op: str, **members: Any) -> bytes:
    """A provider request, members at their zero value left out (as the module wants)."""
    r: Dict[str, Any] = {"op": op}
    for k, v in members.items():
        if v is None or v == "" or v == 0:
            continue
        if k == "budget_tokens" and isinstance(v, float) and not math.isfinite(v):
            # json.dumps would write NaN or Infinity, which is not JSON;
            # refused by name, with the reason the JS binding gives it.
            shown = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[str(v)]
            raise validation("invalid_budget", f"budget_tokens must be a finite number, got {shown}")
        if k in ("item", "block") and isinstance(v, (str, bytes)):
            try:
                v = json.loads(v)
            except ValueError as exc:
                raise validation("invalid_request_json", f"provider request: {k}: {exc}") from None
        r[k] = v
    return json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class ProviderEngine(Engine):
    """An :class:`Engine` that also answers provider tool search (its
    instances bind the provider exports). Open it with
    ``ProviderEngine.open(snapshot)`` or :meth:`ToolList.open`."""

    def _new_instance(self, gen: _Generation) -> Instance:
        inst = _instance(self._memory_limit)
        with self._lock:
            self._created += 1
        inst.open(gen.snapshot, gen)
        return inst

    def provider_raw(self, request: Union[Dict[str, Any], str, bytes]) -> bytes:
        """The module's exact JSON answer to one provider request (``{"op": ...}``)."""
        data = _json_bytes(request, "request")
        module_limits().check(data, "provider_request_too_large")

        def call(inst: Instance) -> bytes:
            fn = inst._provider["toolsift_provider"]  # type: ignore[attr-defined]
            return inst._invoke(fn, (inst.handle,), (data,))

        return self._with_instance(call)

    def _answer(self, op: str, **members: Any) -> Any:
        return json.loads(self.provider_raw(_request(op, **members)))

    def openai_tool_search_tool(self) -> Dict[str, Any]:
        """The Responses ``tool_search`` tool to send (``execution: "client"``)."""
        return self._answer("openai_tool_search_tool")  # type: ignore[no-any-return]

    def answer_tool_search_call(self, item: Item, *, budget_tokens: int = 0) -> Dict[str, Any]:
        """The ``tool_search_output`` item answering a client-executed
        ``tool_search_call`` item (a dict or its JSON): ``call_id`` echoed, the
        found tools' full definitions in rank order, within ``budget_tokens``
        (default 8192; tokens counted as bytes/4)."""
        return self._answer("answer_tool_search_call", item=item, budget_tokens=budget_tokens)  # type: ignore[no-any-return]

    def anthropic_search_tool(self, *, name: str = "") -> Dict[str, Any]:
        """A Messages client-side search tool named ``name`` (default ``tool_search``)."""
        return self._answer("anthropic_search_tool", name=name)  # type: ignore[no-any-return]

    def answer_tool_use(self, block: Item, *, budget_tokens: int = 0) -> Dict[str, Any]:
        """The ``tool_result`` block of ``tool_reference`` blocks answering the
        search tool's ``tool_use`` block, in rank order, within ``budget_tokens``."""
        return self._answer("answer_tool_use", block=block, budget_tokens=budget_tokens)  # type: ignore[no-any-return]

    def definitions(self, provider: str) -> List[Dict[str, Any]]:
        """Every indexed tool's definition in the shape of ``"openai"`` or
        ``"anthropic"`` (for Anthropic: the deferred tools the request must list)."""
        return self._answer("definitions", provider=provider)  # type: ignore[no-any-return]

    def names(self, provider: str) -> List[Dict[str, str]]:
        """The name each indexed tool is shown under by ``"openai"`` or
        ``"anthropic"``, in catalog order: ``{"canonical_path", "name"}``, with
        ``"namespace"`` for an OpenAI function inside one. A tool keeps its own
        name where the provider takes it and no other tool would share it;
        otherwise it is renamed with 8 hex digits of its canonical path's SHA-256."""
        return self._answer("names", provider=provider)  # type: ignore[no-any-return]

    def resolve_name(self, provider: str, name: str, *, namespace: str = "") -> Dict[str, str]:
        """The tool a provider showed as ``name`` (a ``tool_use``'s name; a
        ``function_call``'s name and ``namespace``): ``{"canonical_path",
        "product_id", "name"}``. An unknown name raises ``ValidationError``
        (``unknown_name``)."""
        if not name:
            raise validation("unknown_name", f"no tool is shown to {provider} as an empty name")
        return self._answer("resolve_name", provider=provider, name=name, namespace=namespace)  # type: ignore[no-any-return]


class ToolSession:
    """Which tools one conversation has loaded, under which catalog
    generation: each answer loads only tools not loaded yet, within caps on
    the loaded set (by default 64 tools and 128 KiB of definitions), and
    ``catalog_changed`` says when the catalog changed under the conversation
    (the loaded set then starts again). The state is the module's
    (core/provider/session.go); this only carries it between calls. Not
    thread-safe: a conversation is sequential."""

    def __init__(self, *, max_tools: int = 0, max_bytes: int = 0, state: Optional[Dict[str, Any]] = None) -> None:
        if state is None:
            state = {k: v for k, v in (("max_tools", max_tools), ("max_bytes", max_bytes)) if v}
        #: The JSON state to store with the conversation (pass it back as ``state``).
        self.state: Dict[str, Any] = state
        self.catalog_changed = False
        #: The last answer's found tools left out: loaded before, or beyond the caps.
        self.already_loaded: List[str] = []
        self.over_cap: List[str] = []

    @property
    def loaded(self) -> List[str]:
        """Canonical paths loaded so far, in load order."""
        return [entry["path"] for entry in self.state.get("loaded", [])]

    def answer_tool_search_call(self, engine: ProviderEngine, item: Item, *, budget_tokens: int = 0) -> Dict[str, Any]:
        """:meth:`ProviderEngine.answer_tool_search_call`, loading only new tools."""
        return self._answer(engine, "answer_tool_search_call", item=item, budget_tokens=budget_tokens)

    def answer_tool_use(self, engine: ProviderEngine, block: Item, *, budget_tokens: int = 0) -> Dict[str, Any]:
        """:meth:`ProviderEngine.answer_tool_use`, referencing only new tools."""
        return self._answer(engine, "answer_tool_use", block=block, budget_tokens=budget_tokens)

    def _answer(self, engine: ProviderEngine, op: str, **members: Any) -> Dict[str, Any]:
        request = json.loads(_request(op, **members))
        request["session"] = self.state
        answer = json.loads(engine.provider_raw(request))
        self.state = answer["session"]
        self.catalog_changed = answer["catalog_changed"]
        self.already_loaded = answer["already_loaded"]
        self.over_cap = answer["over_cap"]
        return answer["output"]  # type: ignore[no-any-return]
