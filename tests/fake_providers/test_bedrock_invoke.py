"""The bedrock_invoke dialect against boto3, ChatBedrock and the anthropic SDK's Bedrock client.

Rendered wires are served by the real server on 127.0.0.1 to boto3 1.44's
``invoke_model_with_response_stream``, to langchain-aws 1.9.1's ``ChatBedrock``
(an Anthropic model, tools bound: ``stream``; ``astream`` runs the sync client
in an executor, offline) and to anthropic 2.x's ``AnthropicBedrock`` /
``AsyncAnthropicBedrock`` (httpx2, truly async). parse() must equal what
ChatBedrock yields; the merge must equal langchain-core's reference and, for
lossless quirks, the plan.
"""

from __future__ import annotations

import base64
import functools
import json
import operator
from typing import Any

import anthropic
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
from langchain_aws import ChatBedrock
from langchain_core.messages import AIMessageChunk

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import FakeProvider, Wire
from tooltape.fake_providers.dialects.bedrock._converse import STREAM_ERROR
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    decode_eventstream,
    encode_eventstream_message,
)
from tooltape.fake_providers.dialects.bedrock._invoke import INVOKE_MODEL, BedrockInvokeDialect
from tooltape.harness import Plan, Scenario, TooltapeUsageError, parse_quirk, reference_merge

pytestmark = pytest.mark.slow

DIALECT = BedrockInvokeDialect()
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
PLANS = sample_plans("toolu_bdrk_01")
WEATHER, TIME = PLANS["two_calls"].calls
LOSSLESS = [
    ["no_empty_partial_json"],
    ["empty_args", "no_empty_partial_json"],
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
RAISES = (EventStreamError, urllib3.exceptions.ProtocolError)


# --- serving -----------------------------------------------------------------------------


@pytest.fixture
def serve(bedrock_endpoint):
    """Queue wires on a fresh provider; return the base URL, runtime client and chat factory."""

    def serve(*wires: Wire) -> tuple[str, Any, Any, FakeProvider]:
        provider = FakeProvider(DIALECT)
        for wire in wires:
            provider.stream(wire)
        bedrock_endpoint.serve(provider)

        def chat(plan: Plan) -> Any:
            return bedrock_endpoint.chat(ChatBedrock, MODEL, [c.name for c in plan.calls])

        return bedrock_endpoint.url, bedrock_endpoint.runtime, chat, provider

    return serve


def stream_chat(chat: Any) -> tuple[list[AIMessageChunk], BaseException | None]:
    return collect(lambda: chat.stream("hi"), RAISES)


async def astream_chat(chat: Any) -> tuple[list[AIMessageChunk], BaseException | None]:
    return await acollect(lambda: chat.astream("hi"), RAISES)


def inner_events(body: bytes) -> list[dict[str, Any]]:
    """The Anthropic events inside the ``chunk`` messages."""
    return [
        json.loads(base64.b64decode(json.loads(m.payload)["bytes"]))
        for m in decode_eventstream(body)
        if m.event_type == "chunk"
    ]


def expected_error(wire: Wire) -> type[Exception] | None:
    """What ChatBedrock raises for this wire: it never checks for a missing message_stop."""
    messages = decode_eventstream(wire.body)
    if any(m.message_type == "exception" for m in messages):
        return EventStreamError
    if len(b"".join(m.raw for m in messages)) < len(wire.body):
        return urllib3.exceptions.ProtocolError
    return None


def check_against_chat(wire: Wire, plan: Plan, quirks: list[Any], chunks, error) -> None:
    expected = expected_error(wire)
    assert error is None if expected is None else isinstance(error, expected), repr(error)
    reference = assert_merges_as_parsed(chunks, DIALECT.parse(wire.body))
    if all(parse_quirk(q).lossless for q in quirks):
        assert reference.calls() == plan.expected_calls()


# --- ChatBedrock: parse() is exactly what the adapter yields -------------------------------


@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_bedrock_stream(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    _, _, chat, provider = serve(wire)
    chunks, error = stream_chat(chat(plan))
    check_against_chat(wire, plan, quirks, chunks, error)
    assert provider.requests[0].path == f"/model/{MODEL}/invoke-with-response-stream"


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
async def test_parse_equals_chat_bedrock_astream(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    _, _, chat, _ = serve(wire)
    chunks, error = await astream_chat(chat(plan))
    check_against_chat(wire, plan, quirks, chunks, error)


SCENARIOS = [s for s in bundled_scenarios() if s.dialects is None or DIALECT.name in s.dialects]


def renders(scenario: Scenario) -> bool:
    return rendered(DIALECT.name, scenario) is not None


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if renders(s)], ids=lambda s: s.name)
def test_bundled_scenarios_parse_equals_chat_bedrock(serve, scenario):
    wire = DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)
    _, _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(scenario.plan))
    check_against_chat(wire, scenario.plan, list(scenario.quirks), chunks, error)


# --- boto3 and the anthropic SDK's Bedrock client ---------------------------------------


@pytest.mark.parametrize("quirks", SDK_QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_boto3_yields_every_chunk_with_the_anthropic_event_inside(serve, plan_name, quirks):
    wire = DIALECT.render(PLANS[plan_name], quirks, seed=5)
    _, runtime, _, _ = serve(wire)
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": []})
    response = runtime.invoke_model_with_response_stream(modelId=MODEL, body=body)
    events = [json.loads(event["chunk"]["bytes"]) for event in response["body"]]
    assert events == inner_events(wire.body)
    assert response["contentType"] == "application/json"
    assert (
        events[-1]["amazon-bedrock-invocationMetrics"]["outputTokenCount"]
        == (events[-2]["usage"]["output_tokens"])
    )


def final_blocks(message: Any) -> list[tuple[Any, ...]]:
    return [
        (b.type, b.name, b.id, b.input) if b.type == "tool_use" else (b.type, b.text)
        for b in message.content
        if b.type != "thinking"
    ]


def expected_blocks(plan: Plan) -> list[tuple[Any, ...]]:
    blocks: list[tuple[Any, ...]] = [("text", plan.text_before)] if plan.text_before else []
    blocks += [("tool_use", c.name, c.id, c.args) for c in plan.calls]
    return blocks + ([("text", plan.text_after)] if plan.text_after else [])


def sdk(url: str) -> anthropic.AnthropicBedrock:
    return anthropic.AnthropicBedrock(
        aws_access_key="x", aws_secret_key="x", aws_region="us-east-1", base_url=url, max_retries=0
    )


@pytest.mark.parametrize("quirks", SDK_QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_anthropic_bedrock_sdk_final_message_equals_plan(serve, plan_name, quirks):
    plan = PLANS[plan_name]
    url, _, _, _ = serve(DIALECT.render(plan, quirks, seed=6))
    with (
        sdk(url) as client,
        client.messages.stream(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        message = stream.get_final_message()
    assert final_blocks(message) == expected_blocks(plan)
    assert message.stop_reason == "tool_use"
    assert message.id.startswith("msg_bdrk_01")
    assert message.model == INVOKE_MODEL


@pytest.mark.asyncio
@pytest.mark.parametrize("plan_name", PLANS)
async def test_async_anthropic_bedrock_sdk_final_message_equals_plan(serve, plan_name):
    plan = PLANS[plan_name]
    url, _, _, _ = serve(DIALECT.render(plan, ["interleave_calls"], seed=7))
    client = anthropic.AsyncAnthropicBedrock(
        aws_access_key="x", aws_secret_key="x", aws_region="us-east-1", base_url=url, max_retries=0
    )
    async with (
        client,
        client.messages.stream(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        message = await stream.get_final_message()
    assert final_blocks(message) == expected_blocks(plan)


def test_anthropic_bedrock_sdk_raises_api_status_error_on_the_error_finish(serve):
    url, _, _, _ = serve(DIALECT.render(PLANS["single"].model_copy(update={"finish": "error"})))
    with (
        pytest.raises(anthropic.APIStatusError, match="modelStreamErrorException") as raised,
        sdk(url) as client,
        client.messages.stream(model=MODEL, max_tokens=8, messages=[]) as stream,
    ):
        stream.get_final_message()
    assert raised.value.body == {
        "type": "error",
        "error": {"type": "modelStreamErrorException", "message": STREAM_ERROR},
    }


# --- adapter behaviour, pinned by name --------------------------------------------------------


def chunks_wire(*events: dict[str, Any]) -> Wire:
    """A hand-built stream: each Anthropic event in its own ``chunk`` message."""
    reads = tuple(
        encode_eventstream_message(
            [
                (":event-type", "chunk"),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            json.dumps({"bytes": base64.b64encode(json.dumps(e).encode()).decode()}).encode(),
        )
        for e in events
    )
    return Wire(reads=reads, headers=(("content-type", EVENTSTREAM_MEDIA_TYPE),))


def test_chat_bedrock_ignores_the_input_on_a_tool_use_start(serve):
    """On Bedrock: ChatAnthropic reads content_block_start.input, ChatBedrock does not,
    so a call whose arguments ride on the start merges with {} arguments, silently."""
    plan = PLANS["single"]
    wire = DIALECT.render(plan, ["input_on_block_start"])
    _, _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(plan))
    assert error is None
    assert [c.tool_call_chunks for c in adapter_messages(chunks)] == DIALECT.parse(wire.body)
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls == [
        {"name": "get_weather", "args": {}, "id": "toolu_bdrk_01A", "type": "tool_call"}
    ]


def test_chat_bedrock_ends_a_truncated_stream_quietly_with_a_valid_cut_call(serve):
    """Cut on invoke: no message_stop, no exception (ChatBedrockConverse raises instead)."""
    plan = PLANS["single"]
    wire = DIALECT.render(plan, ["truncate_args"])
    _, _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(plan))
    assert error is None
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls[0]["args"] == {"city": "Pa"}


def test_chat_bedrock_stops_reading_at_message_stop(serve):
    start = {"type": "content_block_start", "index": 0}
    start["content_block"] = {"type": "tool_use", "id": "toolu_1", "name": "get_weather"}
    wire = chunks_wire(
        {"type": "message_start", "message": {}},
        start,
        {"type": "message_stop"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}},
    )
    _, _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(PLANS["single"]))
    assert error is None  # the broken delta after message_stop is never read
    assert [c.tool_call_chunks for c in adapter_messages(chunks)] == DIALECT.parse(wire.body)
    assert len(adapter_messages(chunks)) == 3


def test_chat_bedrock_takes_input_json_deltas_whatever_block_is_open(serve):
    """Unlike ChatAnthropic, an input_json_delta inside a text block still gives a chunk."""
    delta = {"type": "input_json_delta", "partial_json": '{"a": 1}'}
    wire = chunks_wire(
        {"type": "message_start", "message": {}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "message_stop"},
    )
    _, _, chat, _ = serve(wire)
    chunks, _ = stream_chat(chat(PLANS["single"]))
    assert [c.tool_call_chunks for c in adapter_messages(chunks)] == DIALECT.parse(wire.body)
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls == [{"name": "", "args": {"a": 1}, "id": None, "type": "tool_call"}]


def test_exception_message_raises_event_stream_error_after_partial_chunks(serve):
    plan = PLANS["two_calls"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan, ["truncate_args"])
    _, _, chat, _ = serve(wire)
    chunks, error = stream_chat(chat(plan))
    assert isinstance(error, EventStreamError)
    assert error.response["Error"] == {"Code": "modelStreamErrorException", "Message": STREAM_ERROR}
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)
    assert len(reference_merge(DIALECT.parse(wire.body)).calls()) == 2


# --- rendering ---------------------------------------------------------------------------------


def test_anthropic_events_are_reshaped_the_way_bedrock_relays_them():
    events = inner_events(DIALECT.render(PLANS["thinking_text_call"], seed=2).body)
    types = [e["type"] for e in events]
    assert "ping" not in types
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    message = events[0]["message"]
    assert list(message) == [
        "model",
        "id",
        "type",
        "role",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
    ]
    assert set(message["usage"]) == {
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    }
    tool_starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert {"type": "tool_use", "id": "toolu_bdrk_01A", "name": "get_weather", "input": {}} in (
        tool_starts
    )
    assert events[-2]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert set(events[-2]["usage"]) == {"output_tokens"}
    assert set(events[-1]["amazon-bedrock-invocationMetrics"]) == {
        "inputTokenCount",
        "outputTokenCount",
        "invocationLatency",
        "firstByteLatency",
    }


@pytest.mark.parametrize(
    ("quirks", "message"),
    [
        (["ping_events"], "Bedrock relays no ping events"),
        (["json_padding"], "compact, unpadded JSON"),
        (["no_empty_tool_input"], "belongs to another dialect; bedrock_invoke renders only"),
        (["late_id"], "late_id cannot be rendered by dialect bedrock_invoke"),
        (["retry_block"], "rewrites server-sent events"),
    ],
)
def test_quirks_this_wire_cannot_say_raise(quirks, message):
    with pytest.raises(TooltapeUsageError, match=message):
        DIALECT.render(PLANS["two_calls"], quirks)
