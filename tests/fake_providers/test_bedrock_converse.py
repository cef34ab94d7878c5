"""The bedrock_converse dialect against boto3's converse_stream and ChatBedrockConverse.

Rendered wires are served by the real server (uvicorn on 127.0.0.1), read by
read, to boto3 1.44 (``converse_stream``, its event iterator) and to
langchain-aws 1.9.1's ``ChatBedrockConverse`` (``stream``; ``astream`` runs the
same sync client in an executor, offline). parse() must equal what the adapter
yields; the merge must equal langchain-core's reference and, for lossless
quirks, the plan.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import pytest
import urllib3
from _adapter_streams import (
    acollect,
    adapter_messages,
    assert_merges_as_parsed,
    collect,
    quirk_id,
    rendered,
)
from _plans import sample_plans
from botocore.exceptions import EventStreamError
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import AIMessageChunk

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import FakeProvider, Wire, get_dialect
from tooltape.fake_providers.dialects.bedrock._converse import BedrockConverseDialect
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    decode_eventstream,
    encode_eventstream_message,
)
from tooltape.harness import Plan, Scenario, TooltapeUsageError, parse_quirk, reference_merge

DIALECT = BedrockConverseDialect()
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
PLANS = sample_plans("tooluse_01")
WEATHER, TIME = PLANS["two_calls"].calls
LOSSLESS = [
    ["no_empty_tool_input"],
    ["no_tool_use_type"],
    ["empty_args", "no_empty_tool_input"],
    ["ascii_escapes", "split_inside_escapes"],
    [{"kind": "events_per_read", "n": 3}],
]
"""This dialect's own EVENTS quirks, and combinations; each quirk it ``expresses``, each
WIRE quirk and each finish, alone, is in ``test_chat_model_contract.py``."""
SDK_QUIRKS = [
    [],
    *LOSSLESS,
    ["whole_args"],
    ["whole_call"],
    ["interleave_calls"],
    ["empty_args"],
    ["split_reads"],
    ["split_utf8"],
]
RAISES = (ConnectionError, EventStreamError, urllib3.exceptions.ProtocolError, ValueError)
"""What ChatBedrockConverse raises mid-stream here (each pinned below)."""


# --- serving -----------------------------------------------------------------------------


@pytest.fixture
def serve(bedrock_endpoint):
    """Queue wires on a fresh provider; return the runtime client and a chat model factory."""

    def serve(*wires: Wire) -> tuple[Any, Any, FakeProvider]:
        provider = FakeProvider(DIALECT)
        for wire in wires:
            provider.stream(wire)
        bedrock_endpoint.serve(provider)

        def chat(plan: Plan) -> Any:
            return bedrock_endpoint.chat(ChatBedrockConverse, MODEL, [c.name for c in plan.calls])

        return bedrock_endpoint.runtime, chat, provider

    return serve


def stream_chat(chat: Any) -> tuple[list[AIMessageChunk], BaseException | None]:
    return collect(lambda: chat.stream("hi"), RAISES)


async def astream_chat(chat: Any) -> tuple[list[AIMessageChunk], BaseException | None]:
    return await acollect(lambda: chat.astream("hi"), RAISES)


def expected_error(wire: Wire) -> type[Exception] | None:
    """The exception ChatBedrockConverse raises for this wire (pinned in the tests below)."""
    messages = decode_eventstream(wire.body)
    if any(m.message_type == "exception" for m in messages):
        return EventStreamError
    if len(b"".join(m.raw for m in messages)) < len(wire.body):
        return urllib3.exceptions.ProtocolError  # the connection drops mid-message
    if not any(m.event_type == "messageStop" for m in messages):
        return ConnectionError
    return None


def check_against_chat(wire: Wire, plan: Plan, quirks: list[Any], chunks, error) -> None:
    expected = expected_error(wire)
    assert error is None if expected is None else isinstance(error, expected), repr(error)
    reference = assert_merges_as_parsed(chunks, DIALECT.parse(wire.body))
    if all(parse_quirk(q).lossless for q in quirks):
        assert reference.calls() == plan.expected_calls()


# --- ChatBedrockConverse: parse() is exactly what the adapter yields ---------------------


@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_bedrock_converse_stream(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    _, chat, provider = serve(wire)
    chunks, error = stream_chat(chat(plan))
    check_against_chat(wire, plan, quirks, chunks, error)
    assert provider.played == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
async def test_parse_equals_chat_bedrock_converse_astream(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    _, chat, _ = serve(wire)
    chunks, error = await astream_chat(chat(plan))
    check_against_chat(wire, plan, quirks, chunks, error)


@pytest.mark.parametrize("finish", ["stop", "length", "content_filter", "eof", "error"])
def test_every_finish_is_its_stop_reason(finish):
    """The chat model on every finish: test_chat_model_contract.py."""
    plan = PLANS["thinking_text_call"].model_copy(update={"finish": finish})
    wire = DIALECT.render(plan)
    stops = [
        json.loads(m.payload)
        for m in decode_eventstream(wire.body)
        if m.event_type == "messageStop"
    ]
    reasons = {"stop": "end_turn", "length": "max_tokens", "content_filter": "content_filtered"}
    assert [s["stopReason"] for s in stops] == ([reasons[finish]] if finish in reasons else [])


SCENARIOS = [s for s in bundled_scenarios() if s.dialects is None or DIALECT.name in s.dialects]


def renders(scenario: Scenario) -> bool:
    return rendered(DIALECT.name, scenario) is not None


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if renders(s)], ids=lambda s: s.name)
def test_bundled_scenarios_parse_equals_chat_bedrock_converse(serve, scenario):
    wire = DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(scenario.plan))
    check_against_chat(wire, scenario.plan, list(scenario.quirks), chunks, error)


def test_most_scenarios_render_and_the_others_say_why():
    refused = [s for s in SCENARIOS if not renders(s)]
    assert len(SCENARIOS) - len(refused) >= 20
    for scenario in refused:
        with pytest.raises(TooltapeUsageError, match=r"bedrock_converse|vnd\.amazon\.eventstream"):
            DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)


# --- boto3 converse_stream: every event arrives, the plan comes back -----------------------


def botocore_view(payload: dict[str, Any], event_type: str) -> dict[str, Any]:
    """What botocore yields for one of our payloads: ``p`` and unmodelled members dropped."""
    data = {k: v for k, v in payload.items() if k != "p"}
    if event_type == "metadata":
        data["usage"] = {k: v for k, v in data["usage"].items() if k != "serverToolUsage"}
    return {event_type: data}


def rebuild(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls a converse_stream consumer assembles from the events, by block index."""
    blocks: dict[int, dict[str, Any]] = {}
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = start["start"]["toolUse"]
            blocks[start["contentBlockIndex"]] = {"name": tool["name"], "id": tool["toolUseId"]}
            blocks[start["contentBlockIndex"]]["input"] = ""
        elif "contentBlockDelta" in event and "toolUse" in event["contentBlockDelta"]["delta"]:
            delta = event["contentBlockDelta"]
            blocks[delta["contentBlockIndex"]]["input"] += delta["delta"]["toolUse"]["input"]
    return [
        {"name": b["name"], "args": json.loads(b["input"] or "{}"), "id": b["id"]}
        for _, b in sorted(blocks.items())
    ]


@pytest.mark.parametrize("quirks", SDK_QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_boto3_converse_stream_yields_every_event_and_the_plan(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=5)
    runtime, _, provider = serve(wire)
    response = runtime.converse_stream(
        modelId=MODEL, messages=[{"role": "user", "content": [{"text": "hi"}]}]
    )
    events = list(response["stream"])
    expected = [
        botocore_view(json.loads(m.payload), m.event_type or "")
        for m in decode_eventstream(wire.body)
    ]
    assert events == expected
    assert rebuild(events) == plan.expected_calls()
    assert response["ResponseMetadata"]["RequestId"] == dict(wire.headers)["x-amzn-requestid"]
    assert provider.requests[0].path == f"/model/{MODEL}/converse-stream"


def test_boto3_raises_event_stream_error_on_the_error_finish(serve):
    wire = DIALECT.render(PLANS["single"].model_copy(update={"finish": "error"}), ["truncate_args"])
    runtime, _, _ = serve(wire)
    messages = [{"role": "user", "content": [{"text": "weather?"}]}]
    stream = runtime.converse_stream(modelId=MODEL, messages=messages)["stream"]
    seen: list[dict[str, Any]] = []
    try:
        with pytest.raises(EventStreamError, match="modelStreamErrorException") as raised:
            seen.extend(stream)
    finally:
        stream.close()
    assert raised.value.response["Error"]["Code"] == "modelStreamErrorException"
    assert "contentBlockStart" in seen[1]


# --- adapter behaviour, pinned by name --------------------------------------------------------


def synthetic(*events: tuple[str, dict[str, Any]], message_type: str = "event") -> Wire:
    """A hand-built stream: each ``(event type, payload)`` as one event message."""
    reads = tuple(
        encode_eventstream_message(
            [
                (":event-type", name),
                (":content-type", "application/json"),
                (":message-type", message_type),
            ],
            json.dumps(data).encode(),
        )
        for name, data in events
    )
    return Wire(reads=reads, headers=(("content-type", EVENTSTREAM_MEDIA_TYPE),))


START = ("messageStart", {"role": "assistant"})


def tool_start(index: int, **tool_use: Any) -> tuple[str, dict[str, Any]]:
    return ("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": tool_use}})


def tool_delta(index: int, text: str) -> tuple[str, dict[str, Any]]:
    return (
        "contentBlockDelta",
        {"contentBlockIndex": index, "delta": {"toolUse": {"input": text}}},
    )


STOP = [("messageStop", {"stopReason": "tool_use"}), ("metadata", {"usage": {}, "metrics": {}})]


def test_truncated_stream_raises_connection_error_after_a_valid_cut_call(serve):
    """Cut on Converse: every chunk is yielded, then ConnectionError (no messageStop)."""
    plan = PLANS["single"]
    wire = DIALECT.render(plan, ["truncate_args"])
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(plan))
    assert isinstance(error, ConnectionError)
    assert str(error) == "Incomplete Bedrock response stream: missing messageStop event."
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls[0]["args"] == {"city": "Pa"}


def test_dropped_connection_surfaces_as_a_raw_urllib3_protocol_error(serve):
    """botocore does not wrap it: callers catching ClientError miss it."""
    plan = PLANS["two_calls"]
    wire = DIALECT.render(plan, [{"kind": "close_mid_event", "frame": 6}])
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(plan))
    assert isinstance(error, urllib3.exceptions.ProtocolError)
    assert "Response ended prematurely" in str(error)
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)


def test_server_tool_input_becomes_a_nameless_idless_valid_call(serve):
    """Nova's server tools: the start (type server_tool_use) gives no chunk, its input
    delta does, so the merge holds a call named "" with id None (ToolNode TypeError)."""
    wire = synthetic(
        START,
        tool_start(
            0, toolUseId="tooluse_srv", name="nova_code_interpreter", type="server_tool_use"
        ),
        tool_delta(0, '{"snippet": "1 + 1"}'),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        *STOP,
    )
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(Plan()))
    assert error is None
    assert [c.tool_call_chunks for c in adapter_messages(chunks)] == DIALECT.parse(wire.body)
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls == [
        {"name": "", "args": {"snippet": "1 + 1"}, "id": None, "type": "tool_call"}
    ]


def test_exception_named_event_raises_value_error_after_partial_chunks(serve):
    """An exception shape sent as an *event* reaches the adapter, which raises ValueError."""
    wire = synthetic(
        START,
        tool_start(0, toolUseId="tooluse_1", name="get_weather"),
        tool_delta(0, '{"city": "Pa'),
        ("throttlingException", {"message": "Too many tokens, please wait before trying again."}),
    )
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(PLANS["single"]))
    assert isinstance(error, ValueError)
    assert str(error).startswith("Received AWS exception throttlingException")
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)
    assert len(chunks) == 3


def test_unknown_event_types_are_skipped_and_unknown_blocks_raise(serve):
    wire = synthetic(
        START,
        ("futureEvent", {"anything": 1}),
        tool_start(0, toolUseId="tooluse_1", name="get_weather"),
        ("contentBlockStart", {"contentBlockIndex": 1, "start": {"futureBlock": {}}}),
        *STOP,
    )
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(PLANS["single"]))
    assert isinstance(error, ValueError)
    assert "Unexpected content block type" in str(error)
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)
    assert len(chunks) == 2


def test_late_delta_after_block_stop_still_merges_by_index(serve):
    """A delta for a block after its contentBlockStop is appended to the same index."""
    wire = synthetic(
        START,
        tool_start(0, toolUseId="tooluse_1", name="get_weather"),
        tool_delta(0, '{"city": '),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        tool_delta(0, '"Paris"}'),
        *STOP,
    )
    _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(PLANS["single"]))
    assert error is None
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls[0]["args"] == {"city": "Paris"}
    assert reference_merge(DIALECT.parse(wire.body)).tool_calls == merged.tool_calls


def test_arn_model_ids_route(serve):
    """Model ids with '/' (inference-profile ARNs) arrive percent-decoded and still route."""
    runtime, _, provider = serve(DIALECT.render(PLANS["single"]))
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123"
    messages = [{"role": "user", "content": [{"text": "weather?"}]}]
    events = list(runtime.converse_stream(modelId=arn, messages=messages)["stream"])
    assert events
    assert len(provider.requests) == 1


# --- rendering ---------------------------------------------------------------------------------


def payloads(wire: Wire) -> list[tuple[str | None, dict[str, Any]]]:
    return [(m.event_type, json.loads(m.payload)) for m in decode_eventstream(wire.body)]


def test_tool_blocks_follow_reasoning_and_text_blocks():
    wire = DIALECT.render(PLANS["thinking_text_call"])
    starts = [data for name, data in payloads(wire) if name == "contentBlockStart"]
    assert [s["contentBlockIndex"] for s in starts] == [2, 3]
    assert starts[0]["start"] == {
        "toolUse": {"toolUseId": "tooluse_01A", "name": "get_weather", "type": "tool_use"}
    }
    deltas = [
        (d["contentBlockIndex"], d["delta"]) for n, d in payloads(wire) if n.endswith("Delta")
    ]
    reasoning = [delta["reasoningContent"] for index, delta in deltas if index == 0]
    assert "".join(r.get("text", "") for r in reasoning) == PLANS["thinking_text_call"].reasoning
    assert list(reasoning[-1]) == ["signature"]
    assert {index for index, delta in deltas if "text" in delta} == {1, 4}


def test_no_tool_use_type_and_b1_shapes():
    wire = DIALECT.render(PLANS["empty_args"], ["empty_args", "no_empty_tool_input"])
    names = [name for name, _ in payloads(wire)]
    assert names == [
        "messageStart",
        "contentBlockStart",
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    plain = DIALECT.render(PLANS["single"], ["no_tool_use_type"])
    start = next(d for name, d in payloads(plain) if name == "contentBlockStart")
    assert start["start"]["toolUse"] == {"toolUseId": "tooluse_01A", "name": "get_weather"}


def test_rendering_is_deterministic_for_a_seed():
    assert DIALECT.render(PLANS["two_calls"], seed=9) == DIALECT.render(PLANS["two_calls"], seed=9)
    assert DIALECT.render(PLANS["two_calls"], seed=9) != DIALECT.render(PLANS["two_calls"], seed=8)


@pytest.mark.parametrize(
    ("quirks", "message"),
    [
        (["repeat_name"], "repeat_name cannot be rendered by dialect bedrock_converse"),
        (["no_index"], "every content block event carries its block index"),
        (["ping_events"], "belongs to another dialect; bedrock_converse renders only"),
        (["comments"], "rewrites server-sent events"),
        (["line_endings"], "application/vnd.amazon.eventstream"),
    ],
)
def test_quirks_this_wire_cannot_say_raise(quirks, message):
    with pytest.raises(TooltapeUsageError, match=message):
        DIALECT.render(PLANS["two_calls"], quirks)


def test_get_dialect_finds_both_bedrock_dialects():
    from tooltape.fake_providers import dialect_names

    assert {"bedrock_converse", "bedrock_invoke"} <= set(dialect_names())
    assert isinstance(get_dialect("bedrock_converse"), BedrockConverseDialect)
    assert DIALECT.framing == "eventstream"
    assert DIALECT.media_type == EVENTSTREAM_MEDIA_TYPE
