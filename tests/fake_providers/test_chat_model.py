"""FakeToolStreamingModel streams what each dialect's real adapter streams, sync and async.

The reference for "what the adapter streams" is the adapter itself: ``ChatOpenAI``
(Chat Completions and Responses) and ``ChatAnthropic`` reading the same scenario
from a FakeProvider; for the other dialects, the dialect's ``parse`` (proven
against its adapter in that dialect's own tests).
"""

from __future__ import annotations

from typing import Any

import pytest
from _adapter_streams import rendered
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.tools import tool

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import FakeProvider, dialect_names, get_dialect, patch_httpx2
from tooltape.fake_providers._chat_model import (
    FakeHistoryRejected,
    FakeStreamError,
    FakeToolStreamingModel,
)
from tooltape.harness import (
    Plan,
    TooltapeAssertionError,
    TooltapeUsageError,
    assert_tool_messages_paired,
    reference_merge,
)

SCENARIOS = [
    "openai_golden",
    "parallel_interleaved",
    "tool_after_text",
    "tool_after_thinking",
    "repeated_name",
    "shared_index_idless",
    "no_index_split_args",
    "packed_first_message",
    "malformed_args",
    "truncated_mid_string",
]
DIALECTS = dialect_names()
ADAPTER_DIALECTS = ["openai_chat", "openai_responses", "anthropic_messages"]
"""The dialects whose adapter this file also streams for real (every dialect's adapter is
held to its parse by ``test_chat_model_contract.py``)."""


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Weather for a city."""
    return f"mild in {city}"


def _wire(scenario: str, dialect: str) -> Any:
    found = get_scenario(scenario)
    return get_dialect(dialect).render(found.plan, found.quirks, found.seed)


def _cases(dialects: list[str]) -> list[Any]:
    """The scenario x dialect pairs the dialect can express."""
    return [
        pytest.param(scenario, dialect, id=f"{scenario}-{dialect}")
        for scenario in SCENARIOS
        for dialect in dialects
        if rendered(dialect, get_scenario(scenario)) is not None
    ]


def _model(scenario: str, dialect: str = "openai_chat") -> FakeToolStreamingModel:
    return FakeToolStreamingModel(turns=[get_scenario(scenario)], dialect=dialect)


def _merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return add_ai_message_chunks(chunks[0], *chunks[1:])


@pytest.mark.parametrize(("scenario", "dialect"), _cases(DIALECTS))
def test_stream_yields_the_dialect_parse_message_for_message(scenario: str, dialect: str) -> None:
    found = get_scenario(scenario)
    wire = _wire(scenario, dialect)
    chunks = list(_model(scenario, dialect).stream("weather?"))
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].tool_call_chunks == []
    assert [c.tool_call_chunks for c in chunks[:-1]] == get_dialect(dialect).parse(wire.body)
    merged = _merged(chunks)
    reference = reference_merge(get_dialect(dialect).parse(wire.body))
    assert merged.tool_calls == reference.tool_calls
    assert merged.invalid_tool_calls == reference.invalid_tool_calls
    assert merged.text == found.plan.text_before + found.plan.text_after


def _adapter_chunks(scenario: str, dialect: str) -> list[AIMessageChunk]:
    provider = FakeProvider(dialect).stream(get_scenario(scenario))
    with patch_httpx2(provider):
        model = provider.dialect.chat_model(provider.base_url)
        # FakeToolStreamingModel streams the usage chunk; ask for it, as the served turn
        # carries it only for a request with stream_options.include_usage.
        usage = {"stream_usage": True} if dialect == "openai_chat" else {}
        return list(model.bind_tools([get_weather]).stream("weather?", **usage))


@pytest.mark.parametrize(("scenario", "dialect"), _cases(ADAPTER_DIALECTS))
def test_the_real_adapter_merges_the_same_calls_and_text(scenario: str, dialect: str) -> None:
    fake = list(_model(scenario, dialect).bind_tools([get_weather]).stream("weather?"))
    real = _adapter_chunks(scenario, dialect)
    assert [c.tool_call_chunks for c in fake if c.tool_call_chunks] == [
        c.tool_call_chunks for c in real if c.tool_call_chunks
    ]
    assert _merged(fake).tool_calls == _merged(real).tool_calls
    assert _merged(fake).invalid_tool_calls == _merged(real).invalid_tool_calls
    assert _merged(fake).text == _merged(real).text


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_chat_openai_chunks_are_matched_one_for_one(scenario: str) -> None:
    """Chat Completions: same number of chunks, same tool chunks in each, same final chunk."""
    fake = list(_model(scenario).stream("weather?"))
    real = _adapter_chunks(scenario, "openai_chat")
    assert [c.tool_call_chunks for c in fake] == [c.tool_call_chunks for c in real]
    assert [c.chunk_position for c in fake] == [c.chunk_position for c in real]


@pytest.mark.asyncio
@pytest.mark.parametrize("scenario", ["parallel_interleaved", "shared_index_idless"])
async def test_astream_and_ainvoke_match_stream(scenario: str) -> None:
    sync = list(_model(scenario).stream("weather?"))
    streamed = [c async for c in _model(scenario).astream("weather?")]
    invoked = await _model(scenario).ainvoke("weather?")
    assert [c.tool_call_chunks for c in streamed] == [c.tool_call_chunks for c in sync]
    assert invoked.tool_calls == _merged(sync).tool_calls
    assert invoked.invalid_tool_calls == _merged(sync).invalid_tool_calls


def test_invoke_merges_like_the_stream() -> None:
    model = FakeToolStreamingModel(turns=[get_scenario("parallel_interleaved")] * 2)
    streamed = _merged(list(model.stream("a")))
    invoked = model.invoke("b")
    assert isinstance(invoked, AIMessage)
    assert invoked.tool_calls == streamed.tool_calls
    assert [c["id"] for c in invoked.tool_calls] == ["call_paris_01", "call_oslo_02"]
    assert invoked.response_metadata["finish_reason"] == "tool_calls"


@pytest.mark.asyncio
async def test_astream_events_carry_the_tool_call_chunks() -> None:
    events = [e async for e in _model("parallel_interleaved").astream_events("?", version="v2")]
    streamed = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    expected = get_dialect("openai_chat").parse(_wire("parallel_interleaved", "openai_chat").body)
    assert [c.tool_call_chunks for c in streamed[:-1]] == expected
    assert streamed[-1].chunk_position == "last"
    end = next(e for e in events if e["event"] == "on_chat_model_end")
    assert [c["id"] for c in end["data"]["output"].tool_calls] == ["call_paris_01", "call_oslo_02"]


def test_finish_reasons_reach_the_last_chunk() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
    model = FakeToolStreamingModel(
        turns=[
            Plan(calls=[call]),
            Plan(calls=[call], finish="length"),
            Plan(calls=[call], finish="eof"),
        ]
    )
    finishes = [model.invoke("x").response_metadata.get("finish_reason") for _ in range(3)]
    assert finishes == ["tool_calls", "length", None]


def test_an_error_finish_raises_after_the_chunks() -> None:
    model = FakeToolStreamingModel(turns=[get_scenario("truncated_error_event")])
    seen: list[AIMessageChunk] = []
    with pytest.raises(FakeStreamError, match="error event after"):
        seen.extend(model.stream("x"))
    assert reference_merge(seen).calls()[0]["args"] == {"city": "Pa"}


@pytest.mark.parametrize("dialect", ["openai_chat", "anthropic_messages"])
def test_a_wire_or_raw_body_turn_streams_its_parse(dialect: str) -> None:
    wire = get_dialect(dialect).render(get_scenario("parallel_sequential").plan)
    model = FakeToolStreamingModel(turns=[wire, wire.body], dialect=dialect)
    for _ in range(2):
        chunks = list(model.stream("x"))
        assert [c.tool_call_chunks for c in chunks[:-1]] == get_dialect(dialect).parse(wire.body)
    model.assert_all_played()


def test_bind_tools_refuses_tools_that_miss_a_scripted_call() -> None:
    model = FakeToolStreamingModel(turns=[get_scenario("parallel_sequential")])
    with pytest.raises(
        TooltapeUsageError, match=r"turn 1 \(parallel_sequential\) calls get_weather"
    ):
        model.bind_tools([{"type": "function", "function": {"name": "search", "parameters": {}}}])
    assert model.bind_tools([get_weather]) is not None
    assert model.bind_tools([], check_tools=False) is not None


def test_bind_tools_accepts_the_repeated_name_it_will_stream() -> None:
    model = FakeToolStreamingModel(turns=[get_scenario("repeated_name")])
    bound = model.bind_tools([get_weather], tool_choice="any")
    message = bound.invoke("weather?")
    assert message.tool_calls[0]["name"] == "get_weatherget_weatherget_weather"
    assert bound.kwargs["tool_choice"] == "any"
    assert bound.kwargs["tools"][0]["function"]["name"] == "get_weather"


def test_a_history_with_an_unanswered_call_is_rejected_like_a_provider() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
    model = FakeToolStreamingModel(turns=[Plan(text_before="done")] * 2)
    history: list[Any] = [HumanMessage("hi"), AIMessage("", tool_calls=[call])]
    with pytest.raises(FakeHistoryRejected, match="call_without_result"):
        model.invoke(history)
    answered = model.invoke([*history, ToolMessage("mild", tool_call_id="call_1")])
    assert answered.text == "done"
    unchecked = FakeToolStreamingModel(turns=[Plan(text_before="ok")], check_history=False)
    assert unchecked.invoke(history).text == "ok"


def test_the_script_runs_out_with_a_clear_failure() -> None:
    model = FakeToolStreamingModel(turns=[Plan(text_before="one")])
    assert model.invoke("x").text == "one"
    with pytest.raises(TooltapeAssertionError, match="called 2 times but 1 turn"):
        model.invoke("y")
    unplayed = FakeToolStreamingModel(turns=[Plan(text_before="a"), Plan(text_before="b")])
    unplayed.invoke("x")
    with pytest.raises(TooltapeAssertionError, match="never requested: turn 2"):
        unplayed.assert_all_played()


def test_repeat_last_replays_with_fresh_ids() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
    model = FakeToolStreamingModel(turns=[Plan(calls=[call])], repeat_last=True)
    ids = [model.invoke("x").tool_calls[0]["id"] for _ in range(3)]
    assert ids == ["call_1", "call_1_r1", "call_1_r2"]
    assert model.played == 1
    assert len(model.requests) == 3


def test_bad_turns_fail_at_construction() -> None:
    with pytest.raises(TooltapeUsageError, match="expected a Plan"):
        FakeToolStreamingModel(turns=["openai_golden"])
    with pytest.raises(TooltapeUsageError, match="shared_index"):
        FakeToolStreamingModel(
            turns=[get_scenario("shared_index_idless")], dialect="anthropic_messages"
        )


def test_a_single_turn_needs_no_list() -> None:
    model = FakeToolStreamingModel(
        turns=get_scenario("openai_golden"), dialect="anthropic_messages"
    )
    assert len(model.script) == 1
    assert model.invoke("x").tool_calls[0]["id"] == "call_weather_1"


def test_text_only_turns_and_metadata() -> None:
    model = FakeToolStreamingModel(
        turns=[Plan(text_before="Hello ", text_after="world")], model="m-1"
    )
    message = model.invoke("x")
    assert message.text == "Hello world"
    assert message.response_metadata["model_name"] == "m-1"
    assert model._get_ls_params(model="other")["ls_model_name"] == "other"
    assert model._llm_type == "tooltape-fake-tool-streaming"


@pytest.mark.asyncio
async def test_it_drives_create_agent_sync_and_async() -> None:
    for run in ("invoke", "ainvoke"):
        model = FakeToolStreamingModel(
            turns=[get_scenario("parallel_interleaved"), Plan(text_before="Both mild.")]
        )
        agent = create_agent(model, [get_weather])
        inputs = {"messages": [HumanMessage("Paris and Oslo?")]}
        state = agent.invoke(inputs) if run == "invoke" else await agent.ainvoke(inputs)
        messages = state["messages"]
        assert messages[-1].text == "Both mild."
        assert {m.tool_call_id for m in messages if isinstance(m, ToolMessage)} == {
            "call_paris_01",
            "call_oslo_02",
        }
        assert_tool_messages_paired(messages)
        model.assert_all_played()
