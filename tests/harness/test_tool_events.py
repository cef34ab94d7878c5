"""ToolEventLog (framework-neutral hooks) and assert_tool_events_paired on real astream_events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from tooltape.cassettes import get_scenario
from tooltape.fake_providers._chat_model import FakeToolStreamingModel
from tooltape.harness import PairingError, Plan, TooltapeUsageError
from tooltape.harness._tool_events import (
    ToolEventLog,
    assert_tool_events_paired,
    call_fields,
)

PARIS = {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}
OSLO = {"id": "call_2", "name": "get_weather", "args": {"city": "Oslo"}}


@tool
def get_weather(city: str) -> str:
    """Weather for a city; fails for Atlantis."""
    if city == "Atlantis":
        raise ValueError("no such city")
    return f"mild in {city}"


# -- ToolEventLog ----------------------------------------------------------------------------


def test_a_sound_log_pairs() -> None:
    log = ToolEventLog()
    log.before(PARIS)
    log.before(OSLO)
    log.after("call_2", "mild")
    log.after("call_1", "cold", error=True)
    log.continued()
    log.assert_paired(expected=[PARIS, OSLO])
    assert log.pending == []
    assert [e.kind for e in log.events] == ["before", "before", "after", "after", "continued"]


@pytest.mark.parametrize(
    ("steps", "problem"),
    [
        ([("after", "call_1")], "event 0 (after 'call_1'): a result for a call that never started"),
        (
            [("before", PARIS), ("after", "call_1"), ("after", "call_1")],
            "event 2 (after 'call_1'): a second result for the same call",
        ),
        ([("before", PARIS)], "'call_1' started and never finished"),
        (
            [("before", PARIS), ("continued", None), ("after", "call_1")],
            "event 1 (continued): the conversation continued while ['call_1'] had no result yet",
        ),
        (
            [("before", {**PARIS, "id": None})],
            "event 0 (before get_weather): the call has id None; no result can pair",
        ),
        (
            [("before", PARIS), ("before", PARIS), ("after", "call_1")],
            "event 1 (before 'call_1'): the call started twice",
        ),
    ],
)
def test_each_broken_order_is_named(steps: list[tuple[str, Any]], problem: str) -> None:
    log = ToolEventLog()
    for kind, value in steps:
        getattr(log, kind)(*([] if value is None else [value]))
    assert problem in log.problems()
    with pytest.raises(PairingError, match="tool events do not pair"):
        log.assert_paired()


def test_the_expected_calls_must_each_run_once_with_their_args() -> None:
    log = ToolEventLog()
    log.before({**PARIS, "args": {"city": "Pa"}})
    log.after("call_1")
    log.before({"id": "call_9", "name": "search", "args": {}})
    log.after("call_9")
    assert log.problems(expected=[PARIS, OSLO]) == [
        "'call_1' ran get_weather with {'city': 'Pa'}, but the merged call has {'city': 'Paris'}",
        "the model's call get_weather(id='call_2') never ran a tool",
        "'call_9' ran search, a call the model did not make",
    ]


def test_the_failure_lists_the_events() -> None:
    log = ToolEventLog()
    log.before(PARIS)
    with pytest.raises(PairingError) as raised:
        log.assert_paired()
    assert "  0 before    'call_1' get_weather({'city': 'Paris'})" in str(raised.value)


@dataclass
class ToolExecutionRequest:
    """LangChain4j's shape: id, name, arguments (a JSON string)."""

    id: str
    name: str
    arguments: str


def test_calls_of_every_common_shape_are_read() -> None:
    openai_call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    anthropic_block = {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}
    assert call_fields(openai_call) == ("c", "f", "{}")
    assert call_fields(anthropic_block) == ("t", "f", {"a": 1})
    assert call_fields(PARIS) == ("call_1", "get_weather", {"city": "Paris"})
    assert call_fields(ToolExecutionRequest("r", "f", '{"a": 1}')) == ("r", "f", '{"a": 1}')


# -- astream_events --------------------------------------------------------------------------


async def agent_events(*turns: Any, **model_options: Any) -> list[dict[str, Any]]:
    model = FakeToolStreamingModel(turns=list(turns), **model_options)
    agent = create_agent(model, [get_weather])
    inputs = {"messages": [{"role": "user", "content": "Weather?"}]}
    return [dict(e) async for e in agent.astream_events(inputs, version="v2")]


ANSWER = Plan(text_before="Both mild.")


@pytest.mark.asyncio
async def test_agent_tool_events_pair_with_the_merged_calls() -> None:
    events = await agent_events(get_scenario("parallel_interleaved"), ANSWER)
    log = assert_tool_events_paired(events)
    # the two tools run concurrently: their order varies, the continuation comes last
    assert sorted(e.kind for e in log.events[:4]) == ["after", "after", "before", "before"]
    assert len(log.events) == 5
    assert log.events[4].kind == "continued"
    started = {e.call_id for e in log.events if e.kind == "before"}
    assert started == {"call_paris_01", "call_oslo_02"}
    merged = next(e["data"]["output"] for e in events if e["event"] == "on_chat_model_end")
    assert isinstance(merged, AIMessage)
    assert_tool_events_paired(events, merged)


@pytest.mark.asyncio
async def test_a_failing_tool_pairs_through_on_tool_error() -> None:
    atlantis = Plan(calls=[{"name": "get_weather", "args": {"city": "Atlantis"}, "id": "call_a"}])
    model = FakeToolStreamingModel(turns=[atlantis, ANSWER]).bind_tools([get_weather])
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([get_weather], handle_tool_errors=True))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    inputs = {"messages": [{"role": "user", "content": "Weather in Atlantis?"}]}
    events = [dict(e) async for e in graph.compile().astream_events(inputs, version="v2")]
    assert any(e["event"] == "on_tool_error" for e in events)
    log = assert_tool_events_paired(events)
    assert [e.error for e in log.events if e.kind == "after"] == [True]


@pytest.mark.asyncio
async def test_a_repeated_name_never_runs_a_tool() -> None:
    events = await agent_events(get_scenario("repeated_name"), ANSWER, check_tools=False)
    with pytest.raises(PairingError) as raised:
        assert_tool_events_paired(events)
    assert (
        "the model's call get_weatherget_weatherget_weather(id='call_weather_1') never ran"
        in str(raised.value)
    )


@pytest.mark.asyncio
async def test_a_lost_end_event_and_truncated_args_are_caught() -> None:
    events = await agent_events(get_scenario("parallel_sequential"), ANSWER)
    lost = [e for e in events if not (e["event"] == "on_tool_end" and "Oslo" in str(e["data"]))]
    with pytest.raises(PairingError) as raised:
        assert_tool_events_paired(lost)
    text = str(raised.value)
    assert "started and never finished" in text
    assert "the model's call get_weather(id='call_oslo_02') never ran a tool" in text
    other = AIMessage("", tool_calls=[{**PARIS, "id": "call_paris_01", "args": {"city": "Pa"}}])
    with pytest.raises(PairingError, match="but the merged call has \\{'city': 'Pa'\\}"):
        assert_tool_events_paired(events, other)


def test_events_must_be_dicts() -> None:
    with pytest.raises(TooltapeUsageError, match="astream_events"):
        assert_tool_events_paired(["on_tool_start"])
