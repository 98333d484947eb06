"""Lint a catalog: which tools an agent will not find, will confuse, or
should not trust, computed inside the module (the ``lint`` op of
``toolsift_provider``; core/lint in the project), so every host returns the
same ``toolsift.lint.v1`` bytes. docs/CATALOGS.md describes each check.

    >>> tools = toolsift.from_mcp_tools(tools_list_result)
    >>> with tools.open() as engine:
    ...     report = toolsift.lint(engine, expect=[{"query": "post to a channel", "tool": "slack.slack_post_message"}])
    ...     [f["check"] for f in report["findings"] if f["level"] == "error"]
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, TypedDict, cast

from .provider import ProviderEngine

__all__ = ["LintExpectation", "LintReport", "LintFinding", "lint", "lint_raw"]


class LintExpectation(TypedDict):
    """A query and the tool (canonical path, or any name a query resolves
    exactly) it should find."""

    query: str
    tool: str


class LintWinner(TypedDict):
    tool: str
    shared_terms: List[str]


# Members the report leaves out when empty are in the total=False halves.


class _LintQuery(TypedDict):
    of: str
    kind: str
    query: str
    rank: int


class LintQuery(_LintQuery, total=False):
    """A search behind a finding: whose self-query (``of``) of which kind,
    the rank of the tool it is about (0: not in the first 20), and the tools
    ranked above it with the query terms each shares."""

    winners: List[LintWinner]


class _LintFinding(TypedDict):
    level: str
    check: str
    tool: str
    message: str


class LintFinding(_LintFinding, total=False):
    """One finding: ``level`` info, warning or error; ``check`` its name."""

    other: str
    queries: List[LintQuery]
    similarity_permille: int
    shared_terms: List[str]
    only_tool: List[str]
    only_other: List[str]
    items: List[str]


class _LintExpectationResult(TypedDict):
    query: str
    tool: str
    rank: int


class LintExpectationResult(_LintExpectationResult, total=False):
    winners: List[LintWinner]


class LintReport(TypedDict):
    schema: str
    catalog: Dict[str, Any]
    thresholds: Dict[str, int]
    summary: Dict[str, int]
    findings: List[LintFinding]
    expectations: List[LintExpectationResult]


def lint_raw(engine: ProviderEngine, expect: Optional[Iterable[LintExpectation]] = None) -> bytes:
    """The module's exact ``toolsift.lint.v1`` JSON for the catalog ``engine``
    serves. ``expect``: queries and the tool each should find; each gets its
    rank. A bad expectation raises ``ValidationError`` (``unknown_tool``,
    ``invalid_expectation``); the request is at most 64 KiB."""
    request: Dict[str, Any] = {"op": "lint"}
    if expect is not None:
        request["expect"] = [{"query": x["query"], "tool": x["tool"]} for x in expect]
    return engine.provider_raw(request)


def lint(engine: ProviderEngine, expect: Optional[Iterable[LintExpectation]] = None) -> LintReport:
    """:func:`lint_raw`, decoded."""
    return cast(LintReport, json.loads(lint_raw(engine, expect)))
