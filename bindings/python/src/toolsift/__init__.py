"""toolsift: tool search for AI agents, through the toolsift WebAssembly module.

    >>> import toolsift
    >>> with toolsift.Engine.open() as engine:          # the built-in DWS catalog
    ...     response = engine.search({"version": "tool-search.v1", "query": "给群里发文件"})

The module (toolsearch.wasm, WASI preview 1) runs on wasmtime with no file
system, environment, arguments or network. See wasm/ABI.md in the project.
"""

from ._engine import Engine, build_snapshot, module_version
from ._errors import (
    DiscoveryError,
    EngineClosedError,
    InternalError,
    ToolsiftError,
    ValidationError,
)
from .provider_frameworks import (
    agents_tool_definitions,
    agents_tool_search,
    bigtool_retriever,
    llamaindex_retriever,
    llamaindex_tool_definitions,
)
from .provider import ProviderEngine, ToolList, ToolSession, from_anthropic_tools, from_mcp_tools, from_openai_tools
from ._lint import LintExpectation, LintReport, lint, lint_raw

__version__ = "0.1.0"

__all__ = [
    "Engine",
    "build_snapshot",
    "module_version",
    "ToolsiftError",
    "ValidationError",
    "DiscoveryError",
    "InternalError",
    "EngineClosedError",
    "ProviderEngine",
    "ToolList",
    "ToolSession",
    "from_openai_tools",
    "from_anthropic_tools",
    "from_mcp_tools",
    "lint",
    "lint_raw",
    "LintExpectation",
    "LintReport",
    "bigtool_retriever",
    "llamaindex_retriever",
    "llamaindex_tool_definitions",
    "agents_tool_search",
    "agents_tool_definitions",
    "__version__",
]
