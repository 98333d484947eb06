"""Framework hooks answered by toolsift's engine. Each is a few lines over
:meth:`Engine.search`; the frameworks themselves are not imported here.

langgraph-bigtool takes a retrieval function (``create_agent(llm, registry,
retrieve_tools_function=...)``) that maps a query to tool IDs:

    >>> engine = toolsift.from_openai_tools([convert_to_openai_tool(t) for t in registry.values()]).open()
    >>> agent = create_agent(llm, registry, retrieve_tools_function=toolsift.bigtool_retriever(engine))
"""

from __future__ import annotations

from typing import Callable, List, Optional

from ._engine import Engine

__all__ = ["bigtool_retriever"]


def _default_id(canonical_path: str, product_id: str) -> str:
    # A list without namespaces is product "tools": the ID is the tool's name.
    if product_id == "tools":
        return canonical_path[len("tools.") :]
    return canonical_path


def bigtool_retriever(
    engine: Engine,
    *,
    limit: int = 5,
    tool_id: Optional[Callable[[str, str], str]] = None,
) -> Callable[[str], List[str]]:
    """A ``retrieve_tools_function`` for langgraph-bigtool: the engine's
    ranking of the registry for the model's query, as registry IDs (a tool's
    name; ``tool_id(canonical_path, product_id)`` maps them otherwise)."""
    to_id = tool_id or _default_id

    def retrieve_tools(query: str) -> List[str]:
        """Find the tools for a task: describe the task in plain words, or give a tool's exact name to get only that tool."""
        response = engine.search({"version": "tool-search.v1", "query": query, "limit": limit})
        return [to_id(c["canonical_path"], c["product_id"]) for c in response["candidates"]]

    return retrieve_tools
