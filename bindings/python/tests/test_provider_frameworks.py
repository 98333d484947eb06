"""langgraph-bigtool's agent with toolsift as its retrieval function, in
LangGraph's own loop: a scripted chat model (langchain-core's
GenericFakeChatModel, no network) asks for tools, the graph binds what the
engine ranked, and the model's call of one of them runs."""

from __future__ import annotations

import warnings
from importlib import resources
from typing import Any, List

import pytest

import toolsift

bigtool = pytest.importorskip("langgraph_bigtool")  # the test extra installs it on Python >= 3.10

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

pytestmark = pytest.mark.skipif(
    b"toolsift_provider" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
    reason="the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh",
)


class ScriptedModel(GenericFakeChatModel):
    """Plays recorded turns and records which tools each turn was offered."""

    offered: List[List[str]] = []

    def bind_tools(self, tools: Any, **_: Any) -> "ScriptedModel":
        self.offered.append([t.name for t in tools])
        return self


def test_bigtool_agent_binds_the_engines_ranking() -> None:
    ran = []

    @tool
    def slack_post_message(channel: str, text: str) -> str:
        """Post a message to a Slack channel."""
        ran.append((channel, text))
        return "ok"

    @tool
    def jira_create_ticket(project: str, summary: str) -> str:
        """Create a Jira ticket in a project, with a summary."""
        return "ok"

    @tool
    def github_create_issue(repo: str, title: str) -> str:
        """Open a new issue in a GitHub repository."""
        return "ok"

    registry = {t.name: t for t in (slack_post_message, jira_create_ticket, github_create_issue)}
    with toolsift.from_openai_tools([convert_to_openai_tool(t) for t in registry.values()]).open() as engine:
        retrieve = toolsift.bigtool_retriever(engine, limit=2)
        ranked = retrieve("post a message to a slack channel")
        model = ScriptedModel(messages=iter([
            AIMessage(content="", tool_calls=[{"name": "retrieve_tools", "args": {"query": "post a message to a slack channel"}, "id": "call_1"}]),
            AIMessage(content="", tool_calls=[{"name": "slack_post_message", "args": {"channel": "#release", "text": "v1.2 is out"}, "id": "call_2"}]),
            AIMessage(content="Posted."),
        ]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = bigtool.create_agent(model, registry, retrieve_tools_function=retrieve).compile(store=InMemoryStore())
            out = agent.invoke({"messages": [("user", "Tell #release that v1.2 is out.")]})
    assert ranked[0] == "slack_post_message"
    assert model.offered[0] == ["retrieve_tools"]
    assert model.offered[1] == ["retrieve_tools", *ranked]
    assert out["selected_tool_ids"] == ranked
    assert ran == [("#release", "v1.2 is out")]
    assert out["messages"][-1].content == "Posted."
