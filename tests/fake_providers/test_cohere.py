"""The cohere_v2 dialect against the cohere SDK (5.x) and ChatCohere (langchain-cohere 0.6).

Rendered bytes are served through respx (``patch_httpx``: the cohere SDK uses
httpx) to ``ChatCohere.stream()`` / ``.astream()`` and to ``ClientV2.chat_stream``
(sync and async). ``parse()`` must equal what ``ChatCohere.stream()`` yields and
``read_cohere_stream(mode="astream")`` what ``.astream()`` yields, up to the
random uuid4 ids the adapter mints, compared by position. The two adapter paths
disagree with each other and with the plan; those differences are pinned below.
"""

from __future__ import annotations

import asyncio
import functools
import json
import operator
from typing import Any

import _adapter_streams as adapter_streams
import cohere
import httpx
import pytest
from _adapter_streams import (
    MINTED_ID,
    adapter_messages,
    assert_merges_as_parsed,
    by_position,
    quirk_id,
    renderable_scenarios,
)
from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import FakeProvider, Wire, decode_sse, patch_httpx
from tooltape.fake_providers.dialects.cohere._dialect import CohereV2Dialect
from tooltape.fake_providers.dialects.cohere._parse import read_cohere_stream
from tooltape.harness import Plan, TooltapeUsageError, parse_quirk, reference_merge

pytestmark = pytest.mark.slow

DIALECT = CohereV2Dialect()
stream_chat = functools.partial(adapter_streams.stream_chat, DIALECT.name)


def astream_chat(wire: Wire) -> tuple[list[AIMessageChunk], BaseException | None]:
    return asyncio.run(adapter_streams.astream_chat(DIALECT.name, wire))


WEATHER = {"name": "get_weather", "args": {"location": "Tokyo"}, "id": "get_weather_bc8241gk"}
TIME = {"name": "get_time", "args": {"location": "Tokyo", "tz": 9}, "id": "get_time_dg5wwc00"}
PLANS = {
    "single": Plan(calls=[WEATHER]),
    "parallel": Plan(calls=[TIME, WEATHER]),
    "plan_then_calls": Plan(
        text_before="I will look up the time and weather.", calls=[TIME, WEATHER]
    ),
    "thinking_text_calls": Plan(
        reasoning="Two tools.", text_before="Checking.", calls=[TIME], text_after="Done."
    ),
    "non_ascii": Plan(calls=[{"name": "say", "args": {"text": "Zürich 北京 😀"}, "id": "say_1"}]),
    "empty_args": Plan(calls=[{"name": "ping_server", "args": {}, "id": "ping_1"}]),
}
TEXT_ONLY = Plan(text_before="Hello there.")
LOSSLESS: list[list[Any]] = [
    [],
    ["whole_args"],
    ["whole_call"],
    ["interleave_calls"],
    ["empty_args"],
    ["ascii_escapes", "split_inside_escapes"],
]
COMBINED: list[list[Any]] = [[], ["ascii_escapes", "split_inside_escapes"]]
"""The quirk lists ChatCohere.stream() reads here: none (on these plans) and combinations."""
LOSSY: list[list[Any]] = [
    ["truncate_args"],
    ["malformed_args"],
    ["cumulative_args"],
    ["non_object_args"],
    ["duplicate_ids"],
]


# --- serving -----------------------------------------------------------------------------


def tool_chunks(chunks: list[AIMessageChunk]) -> list[list[Any]]:
    return [list(c.tool_call_chunks) for c in adapter_messages(chunks)]


def named(error: Exception | None) -> str | None:
    return None if error is None else f"{type(error).__name__}: {error}"


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return functools.reduce(operator.add, chunks)


# --- ChatCohere.stream(): parse() is exactly what the adapter yields ----------------------


@pytest.mark.parametrize("quirks", COMBINED, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_cohere_stream(plan_name: str, quirks: list[Any]) -> None:
    """Each quirk alone, on the shared plans: test_chat_model_contract.py."""
    wire = DIALECT.render(PLANS[plan_name], quirks, seed=3)
    chunks, error = stream_chat(wire)
    assert error is None
    assert_merges_as_parsed(chunks, DIALECT.parse(wire.body), by_position)


@pytest.mark.parametrize("quirks", LOSSLESS + LOSSY, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_read_astream_equals_chat_cohere_astream(plan_name: str, quirks: list[Any]) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    chunks, error = astream_chat(wire)
    reading = read_cohere_stream(wire.body, mode="astream")
    assert named(error) == reading.error
    assert tool_chunks(chunks) == reading.deltas
    if error is None:
        assert merged(chunks).tool_calls == reference_merge(reading.deltas).tool_calls
    lossless = all(parse_quirk(q).lossless for q in quirks)
    if lossless and not {"interleave_calls", "whole_call"} & set(quirks):
        assert reference_merge(reading.deltas).calls() == plan.expected_calls()  # real ids


@pytest.mark.parametrize("scenario", renderable_scenarios("cohere_v2"))
def test_bundled_scenarios_parse_as_chat_cohere_streams_them(scenario: Any) -> None:
    wire = DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)
    chunks, error = stream_chat(wire)
    if "split_utf8" not in [parse_quirk(q).kind for q in scenario.quirks]:  # pinned below
        assert by_position(tool_chunks(chunks)) == by_position(DIALECT.parse(wire.body))
        assert isinstance(error, httpx.RemoteProtocolError) or named(error) == (
            read_cohere_stream(wire.body).error
        )
    chunks, error = astream_chat(wire)
    reading = read_cohere_stream(wire.body, mode="astream")
    assert tool_chunks(chunks) == reading.deltas
    assert isinstance(error, httpx.RemoteProtocolError) or named(error) == reading.error


def test_enough_bundled_scenarios_render() -> None:
    names = {p.id for p in renderable_scenarios("cohere_v2")}
    assert {
        "openai_golden",
        "parallel_interleaved",
        "truncated_mid_string",
        "framing_crlf",
    } <= names
    assert not {"split_name", "missing_id", "packed_first_message"} & names


def test_text_only_turn_is_a_content_block_and_no_tool_chunks() -> None:
    wire = DIALECT.render(TEXT_ONLY)
    types = [e.event for e in decode_sse(wire.body)]
    assert types[:2] == ["message-start", "content-start"] and "tool-plan-delta" not in types
    chunks, _ = stream_chat(wire)
    assert "".join(str(c.content) for c in chunks) == TEXT_ONLY.text_before
    assert tool_chunks(chunks) == DIALECT.parse(wire.body) == [[], [], []]
    achunks, _ = astream_chat(wire)
    assert tool_chunks(achunks) == read_cohere_stream(wire.body, mode="astream").deltas


# --- pinned ChatCohere behaviour ------------------------------------------------------------


def test_chat_cohere_stream_cannot_merge_its_own_fragments() -> None:
    """Every fragment carries a fresh uuid4, so langchain-core's id check keeps them apart.

    The calls survive only because message-end repeats them whole (from
    additional_kwargs["tool_calls"], index None): each call appears twice, once
    whole and once as a named ``{}`` call, plus a nameless ``{}`` call and loose
    invalid fragments.
    """
    plan = PLANS["single"]
    wire = DIALECT.render(plan, seed=1)
    result = merged(stream_chat(wire)[0])
    calls = [(c["name"], c["args"]) for c in result.tool_calls]
    assert calls == [("get_weather", {}), ("", {}), ("get_weather", {"location": "Tokyo"})]
    assert result.tool_calls[-1]["id"] == WEATHER["id"]
    assert MINTED_ID.match(result.tool_calls[0]["id"])
    assert result.invalid_tool_calls
    assert reference_merge(DIALECT.parse(wire.body)).calls()[-1] == plan.expected_calls()[0]


def test_chat_cohere_stream_yields_the_last_fragment_again_at_tool_call_end() -> None:
    wire = DIALECT.render(PLANS["single"], seed=1)
    *fragments, last = tool_chunks(stream_chat(wire)[0])
    assert last[0]["index"] is None  # message-end's whole call
    assert fragments[-1] == fragments[-2]  # the same chunk object: same minted id
    args = "".join(d[0]["args"] for d in fragments)
    assert args == '{"location": "Tokyo"}' + fragments[-1][0]["args"]


def test_chat_cohere_astream_reports_calls_only_at_message_end() -> None:
    plan = PLANS["plan_then_calls"]
    chunks = adapter_messages(astream_chat(DIALECT.render(plan))[0])
    assert [bool(c.tool_call_chunks) for c in chunks] == [True]
    assert chunks[0].content == plan.text_before
    assert chunks[0].chunk_position == "last"


def test_chat_cohere_astream_drops_arguments_sent_on_tool_call_start() -> None:
    """Its buffer takes arguments from deltas only: a whole call's arguments are lost."""
    wire = DIALECT.render(PLANS["single"], ["whole_call"])
    assert b'"arguments":"{\\"location' in wire.body
    assert merged(astream_chat(wire)[0]).tool_calls[0]["args"] == {}
    assert merged(stream_chat(wire)[0]).tool_calls[0]["args"] == {"location": "Tokyo"}


def test_chat_cohere_astream_raises_when_the_stream_ends_before_message_end() -> None:
    """Cut: astream yields nothing, so langchain-core raises; stream() reports the fragments."""
    wire = DIALECT.render(PLANS["parallel"], ["truncate_args"])
    chunks, error = astream_chat(wire)
    assert (chunks, named(error)) == ([], "ValueError: No generation chunks were returned")
    assert read_cohere_stream(wire.body, mode="astream").error == named(error)
    chunks, error = stream_chat(wire)
    assert error is None and merged(chunks).tool_calls[0]["name"] == "get_time"


def test_chat_cohere_astream_mixes_interleaved_calls_into_one_buffer() -> None:
    """One buffer for all calls: the second start takes over the first call's id and name."""
    plan = PLANS["parallel"]
    wire = DIALECT.render(plan, ["interleave_calls"], seed=3)
    result = merged(astream_chat(wire)[0])
    calls = [(c["name"], c["id"]) for c in result.tool_calls + result.invalid_tool_calls]
    assert sorted(calls) != sorted((c.name, c.id) for c in plan.calls)
    expected = reference_merge(read_cohere_stream(wire.body, mode="astream").deltas)
    assert (result.tool_calls, result.invalid_tool_calls) == (
        expected.tool_calls,
        expected.invalid_tool_calls,
    )


def test_cohere_sdk_sync_decoder_mangles_utf8_split_across_reads() -> None:
    """iter_sse decodes each read with errors="replace"; aiter_sse does not.

    parse() sees only the body, so it cannot reproduce the replacement characters.
    """
    plan = PLANS["non_ascii"]
    wire = DIALECT.render(plan, [{"kind": "split_utf8", "per_read": 3}], seed=1)
    chunks, _ = stream_chat(wire)
    assert "\ufffd" in "".join(c["args"] or "" for d in tool_chunks(chunks) for c in d)
    assert "\ufffd" not in str(DIALECT.parse(wire.body))
    assert merged(astream_chat(wire)[0]).tool_calls[0]["args"] == plan.calls[0].args


def test_cohere_sdk_sync_decoder_reads_nothing_from_cr_line_endings() -> None:
    """iter_sse splits on LF only; aiter_sse uses str.splitlines and reads every event."""
    wire = DIALECT.render(PLANS["single"], [{"kind": "line_endings", "style": "cr"}])
    chunks, error = stream_chat(wire)
    assert (tool_chunks(chunks), named(error)) == ([], read_cohere_stream(wire.body).error)
    assert DIALECT.parse(wire.body) == []
    reading = read_cohere_stream(wire.body, mode="astream")
    assert reference_merge(reading.deltas).calls() == PLANS["single"].expected_calls()
    assert tool_chunks(astream_chat(wire)[0]) == reading.deltas


@pytest.mark.parametrize(("finish", "reason"), [("stop", "COMPLETE"), ("length", "MAX_TOKENS")])
def test_finish_reason_reaches_chat_cohere(finish: str, reason: str) -> None:
    plan = PLANS["single"].model_copy(update={"finish": finish})
    last = adapter_messages(stream_chat(DIALECT.render(plan))[0])[-1]
    assert last.response_metadata["finish_reason"] == reason


def test_error_finish_ends_with_message_end_error() -> None:
    plan = PLANS["single"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan, ["truncate_args"])
    events = [e.json() for e in decode_sse(wire.body) if e.data != "[DONE]"]
    assert "tool-call-end" not in [e["type"] for e in events]
    assert events[-1]["delta"]["finish_reason"] == "ERROR" and events[-1]["delta"]["error"]
    chunks, error = stream_chat(wire)
    assert error is None
    assert adapter_messages(chunks)[-1].response_metadata["finish_reason"] == "ERROR"
    assert by_position(tool_chunks(chunks)) == by_position(DIALECT.parse(wire.body))


def test_eof_cuts_inside_the_last_call() -> None:
    wire = DIALECT.render(PLANS["parallel"].model_copy(update={"finish": "eof"}))
    assert not wire.body.rstrip().endswith(b"[DONE]")
    assert b"message-end" not in wire.body and wire.body.count(b"event: tool-call-end") == 1
    chunks, _ = stream_chat(wire)
    assert by_position(tool_chunks(chunks)) == by_position(DIALECT.parse(wire.body))


def test_content_filter_and_foreign_quirks_are_refused() -> None:
    with pytest.raises(TooltapeUsageError, match="COMPLETE, STOP_SEQUENCE"):
        DIALECT.render(PLANS["single"].model_copy(update={"finish": "content_filter"}))
    with pytest.raises(TooltapeUsageError, match=r"split_name.*tool-call-start"):
        DIALECT.render(PLANS["single"], ["split_name"])
    with pytest.raises(TooltapeUsageError, match="no EVENTS quirks"):
        DIALECT.render(PLANS["single"], ["ping_events"])


# --- the cohere SDK ------------------------------------------------------------------------


def sdk_summary(events: list[Any]) -> tuple[list[str], dict[int, str], dict[int, str]]:
    types, args, names = [], {}, {}
    for event in events:
        types.append(event.type)
        if event.type == "tool-call-start":
            names[event.index] = event.delta.message.tool_calls.function.name
            args[event.index] = event.delta.message.tool_calls.function.arguments
        elif event.type == "tool-call-delta":
            args[event.index] += event.delta.message.tool_calls.function.arguments
    return types, args, names


def expected_summary(
    wire: Wire, plan: Plan, quirks: list[Any] = ()
) -> tuple[list[str], dict[int, str], dict[int, str]]:
    types = [e.event for e in decode_sse(wire.body) if e.data != "[DONE]"]
    args = {n: json.dumps(c.args, ensure_ascii=False) for n, c in enumerate(plan.calls)}
    if "ascii_escapes" in quirks:
        args = {n: json.dumps(c.args) for n, c in enumerate(plan.calls)}
    if "empty_args" in quirks:  # no argument text at all for a {} call
        args = {n: "" if text == "{}" else text for n, text in args.items()}
    return types, args, {n: c.name for n, c in enumerate(plan.calls)}


@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_sdk_chat_stream_yields_every_event(plan_name: str, quirks: list[Any]) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=5)
    with patch_httpx(FakeProvider(DIALECT).stream(wire)):
        client = cohere.ClientV2(api_key="k")
        events = list(client.chat_stream(model="command-r", messages=[]))
    assert sdk_summary(events) == expected_summary(wire, plan, quirks)


@pytest.mark.parametrize("plan_name", PLANS)
def test_async_sdk_chat_stream_yields_every_event(plan_name: str) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, seed=6)

    async def collect() -> list[Any]:
        client = cohere.AsyncClientV2(api_key="k")
        return [e async for e in client.chat_stream(model="command-r", messages=[])]

    with patch_httpx(FakeProvider(DIALECT).stream(wire)):
        events = asyncio.run(collect())
    assert sdk_summary(events) == expected_summary(wire, plan)
    assert events[-1].delta.finish_reason == ("TOOL_CALL" if plan.calls else "COMPLETE")


def test_sdk_skips_a_start_without_id() -> None:
    """The SDK validates events and drops one it cannot build; parse() drops it too."""
    body = DIALECT.render(PLANS["single"]).body.replace(b'"id":"get_weather_bc8241gk",', b"")
    with patch_httpx(FakeProvider(DIALECT).stream(Wire(reads=(body,)))):
        events = list(cohere.ClientV2(api_key="k").chat_stream(model="m", messages=[]))
    assert "tool-call-start" not in [e.type for e in events]
    chunks, _ = stream_chat(Wire(reads=(body,)))
    assert by_position(tool_chunks(chunks)) == by_position(DIALECT.parse(body))
    assert [c["name"] for d in tool_chunks(chunks) for c in d] == [None] * 6 + [""]


def test_get_dialect_finds_cohere_v2() -> None:
    from tooltape.fake_providers import dialect_names, get_dialect

    assert isinstance(get_dialect("cohere_v2"), CohereV2Dialect)
    assert "cohere_v2" in dialect_names()
    assert (DIALECT.path, DIALECT.framing, DIALECT.stream_flag) == ("/v2/chat", "sse", True)
