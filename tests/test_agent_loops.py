"""Agent loops end to end: LangChain agents and LangGraph graphs over the fake providers.

``create_agent`` and a hand-built ``StateGraph`` + ``ToolNode`` + ``tools_condition``
drive ``ChatOpenAI`` (Chat Completions and Responses) and ``ChatAnthropic``
through scripted multi-turn conversations. Each provider validates every
request's history the way the real API does (a broken pairing gets the real
400), so a loop that reaches its final answer here sent well-formed histories.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from tooltape.fake_providers import FakeProvider, patch_httpx2
from tooltape.harness import (
    Plan,
    arun_with_loop_guard,
    assert_agent_run_healthy,
    assert_tool_messages_paired,
)

DIALECTS = ["openai_chat", "openai_responses", "anthropic_messages"]
LOOPS = ["create_agent", "state_graph"]

executed: list[tuple[str, str]] = []


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    executed.append(("get_weather", city))
    return f"mild in {city}"


@tool
def get_time(tz: str) -> str:
    """The time in a time zone."""
    executed.append(("get_time", tz))
    return f"noon in {tz}"


TOOLS = [get_weather, get_time]
WEATHER = Plan(
    text_before="Checking both cities.",
    calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_oslo"},
    ],
)
TIME = Plan(calls=[{"name": "get_time", "args": {"tz": "Europe/Oslo"}, "id": "call_time"}])
ANSWER = Plan(text_before="Paris and Oslo are mild; it is noon in Oslo.")
QUESTION = {"messages": [HumanMessage("Weather in Paris and Oslo, and the time in Oslo?")]}


@pytest.fixture(autouse=True)
def _clear_executed() -> None:
    executed.clear()


def state_graph(model: Any) -> Any:
    """The hand-built loop: model -> tools_condition -> ToolNode -> model."""
    bound = model.bind_tools(TOOLS)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", RunnableLambda(call_model, afunc=acall_model))
    graph.add_node("tools", ToolNode(TOOLS))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


BUILDERS: dict[str, Callable[[Any], Any]] = {
    "create_agent": lambda model: create_agent(model, TOOLS),
    "state_graph": state_graph,
}


def scripted(dialect: str) -> FakeProvider:
    # Each turn gets its own seed: the Responses dialect derives the response id (which
    # ChatOpenAI uses as the AIMessage id) from it, and LangGraph's add_messages replaces a
    # message whose id it has seen (see test_agent_loops_faults.py).
    return FakeProvider(dialect).stream(WEATHER, seed=1).then(TIME, seed=2).then(ANSWER, seed=3)


def check_run(provider: FakeProvider, messages: list[Any]) -> None:
    assert messages[-1].text == ANSWER.text_before
    assert sorted(executed) == [
        ("get_time", "Europe/Oslo"),
        ("get_weather", "Oslo"),
        ("get_weather", "Paris"),
    ]
    assert_tool_messages_paired(messages)
    assert_agent_run_healthy(messages, tools=TOOLS)
    results = {m.tool_call_id: m.text for m in messages if isinstance(m, ToolMessage)}
    assert results == {
        "call_paris": "mild in Paris",
        "call_oslo": "mild in Oslo",
        "call_time": "noon in Europe/Oslo",
    }
    calls = [c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert calls == ["call_paris", "call_oslo", "call_time"]
    assert provider.rejected == []
    assert len(provider.requests) == 3
    provider.assert_all_played()


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_three_turn_loop_runs_every_call_and_answers(dialect: str, loop: str) -> None:
    provider = scripted(dialect)
    with patch_httpx2(provider):
        graph = BUILDERS[loop](provider.dialect.chat_model(provider.base_url))
        state = graph.invoke(QUESTION)
    check_run(provider, state["messages"])


@pytest.mark.asyncio
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_three_turn_loop_runs_async(dialect: str, loop: str) -> None:
    provider = scripted(dialect)
    with patch_httpx2(provider):
        graph = BUILDERS[loop](provider.dialect.chat_model(provider.base_url))
        state = await arun_with_loop_guard(graph, QUESTION, tools=TOOLS, max_turns=3)
    check_run(provider, state["messages"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_second_request_carries_each_result_after_its_call(dialect: str) -> None:
    provider = scripted(dialect)
    with patch_httpx2(provider):
        create_agent(provider.dialect.chat_model(provider.base_url), TOOLS).invoke(QUESTION)
    history = provider.requests[1].json()
    assert_tool_messages_paired(history)
    assert_tool_messages_paired(provider.requests[2].json())


def test_the_plugin_fixture_drives_an_agent(fake_openai: Any) -> None:
    fake_openai.stream(WEATHER).then(ANSWER)
    agent = create_agent(fake_openai.chat_model(), TOOLS)
    state = agent.invoke(QUESTION)
    assert state["messages"][-1].text == ANSWER.text_before
    assert sorted(executed) == [("get_weather", "Oslo"), ("get_weather", "Paris")]
    assert_tool_messages_paired(state["messages"])
