"""Framework hooks answered by toolsift's engine. Each is a few lines over
:meth:`Engine.search` (or :meth:`ProviderEngine.answer_tool_search_call`); a
framework is imported only when its adapter is called.

langgraph-bigtool takes a retrieval function (``create_agent(llm, registry,
retrieve_tools_function=...)``) that maps a query to tool IDs:

    >>> engine = toolsift.from_openai_tools([convert_to_openai_tool(t) for t in registry.values()]).open()
    >>> agent = create_agent(llm, registry, retrieve_tools_function=toolsift.bigtool_retriever(engine))

LlamaIndex agents take an ``ObjectRetriever`` of tools (``FunctionAgent(tool_retriever=...)``):

    >>> engine = toolsift.from_openai_tools(toolsift.llamaindex_tool_definitions(tools)).open()
    >>> agent = FunctionAgent(llm=llm, tool_retriever=toolsift.llamaindex_retriever(engine, tools))

The OpenAI Agents SDK for Python (0.24.0) refuses client-executed
``tool_search_call`` items in its runner, so its adapter is a function tool
named ``tool_search`` that enables the tools the engine ranked:

    >>> engine = toolsift.from_openai_tools(toolsift.agents_tool_definitions(tools)).open()
    >>> agent = Agent(name="support", tools=toolsift.agents_tool_search(engine, tools))
"""

from __future__ import annotations

import copy
import inspect
import json
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence

from ._engine import Engine
from ._errors import ValidationError

if TYPE_CHECKING:  # the frameworks are optional: only their types are named here
    from agents import FunctionTool, RunContextWrapper
    from agents.tool_context import ToolContext
    from llama_index.core.objects import ObjectRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle
    from llama_index.core.tools import BaseTool

    from .provider import ProviderEngine

__all__ = [
    "bigtool_retriever",
    "llamaindex_retriever",
    "llamaindex_tool_definitions",
    "agents_tool_search",
    "agents_tool_definitions",
]


def _default_id(canonical_path: str, product_id: str) -> str:
    # A list without namespaces is product "tools": the ID is the tool's name.
    if product_id == "tools":
        return canonical_path[len("tools.") :]
    return canonical_path


def _ranked_ids(engine: Engine, query: str, limit: int, tool_id: Optional[Callable[[str, str], str]]) -> List[str]:
    to_id = tool_id or _default_id
    response = engine.search({"version": "tool-search.v1", "query": query, "limit": limit})
    return [to_id(c["canonical_path"], c["product_id"]) for c in response["candidates"]]


def bigtool_retriever(
    engine: Engine,
    *,
    limit: int = 5,
    tool_id: Optional[Callable[[str, str], str]] = None,
) -> Callable[[str], List[str]]:
    """A ``retrieve_tools_function`` for langgraph-bigtool: the engine's
    ranking of the registry for the model's query, as registry IDs (a tool's
    name; ``tool_id(canonical_path, product_id)`` maps them otherwise)."""

    def retrieve_tools(query: str) -> List[str]:
        """Find the tools for a task: describe the task in plain words, or give a tool's exact name to get only that tool."""
        return _ranked_ids(engine, query, limit, tool_id)

    return retrieve_tools


def llamaindex_tool_definitions(tools: Sequence["BaseTool"]) -> List[Dict[str, Any]]:
    """The OpenAI (Chat Completions) definitions of LlamaIndex tools, for
    :func:`from_openai_tools`: each tool's ``ToolMetadata.to_openai_tool()``
    (without its 1,024-character description check: these are indexed, not sent)."""
    return [t.metadata.to_openai_tool(skip_length_check=True) for t in tools]


def llamaindex_retriever(
    engine: Engine,
    tools: Sequence["BaseTool"],
    *,
    limit: int = 5,
    tool_id: Optional[Callable[[str, str], str]] = None,
) -> "ObjectRetriever[BaseTool]":
    """A LlamaIndex ``ObjectRetriever`` of ``tools`` (what an agent's
    ``tool_retriever`` takes): the engine's ranking for the query, as the
    given tool objects in rank order. The engine is built from
    :func:`llamaindex_tool_definitions` of the same tools; a found tool is
    matched by its name (``tool_id(canonical_path, product_id)`` maps a
    candidate to a name otherwise), and one not in ``tools`` is left out.

    It is LlamaIndex's own ``ObjectRetriever`` over its ``SimpleToolNodeMapping``;
    only the retriever underneath is the engine. FunctionAgent retrieves once a
    step with the user's message, and again with a tool's name before it runs
    the tool: a tool's exact name ranks that tool alone."""
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.objects import ObjectRetriever, SimpleToolNodeMapping
    from llama_index.core.schema import NodeWithScore, TextNode

    # The engine knows a tool by its OpenAI name, which to_openai_tool sanitizes.
    names = {d["function"]["name"]: t.metadata.name for d, t in zip(llamaindex_tool_definitions(tools), tools)}

    class EngineRanking(BaseRetriever):
        def _retrieve(self, query_bundle: "QueryBundle") -> List["NodeWithScore"]:
            found = [names[i] for i in _ranked_ids(engine, query_bundle.query_str, limit, tool_id) if i in names]
            return [NodeWithScore(node=TextNode(text=name, metadata={"name": name})) for name in found]

    return ObjectRetriever(EngineRanking(), SimpleToolNodeMapping.from_objects(tools))


def agents_tool_definitions(tools: Sequence[Any]) -> List[Dict[str, Any]]:
    """The OpenAI Responses definitions of an agent's ``FunctionTool`` objects
    (others are left out), for :func:`from_openai_tools`. None is marked
    ``defer_loading``, so every one is indexed."""
    from agents import FunctionTool

    return [
        {"type": "function", "name": t.name, "description": t.description, "parameters": t.params_json_schema, "strict": t.strict_json_schema}
        for t in tools
        if isinstance(t, FunctionTool)
    ]


def _loaded_names(engine: "ProviderEngine", output: Dict[str, Any]) -> List[str]:
    """A ``tool_search_output``'s tools in rank order, by their own names:
    the output shows each under its OpenAI name (one OpenAI refuses, or one
    two tools would share, is renamed), which the engine maps back."""
    names: List[str] = []
    for t in output.get("tools", []):
        if t.get("type") == "namespace":
            names.extend(engine.resolve_name("openai", m["name"], namespace=t["name"])["name"] for m in t.get("tools", []))
        else:
            names.append(engine.resolve_name("openai", t["name"])["name"])
    return names


def agents_tool_search(
    engine: "ProviderEngine",
    tools: Sequence["FunctionTool"],
    *,
    budget_tokens: int = 0,
    name: str = "tool_search",
) -> List["FunctionTool"]:
    """The tools for an Agents SDK ``Agent``: a function tool ``name`` that
    answers the model's search with the engine, then ``tools``, each enabled
    only once a search has loaded it.

    The SDK's runner (openai-agents 0.24.0) raises ``ModelBehaviorError`` on a
    client-executed ``tool_search_call``, so the search is a plain function
    tool with our description and parameter schema: its call is answered as a
    ``tool_search_call`` (:meth:`ProviderEngine.answer_tool_search_call`,
    within ``budget_tokens``), the found tools in rank order are loaded, and
    the model is told their names as ``{"loaded": [...]}``; the runner offers
    them from the next turn (through each copy's ``is_enabled``, which also
    keeps the tool's own). The copies are not ``defer_loading``: with no
    hosted ``ToolSearchTool`` the SDK would refuse them.

    The loaded set belongs to the returned list: build one per conversation
    (``agent.clone(tools=...)``), never share it between concurrent runs."""
    from agents import FunctionTool

    definition = engine.openai_tool_search_tool()
    loaded: List[str] = []

    async def search(ctx: "ToolContext[Any]", arguments: str) -> str:
        try:
            item = {"type": "tool_search_call", "call_id": ctx.tool_call_id or name, "arguments": json.loads(arguments or "{}")}
            found = _loaded_names(engine, engine.answer_tool_search_call(item, budget_tokens=budget_tokens))
        except (ValueError, ValidationError) as exc:
            return f"tool search failed: {exc}"  # told to the model, which may search again
        loaded.extend(n for n in found if n not in loaded)
        return json.dumps({"loaded": found})

    def once_loaded(tool: "FunctionTool") -> "FunctionTool":
        own = tool.is_enabled

        async def is_enabled(ctx: "RunContextWrapper[Any]", agent: Any) -> bool:
            if tool.name not in loaded:
                return False
            if isinstance(own, bool):
                return own
            res = own(ctx, agent)
            return bool(await res) if inspect.isawaitable(res) else bool(res)

        gated = copy.copy(tool)
        gated.is_enabled = is_enabled
        gated.defer_loading = False
        return gated

    search_tool = FunctionTool(
        name=name,
        description=definition["description"],
        params_json_schema=definition["parameters"],
        on_invoke_tool=search,
        strict_json_schema=False,  # query is the only required member
    )
    return [search_tool, *(once_loaded(t) for t in tools)]
