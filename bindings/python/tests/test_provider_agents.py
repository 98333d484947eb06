"""The OpenAI Agents SDK adapter inside the SDK's own runner (Runner.run with
a Model that plays recorded Responses items, no network): the model calls the
tool_search function tool, toolsift answers it, the runner offers the ranked
tools from the next turn, and the model's call of one of them runs. Also
checks that the runner still refuses client-executed tool_search_call items:
when it stops, the adapter should become a ToolSearchTool(execution="client")
like the JS one."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from typing import Any, List

import pytest

import toolsift

pytest.importorskip("agents")  # openai-agents; the test extra installs it on Python >= 3.10

from agents import Agent, ModelBehaviorError, Runner, ToolSearchTool, Usage, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseToolSearchCall,
)

pytestmark = pytest.mark.skipif(
    b"toolsift_provider" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
    reason="the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh",
)

QUERY = "change a customer's email address"


class Recorded(Model):
    """Plays recorded output items, one list a turn, and records the tools each turn was offered."""

    def __init__(self, turns: List[List[Any]]) -> None:
        self.turns = turns
        self.offered: List[List[str]] = []
        self.inputs: List[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, output_schema: Any, handoffs: Any, tracing: Any, **_: Any) -> ModelResponse:
        self.offered.append([t.name for t in tools])
        self.inputs.append(input)
        return ModelResponse(output=self.turns.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("not streamed")


def make_tools(ran: List[Any]) -> List[Any]:
    @function_tool
    def update_customer_email(customer_id: str, email: str) -> str:
        """Change the email address on a customer's account."""
        ran.append((customer_id, email))
        return "ok"

    @function_tool
    def get_customer_profile(customer_id: str) -> str:
        """Fetch a customer's profile by customer ID."""
        return "ok"

    @function_tool
    def search_flights(origin: str, destination: str, date: str) -> str:
        """Search flights between two airports on a date."""
        return "ok"

    return [update_customer_email, get_customer_profile, search_flights]


def call(call_id: str, name: str, arguments: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(type="function_call", id=f"fc_{call_id}", call_id=call_id, name=name, arguments=json.dumps(arguments), status="completed")


def test_runner_offers_the_engines_ranking_after_a_search() -> None:
    set_tracing_disabled(True)
    ran: List[Any] = []
    tools = make_tools(ran)
    with toolsift.from_openai_tools(toolsift.agents_tool_definitions(tools)).open() as engine:
        ranked = [c["canonical_path"][len("tools."):] for c in engine.search({"version": "tool-search.v1", "query": QUERY, "limit": 2})["candidates"]]
        model = Recorded([
            [call("call_ts_1", "tool_search", {"query": QUERY, "limit": 2})],
            [call("call_fn_1", "update_customer_email", {"customer_id": "c_42", "email": "new@example.com"})],
            [ResponseOutputMessage(type="message", id="msg_1", role="assistant", status="completed", content=[ResponseOutputText(type="output_text", text="Done.", annotations=[])])],
        ])
        search = toolsift.agents_tool_search(engine, tools, budget_tokens=4000)
        agent = Agent(name="support", instructions="Help.", model=model, tools=search)
        result = asyncio.run(Runner.run(agent, "Please change the email of customer c_42 to new@example.com."))
        definition = engine.openai_tool_search_tool()
    assert ranked == ["update_customer_email", "get_customer_profile"]
    assert search[0].name == "tool_search" and search[0].params_json_schema == definition["parameters"]
    assert model.offered == [["tool_search"], ["tool_search", *ranked], ["tool_search", *ranked]]
    answer = model.inputs[1][-1]
    assert (answer["type"], answer["call_id"], json.loads(answer["output"])) == ("function_call_output", "call_ts_1", {"loaded": ranked})
    assert ran == [("c_42", "new@example.com")]
    assert result.final_output == "Done."
    assert [t.name for t in tools] == ["update_customer_email", "get_customer_profile", "search_flights"]
    assert all(t.is_enabled is True for t in tools)  # the agent's own tools are copied, not changed


def test_a_bad_search_is_told_to_the_model() -> None:
    set_tracing_disabled(True)
    tools = make_tools([])
    with toolsift.from_openai_tools(toolsift.agents_tool_definitions(tools)).open() as engine:
        model = Recorded([
            [call("call_ts_1", "tool_search", {"query": QUERY, "limit": 500})],
            [ResponseOutputMessage(type="message", id="msg_1", role="assistant", status="completed", content=[ResponseOutputText(type="output_text", text="Sorry.", annotations=[])])],
        ])
        agent = Agent(name="support", model=model, tools=toolsift.agents_tool_search(engine, tools))
        asyncio.run(Runner.run(agent, "Change an email."))
    assert model.inputs[1][-1]["output"].startswith("tool search failed: "), model.inputs[1][-1]["output"]
    assert model.offered == [["tool_search"], ["tool_search"]]


def test_runner_still_refuses_client_executed_tool_search() -> None:
    set_tracing_disabled(True)
    model = Recorded([[ResponseToolSearchCall(type="tool_search_call", id="ts_1", call_id="call_ts_1", execution="client", status="completed", arguments={"query": QUERY})]])
    agent = Agent(name="support", model=model, tools=[ToolSearchTool(execution="client"), *make_tools([])])
    with pytest.raises(ModelBehaviorError, match="Client-executed tool_search calls are not supported"):
        asyncio.run(Runner.run(agent, "Change an email."))
