"""The anthropic_messages dialect against the real anthropic SDK and ChatAnthropic.

Rendered bytes are served through an httpx2 MockTransport, read by read, to
anthropic 2.x (``messages.create(stream=True)``, ``messages.stream``), and through
the ``chat_models`` fixture to langchain-anthropic's ``ChatAnthropic`` (``stream``,
``astream``). What every dialect's chat model must do (each quirk the dialect
expresses, each WIRE quirk, each finish) is ``test_chat_model_contract.py``; here,
the Messages API's own EVENTS quirks and combinations: parse() must equal what
ChatAnthropic yields, the merge langchain-core's reference and, for lossless
quirks, the plan.
"""

from __future__ import annotations

import functools
import itertools
import json
import operator
from typing import Any

import anthropic
import httpx2
import pytest
from _adapter_streams import adapter_messages, assert_merges_as_parsed, quirk_id
from _plans import sample_plans

from tooltape.fake_providers import Wire, decode_sse
from tooltape.fake_providers.dialects.anthropic._dialect import AnthropicMessagesDialect
from tooltape.harness import Plan, parse_quirk, reference_merge

DIALECT = AnthropicMessagesDialect()
PLANS = sample_plans("toolu_01")
WEATHER, TIME = PLANS["two_calls"].calls
LOSSLESS = [
    ["ping_events"],
    ["json_padding"],
    ["no_empty_partial_json"],
    ["input_on_block_start"],
    ["empty_args", "no_empty_partial_json"],
    ["ascii_escapes", "split_inside_escapes"],
]
"""The Messages API's own EVENTS quirks, and combinations; each quirk the dialect
``expresses``, alone, is in ``test_chat_model_contract.py``."""
SDK_QUIRKS = [
    [],
    *LOSSLESS,
    ["whole_args"],
    ["whole_call"],
    ["interleave_calls"],
    ["empty_args"],
]


# --- serving -----------------------------------------------------------------------------


class Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A response body handed to the client one wire read at a time."""

    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self):
        yield from self.reads

    async def __aiter__(self):
        for read in self.reads:
            yield read


def transport(wire: Wire) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(wire.status, headers=list(wire.headers), stream=Reads(wire.reads))

    return httpx2.MockTransport(handler)


def sdk(wire: Wire) -> anthropic.Anthropic:
    client = httpx2.Client(transport=transport(wire))
    return anthropic.Anthropic(api_key="sk-test", max_retries=0, http_client=client)


def async_sdk(wire: Wire) -> anthropic.AsyncAnthropic:
    client = httpx2.AsyncClient(transport=transport(wire))
    return anthropic.AsyncAnthropic(api_key="sk-test", max_retries=0, http_client=client)


def events(wire: Wire) -> list[tuple[str | None, dict[str, Any]]]:
    return [(e.event, json.loads(e.data)) for e in decode_sse(wire.body)]


def check_against_chat(wire: Wire, plan: Plan, quirks: list[str], chunks, error) -> None:
    assert (error is not None) == (wire.body.replace(b" ", b"").rstrip().endswith(b'Overloaded"}}'))
    reference = assert_merges_as_parsed(chunks, DIALECT.parse(wire.body))
    if all(parse_quirk(q).lossless for q in quirks):
        assert reference.calls() == plan.expected_calls()


# --- ChatAnthropic: parse() is exactly what the adapter yields ---------------------------


@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_anthropic_stream(chat_models, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    chunks, error = chat_models.stream(DIALECT.name, wire)
    check_against_chat(wire, plan, quirks, chunks, error)


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", LOSSLESS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
async def test_parse_equals_chat_anthropic_astream(chat_models, plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    chunks, error = await chat_models.astream(DIALECT.name, wire)
    check_against_chat(wire, plan, quirks, chunks, error)


def test_chat_anthropic_truncated_stream_is_a_valid_call_with_cut_args(chat_models):
    """No exception, a *valid* call with the cut value; core adds the last chunk."""
    wire = DIALECT.render(PLANS["single"], ["truncate_args"])
    chunks, error = chat_models.stream(DIALECT.name, wire)
    assert error is None
    assert chunks[-1].chunk_position == "last"
    assert not chunks[-1].response_metadata
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls[0]["args"] == {"city": "Pa"}
    assert merged.response_metadata.get("stop_reason") is None


def test_chat_anthropic_error_event_raises_after_partial_chunks(chat_models):
    """The SDK raises APIStatusError at ``event: error``; chunks before it were yielded."""
    plan = PLANS["single"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan, ["truncate_args"])
    chunks, error = chat_models.stream(DIALECT.name, wire)
    assert isinstance(error, anthropic.APIStatusError)
    assert error.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)
    assert reference_merge(DIALECT.parse(wire.body)).calls() == [
        {"name": "get_weather", "args": {"city": "Pa"}, "id": "toolu_01A"}
    ]


# --- the official SDK ---------------------------------------------------------------------


def final_blocks(message) -> list[tuple[Any, ...]]:
    return [
        (b.type, b.name, b.id, b.input)
        if b.type == "tool_use"
        else (b.type, getattr(b, "text", None))
        for b in message.content
    ]


def expected_blocks(plan: Plan) -> list[tuple[Any, ...]]:
    blocks: list[tuple[Any, ...]] = [("thinking", None)] if plan.reasoning else []
    blocks += [("text", plan.text_before)] if plan.text_before else []
    blocks += [("tool_use", c.name, c.id, c.args) for c in plan.calls]
    return blocks + ([("text", plan.text_after)] if plan.text_after else [])


@pytest.mark.parametrize("quirks", SDK_QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_sdk_message_stream_final_message_equals_plan(plan_name, quirks):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=5)
    with sdk(wire).messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        message = stream.get_final_message()
    assert final_blocks(message) == expected_blocks(plan)
    assert message.stop_reason == "tool_use"
    if plan.reasoning:
        assert message.content[0].thinking == plan.reasoning
        assert message.content[0].signature


@pytest.mark.asyncio
@pytest.mark.parametrize("plan_name", PLANS)
async def test_async_sdk_message_stream_final_message_equals_plan(plan_name):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, seed=6)
    async with async_sdk(wire).messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        message = await stream.get_final_message()
    assert final_blocks(message) == expected_blocks(plan)


def raw_summary(raw_events) -> tuple[list[str], dict[int, str]]:
    types, args = [], {}
    for event in raw_events:
        types.append(event.type)
        if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            args[event.index] = args.get(event.index, "") + event.delta.partial_json
    return types, args


def expected_summary(wire: Wire, plan: Plan) -> tuple[list[str], dict[int, str]]:
    types = [data["type"] for name, data in events(wire) if name != "ping"]
    first = len([t for t in (plan.reasoning, plan.text_before) if t])
    return types, {
        first + n: json.dumps(c.args, ensure_ascii=False) for n, c in enumerate(plan.calls)
    }


@pytest.mark.parametrize("plan_name", PLANS)
def test_sdk_create_stream_yields_every_event(plan_name):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, seed=7)
    raw = sdk(wire).messages.create(
        model="m", max_tokens=64, stream=True, messages=[{"role": "user", "content": "hi"}]
    )
    assert raw_summary(raw) == expected_summary(wire, plan)


@pytest.mark.asyncio
@pytest.mark.parametrize("plan_name", PLANS)
async def test_async_sdk_create_stream_yields_every_event(plan_name):
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, seed=8)
    raw = await async_sdk(wire).messages.create(
        model="m", max_tokens=64, stream=True, messages=[{"role": "user", "content": "hi"}]
    )
    assert raw_summary([event async for event in raw]) == expected_summary(wire, plan)


def final_message(wire: Wire):
    with sdk(wire).messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        return stream.get_final_message()


def test_sdk_truncated_args_become_empty_input_and_no_stop_reason():
    """jiter's partial mode drops the cut string: the SDK says ``{}``, LangChain ``"Pa"``."""
    message = final_message(DIALECT.render(PLANS["single"], ["truncate_args"]))
    assert [(b.type, b.input) for b in message.content] == [("tool_use", {})]
    assert message.stop_reason is None


def test_sdk_message_stream_raises_on_malformed_args():
    """MessageStream parses input_json_delta eagerly and raises; LangChain reports invalid."""
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        final_message(DIALECT.render(PLANS["single"], ["malformed_args"]))


@pytest.mark.parametrize(("seed", "sdk_raises"), [(0, False), (1, True)])
def test_cumulative_args_sdk_garbage_or_error_langchain_invalid(seed, sdk_raises):
    """Cumulative partial_json: LangChain reports an invalid call; the SDK's jiter partial
    parse either raises or silently returns nested garbage, depending on the cut points."""
    wire = DIALECT.render(PLANS["single"], ["cumulative_args"], seed=seed)
    reference = reference_merge(DIALECT.parse(wire.body))
    assert reference.calls() == []
    assert len(reference.invalid_tool_calls) == 1
    if sdk_raises:
        with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
            final_message(wire)
    else:
        assert final_message(wire).content[0].input == {"city": {"city": "Pa{"}}


def test_sdk_raises_api_status_error_on_error_event():
    wire = DIALECT.render(PLANS["single"].model_copy(update={"finish": "error"}))
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
        final_message(wire)


def test_interleaved_blocks_stay_open_together():
    """As on Bedrock, rendered faithfully: deltas of two open tool_use blocks alternate."""
    wire = DIALECT.render(PLANS["two_calls"], ["interleave_calls"], seed=2)
    indexes = [data["index"] for name, data in events(wire) if name == "content_block_delta"]
    switches = sum(1 for a, b in itertools.pairwise(indexes) if a != b)
    assert switches >= 2
    assert final_blocks(final_message(wire)) == expected_blocks(PLANS["two_calls"])


# --- parse edge cases pinned against the SDK's decoder -----------------------------------


def test_parse_ignores_events_without_event_line(chat_models):
    """anthropic 2.x skips SSE events that have no ``event:`` field; so does parse()."""
    body = DIALECT.render(PLANS["single"]).body.replace(b"event: content_block_delta\n", b"")
    wire = Wire(reads=(body,))
    chunks, _ = chat_models.stream(DIALECT.name, wire)
    assert [c.tool_call_chunks for c in adapter_messages(chunks)] == DIALECT.parse(body)
    assert reference_merge(DIALECT.parse(body)).calls()[0]["args"] == {}


def test_get_dialect_finds_anthropic_messages():
    from tooltape.fake_providers import dialect_names, get_dialect

    assert isinstance(get_dialect("anthropic_messages"), AnthropicMessagesDialect)
    assert "anthropic_messages" in dialect_names()
