"""The gemini dialect against the real ChatGoogleGenerativeAI (langchain-google-genai 4.4).

Rendered bytes are served by a FakeProvider through the httpx2 FakeTransport,
which ChatGoogleGenerativeAI's google-genai client takes as ``client_args``
(google-genai 3.x talks httpx2 by default). parse() must equal what
``.stream()`` / ``.astream()`` yield, message by message, once the uuid4 ids the
adapter invents for id-less calls are matched to parse's stand-ins; the merge
must equal langchain-core's reference and, for lossless quirks, the plan.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import operator
import re
from typing import Any

import _adapter_streams as adapter_streams
import pytest
from _adapter_streams import adapter_messages, quirk_id, rendered
from langchain.agents import create_agent
from langchain_core.messages import AIMessageChunk, ToolMessage
from langchain_google_genai import ChatGoogleGenerativeAI

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import FakeProvider, FakeTransport, Wire
from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect
from tooltape.fake_providers.dialects.gemini._parse import GeminiStreamReading, read_gemini_stream
from tooltape.harness import (
    Deltas,
    Plan,
    PlannedCall,
    Scenario,
    Stage,
    TooltapeUsageError,
    assert_tool_messages_paired,
    parse_quirk,
    reference_merge,
)
from tooltape.harness._quirks import _REGISTRY

pytestmark = pytest.mark.slow

DIALECT = GeminiDialect()
stream_chat = functools.partial(adapter_streams.stream_chat, DIALECT.name)
astream_chat = functools.partial(adapter_streams.astream_chat, DIALECT.name)
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
WEATHER = PlannedCall(name="get_weather", args={"city": "Paris", "days": 3}, id="call_w1")
TIME = PlannedCall(name="get_time", args={"tz": "Europe/Paris"}, id="call_t2")
PLANS = {
    "single": Plan(calls=[WEATHER]),
    "two_calls": Plan(calls=[WEATHER, TIME]),
    "text_then_call": Plan(
        text_before="Let me check the weather for you right now.", calls=[WEATHER]
    ),
    "thinking_text_calls": Plan(
        reasoning="The user wants the weather and the time in Paris.",
        text_before="Checking both.",
        calls=[WEATHER, TIME],
        text_after="Back soon.",
    ),
    "nested_non_ascii": Plan(
        calls=[
            {
                "name": "say",
                "args": {"text": "Zürich 北京 😀", "n": 2.0, "more": {"xs": [1, 2.5, None, True]}},
                "id": "c3",
            }
        ]
    ),
    "empty_args": Plan(calls=[{"name": "ping_server", "args": {}, "id": "c4"}]),
    "text_only": Plan(text_before="Hello there, nothing to call today."),
}
LOSSLESS: list[list[Any]] = [
    [],
    ["whole_call"],
    ["ascii_escapes", "split_inside_escapes"],
    ["empty_args"],
    ["no_thought_signature"],
    ["signature_only_part"],
    [{"kind": "signature_only_part", "empty_text": False}],
    ["finish_with_last_part"],
    ["finish_without_parts"],
    ["lower_final_prompt_count"],
    [{"kind": "gemini_model", "model": "gemini-2.5-flash"}, "signature_only_part"],
    [{"kind": "gemini_model", "model": "gemini-2.0-flash"}, "no_thought_signature"],
    [{"kind": "line_endings", "style": "crlf"}],
]
LOSSY: list[list[Any]] = [
    ["missing_id"],
    ["duplicate_ids"],
    ["whole_call", {"kind": "pack_fragments", "size": 2}, "finish_with_last_part", "missing_id"],
    ["partial_args"],
    [{"kind": "partial_args", "terminal": "last_partial"}],
]


# --- the adapter ------------------------------------------------------------------------


def id_map(chunks: list[AIMessageChunk], reading: GeminiStreamReading) -> dict[str, str]:
    """Adapter uuid -> parse stand-in, for every call that had no id on the wire."""
    generated = set(reading.generated_ids)
    mapping = {}
    for message, parsed in zip(adapter_messages(chunks), reading.deltas, strict=False):
        for chunk, stand_in in zip(message.tool_call_chunks, parsed, strict=False):
            if stand_in["id"] in generated:
                assert UUID4.match(chunk["id"] or ""), chunk
                mapping[chunk["id"]] = stand_in["id"]
    assert len(mapping) == len(generated)  # one fresh uuid per id-less call
    return mapping


def aligned(chunks: list[AIMessageChunk], mapping: dict[str, str]) -> Deltas:
    return [
        [{**c, "id": mapping.get(c["id"], c["id"])} for c in m.tool_call_chunks]
        for m in adapter_messages(chunks)
    ]


def check_against_chat(
    wire: Wire, plan: Plan, quirks: list[Any], chunks: list[AIMessageChunk], error: Any
) -> None:
    reading = read_gemini_stream(wire.body)
    mapping = id_map(chunks, reading)
    assert aligned(chunks, mapping) == reading.deltas == DIALECT.parse(wire.body)
    assert (error is not None) == (reading.error is not None), (error, reading.error)
    if not chunks:
        return
    merged = functools.reduce(operator.add, chunks)
    reference = reference_merge(reading.deltas)
    assert [{**c, "id": mapping.get(c["id"], c["id"])} for c in merged.tool_calls] == (
        reference.tool_calls
    )
    assert merged.invalid_tool_calls == reference.invalid_tool_calls
    if all(parse_quirk(q).lossless for q in quirks):
        assert reference.calls() == plan.expected_calls()


# --- parse() is exactly what the adapter yields -------------------------------------------


@pytest.mark.parametrize("quirks", LOSSLESS + LOSSY, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_google_stream(plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    chunks, error = stream_chat(wire)
    assert error is None
    check_against_chat(wire, plan, quirks, chunks, error)


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", [[], ["missing_id"], ["partial_args"]], ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
async def test_parse_equals_chat_google_astream(plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    chunks, error = await astream_chat(wire)
    assert error is None
    check_against_chat(wire, plan, quirks, chunks, error)


def test_gemini_3_text_blocks_shift_the_call_indexes():
    """Gemini 3+: thinking and text become content blocks on the tool-call index counter."""
    plan = PLANS["thinking_text_calls"]
    chunks, _ = stream_chat(DIALECT.render(plan))
    indexes = [c["index"] for m in chunks for c in m.tool_call_chunks]
    assert indexes == [2, 3]  # thinking block 0, text block 1 (both text frames merge)
    older = DIALECT.render(plan, [{"kind": "gemini_model", "model": "gemini-2.5-flash"}])
    chunks, _ = stream_chat(older)
    assert [c["index"] for m in chunks for c in m.tool_call_chunks] == [1, 2]  # text: a str


def test_missing_ids_become_fresh_uuids_in_the_adapter():
    """No id on the wire -> a new uuid4 per call and per run; pairing still works."""
    plan = PLANS["two_calls"]
    wire = DIALECT.render(plan, ["missing_id"])
    runs = [functools.reduce(operator.add, stream_chat(wire)[0]) for _ in range(2)]
    first, second = ([c["id"] for c in run.tool_calls] for run in runs)
    assert all(UUID4.match(i) for i in first + second)
    assert len(set(first + second)) == 4  # unstable between a recording and its replay
    assert [c["name"] for c in runs[0].tool_calls] == ["get_weather", "get_time"]


def test_partial_args_adapter_reads_every_part_as_a_call():
    """ChatGoogleGenerativeAI ignores partialArgs: one empty call plus nameless ones."""
    plan = PLANS["single"]
    wire = DIALECT.render(plan, ["partial_args"], seed=1)
    merged = functools.reduce(operator.add, stream_chat(wire)[0])
    names = [call["name"] for call in merged.tool_calls]
    assert names[0] == "get_weather"
    assert merged.tool_calls[0]["args"] == {}
    assert set(names[1:]) == {""} and len(names) > 2
    assert all(call["args"] == {} for call in merged.tool_calls)


def test_lower_final_prompt_count_is_compensated_by_the_adapter():
    """The adapter subtracts cumulative usage and trusts the lowered prompt count."""
    plan = PLANS["two_calls"]
    wire = DIALECT.render(plan, [{"kind": "lower_final_prompt_count", "by": 7}])
    merged = functools.reduce(operator.add, stream_chat(wire)[0])
    assert merged.usage_metadata["input_tokens"] == 64


# --- the bundled scenarios ---------------------------------------------------------------

SCENARIOS = bundled_scenarios()


def renders(scenario: Scenario) -> Wire | None:
    return rendered(DIALECT.name, scenario)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_bundled_scenario_streams_through_chat_google(scenario):
    wire = renders(scenario)
    if wire is None:
        with pytest.raises(TooltapeUsageError, match=r"dialect gemini|gemini renders only"):
            DIALECT.render(scenario.plan, scenario.quirks, seed=scenario.seed)
        return
    chunks, error = stream_chat(wire)
    check_against_chat(wire, scenario.plan, list(scenario.quirks), chunks, error)


def test_which_bundled_scenarios_gemini_can_say():
    refused = sorted(s.name for s in SCENARIOS if renders(s) is None)
    assert refused == sorted(
        [
            "parallel_interleaved",
            "truncated_mid_string",
            "truncated_mid_literal",
            "truncated_length",
            "truncated_error_event",
            "shared_index_idless",
            "shared_index_whole_calls",
            "no_index_whole_calls",
            "no_index_split_args",
            "index_offset",
            "repeated_name",
            "split_name",
            "late_name",
            "id_on_every_chunk",
            "empty_string_continuations",
            "changing_id",
            "late_id",
            "whitespace_args",
            "malformed_args",
            "non_object_args",
            "cumulative_args",
            "concatenated_args",
            "early_finish_reason",
            "finish_then_stop",
        ]
    )


# --- wire quirks: parse decodes as google-genai does --------------------------------------


def wire_quirk_kinds() -> list[str]:
    for module in ("_framing", "_sse_quirks"):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"tooltape.fake_providers.{module}")
    return sorted(kind for kind, cls in _REGISTRY.items() if cls.stage is Stage.WIRE)


# google-genai reads only "data: " lines; any other SSE line is parsed as raw JSON (pinned).
BREAKS_GOOGLE_GENAI = {"comments", "data_no_space", "retry_block", "sse_fields", "error_envelope"}


@pytest.mark.parametrize("kind", wire_quirk_kinds())
def test_parse_equals_chat_google_under_wire_quirks(kind):
    plan = PLANS["nested_non_ascii"].model_copy(update={"text_before": "Ça va? 北京 ok"})
    wire = DIALECT.render(plan, [kind], seed=1)
    chunks, error = stream_chat(wire)
    check_against_chat(wire, plan, [kind], chunks, error)
    if kind in BREAKS_GOOGLE_GENAI:
        assert error is not None


# --- an agent loop -------------------------------------------------------------------------


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("quirks", [[], ["missing_id"]], ids=quirk_id)
def test_create_agent_runs_both_calls_and_pairs_the_results(quirks):
    """Two calls, ToolNode runs them, the second request passes Gemini's pairing rules."""
    plan = Plan(
        calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
            {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c2"},
        ]
    )
    provider = FakeProvider("gemini").stream(plan, quirks).then(Plan(text_before="Both sunny."))
    llm = ChatGoogleGenerativeAI(
        model="gemini-3.5-flash",
        api_key="test-key",
        max_retries=1,
        streaming=True,
        client_args={"transport": FakeTransport(provider)},
    )
    agent = create_agent(llm, tools=[get_weather])
    history = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})["messages"]
    assert_tool_messages_paired(history)
    assert [m.content for m in history if isinstance(m, ToolMessage)] == [
        "sunny in Paris",
        "sunny in Oslo",
    ]
    assert provider.rejected == []
    provider.assert_all_played()
