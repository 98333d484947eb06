"""LlamaIndex's FunctionAgent with toolsift as its tool retriever, in
LlamaIndex's own workflow: a scripted function-calling LLM (llama-index-core's
MockFunctionCallingLLM, no network) records the tools each step offers it, the
agent offers what the engine ranked for the user's message, and the model's
call of one of them runs."""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Any, List, Sequence

import pytest

import toolsift

pytest.importorskip("llama_index.core")  # the test extra installs it on Python >= 3.10

from llama_index.core.agent.workflow import FunctionAgent  # noqa: E402
from llama_index.core.base.llms.types import ToolCallBlock  # noqa: E402
from llama_index.core.llms import ChatMessage  # noqa: E402
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.objects import ObjectRetriever  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

pytestmark = [
    pytest.mark.skipif(
        b"toolsift_provider" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
        reason="the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh",
    ),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # llama-index-core 0.14's own pydantic v1 idioms
]

ASK = "Post a message about the new issue to the Slack channel #release."


def make_tools(ran: List[Any]) -> List[FunctionTool]:
    def slack_post_message(channel: str, text: str) -> str:
        """Post a message to a Slack channel."""
        ran.append((channel, text))
        return "ok"

    def jira_create_ticket(project: str, summary: str) -> str:
        """Create a Jira ticket in a project, with a summary."""
        return "ok"

    def github_create_issue(repo: str, title: str) -> str:
        """Open a new issue in a GitHub repository."""
        return "ok"

    return [FunctionTool.from_defaults(fn=f) for f in (slack_post_message, jira_create_ticket, github_create_issue)]


def names(tools: Sequence[Any]) -> List[str]:
    return [t.metadata.name for t in tools]


def test_definitions_are_the_tools_own_openai_shape() -> None:
    tools = make_tools([])
    defs = toolsift.llamaindex_tool_definitions(tools)
    assert defs == [t.metadata.to_openai_tool() for t in tools]
    assert toolsift.from_openai_tools(defs).report["tools_imported"] == 3


@pytest.mark.parametrize("streaming", [True, False])
def test_function_agent_is_offered_the_engines_ranking(streaming: bool) -> None:
    ran: List[Any] = []
    tools = make_tools(ran)
    with toolsift.from_openai_tools(toolsift.llamaindex_tool_definitions(tools)).open() as engine:
        retriever = toolsift.llamaindex_retriever(engine, tools, limit=2)
        ranked = [c["canonical_path"][len("tools."):] for c in engine.search({"version": "tool-search.v1", "query": ASK, "limit": 2})["candidates"]]
        offered: List[List[str]] = []
        turns = iter([
            ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="call_1", tool_name="slack_post_message", tool_kwargs={"channel": "#release", "text": "Issue 16 is open."})]),
            ChatMessage(role="assistant", content="Posted."),
        ])

        def play(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
            offered.append(names(kwargs.get("tools") or []))
            return next(turns)

        agent = FunctionAgent(llm=MockFunctionCallingLLM(response_generator=play), tool_retriever=retriever, streaming=streaming)

        async def run() -> Any:
            return await agent.run(ASK)

        out = asyncio.run(run())
    assert isinstance(retriever, ObjectRetriever)
    assert ranked == ["slack_post_message", "github_create_issue"]
    assert offered == [ranked, ranked]
    assert ran == [("#release", "Issue 16 is open.")]
    assert str(out) == "Posted."


def test_retrieve_keeps_rank_order_and_an_exact_name_alone() -> None:
    tools = make_tools([])
    with toolsift.from_openai_tools(toolsift.llamaindex_tool_definitions(tools)).open() as engine:
        retriever = toolsift.llamaindex_retriever(engine, tools, limit=3)
        assert names(retriever.retrieve("create an issue")) == ["github_create_issue", "jira_create_ticket"]
        assert retriever.retrieve("jira_create_ticket")[0] is tools[1]
        # FunctionAgent looks a called tool up again by its name before it runs it.
        assert names(asyncio.run(retriever.aretrieve("jira_create_ticket"))) == ["jira_create_ticket"]
