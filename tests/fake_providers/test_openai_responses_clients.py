"""The openai_responses dialect against real clients: the openai SDK and ChatOpenAI.

Rendered bytes are served through httpx2's MockTransport, read by read. The
subject is never mocked: ``parse`` must equal what ``ChatOpenAI(use_responses_api
=True)`` yields from the same bytes, and the SDK must accept every stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models import base as chat_openai_base

from tooltape.fake_providers import ProviderRequest, Wire, decode_sse, get_dialect
from tooltape.fake_providers.dialects.openai_responses._dialect import SERVER_ERROR
from tooltape.fake_providers.dialects.openai_responses._parse import completes_arguments_on_done
from tooltape.harness import Plan, PlannedCall, parse_quirk, reference_merge, stream_plan

DIALECT = get_dialect("openai_responses")

WEATHER = PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_Wx1")
TIME = PlannedCall(name="get_time", args={"tz": "CET", "24h": True}, id="call_Tm2")
PLANS = {
    "single": Plan(calls=[WEATHER]),
    "parallel": Plan(calls=[WEATHER, TIME]),
    "text_then_call": Plan(text_before="Let me look that up.", calls=[WEATHER]),
    "reasoning_then_call": Plan(reasoning="The user wants the weather.", calls=[WEATHER]),
    "non_ascii": Plan(calls=[PlannedCall(name="lookup", args={"q": "São Paulo 北京 ☃"})]),
    "empty_args": Plan(calls=[PlannedCall(name="get_time", args={})]),
}
QUIRK_SETS: dict[str, tuple[str, ...]] = {
    "none": (),
    "interleave_calls": ("interleave_calls",),
    "truncate_args": ("truncate_args",),
    "malformed_args": ("malformed_args",),
    "whole_args": ("whole_args",),
    "whole_call": ("whole_call",),
    "cumulative_args": ("cumulative_args",),
    "escapes_split": ("ascii_escapes", "split_inside_escapes"),
    "empty_args": ("empty_args",),
    "missing_id": ("missing_id",),
    "no_argument_deltas": ("no_argument_deltas",),
    "open_calls_first": ("open_calls_first",),
    "encrypted_reasoning": ("encrypted_reasoning",),
    "legacy_frames": (
        "no_sequence_number",
        "responses_no_obfuscation",
        "responses_data_only",
        "responses_done_sentinel",
    ),
}
# Quirk sets after which the completed response's items still hold the planned calls.
FINAL_ITEMS_INTACT = [
    "none",
    "interleave_calls",
    "whole_args",
    "whole_call",
    "cumulative_args",
    "escapes_split",
    "empty_args",
    "no_argument_deltas",
    "open_calls_first",
    "encrypted_reasoning",
    "legacy_frames",
]
CREATE_INTACT = [*FINAL_ITEMS_INTACT, "missing_id"]
MATRIX = [
    pytest.param(plan, quirks, id=f"{plan_name}-{quirk_name}")
    for plan_name, plan in PLANS.items()
    for quirk_name, quirks in QUIRK_SETS.items()
]


# --- serving --------------------------------------------------------------------------


class _Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A response body handed to the client one read at a time."""

    def __init__(self, reads: Iterable[bytes]) -> None:
        self.reads = tuple(reads)

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read


def _handler(wire: Wire, seen: list[ProviderRequest] | None = None) -> Any:
    """Answer like the provider: validate the request, then stream the wire."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        provider_request = ProviderRequest(
            method=request.method,
            path=request.url.path,
            headers=dict(request.headers),
            body=request.content,
        )
        if seen is not None:
            seen.append(provider_request)
        error = DIALECT.validate(provider_request)
        if error is not None:
            return httpx2.Response(error.status, json=error.body)
        return httpx2.Response(wire.status, headers=list(wire.headers), stream=_Reads(wire.reads))

    return handle


def _sdk(wire: Wire) -> openai.OpenAI:
    transport = httpx2.MockTransport(_handler(wire))
    return openai.OpenAI(
        api_key="sk-test", base_url="http://fake/v1", http_client=httpx2.Client(transport=transport)
    )


def _async_sdk(wire: Wire) -> openai.AsyncOpenAI:
    transport = httpx2.MockTransport(_handler(wire))
    return openai.AsyncOpenAI(
        api_key="sk-test",
        base_url="http://fake/v1",
        http_client=httpx2.AsyncClient(transport=transport),
    )


def _chat_model(wire: Wire, seen: list[ProviderRequest] | None = None) -> ChatOpenAI:
    transport = httpx2.MockTransport(_handler(wire, seen))
    return ChatOpenAI(
        model="gpt-4.1",
        api_key="sk-test",
        base_url="http://fake/v1",
        use_responses_api=True,
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
        http_async_client=httpx2.AsyncClient(transport=transport),
    )


def _stream(model: ChatOpenAI, prompt: Any = "hi") -> tuple[list[AIMessageChunk], Exception | None]:
    chunks: list[AIMessageChunk] = []
    try:
        for chunk in model.stream(prompt):
            chunks.append(chunk)
    except Exception as error:
        return chunks, error
    return chunks, None


async def _astream(model: ChatOpenAI) -> tuple[list[AIMessageChunk], Exception | None]:
    chunks: list[AIMessageChunk] = []
    try:
        async for chunk in model.astream("hi"):
            chunks.append(chunk)
    except Exception as error:
        return chunks, error
    return chunks, None


def _wire_types(body: bytes) -> list[str]:
    return [event.json()["type"] for event in decode_sse(body) if event.data != "[DONE]"]


def _function_calls(items: Iterable[Any]) -> list[dict[str, Any]]:
    # `empty_args` puts "" on the wire for a no-argument call; read it as {} like langchain does.
    return [
        {"name": item.name, "args": json.loads(item.arguments or "{}"), "id": item.call_id}
        for item in items
        if item.type == "function_call"
    ]


def _expected_final_calls(plan: Plan, quirks: tuple[str, ...], seed: int) -> list[dict[str, Any]]:
    calls = DIALECT.planned_calls(plan, seed)
    return [{**c, "id": None} for c in calls] if "missing_id" in quirks else calls


def _adapter_is_lossless(plan: Plan, quirks: tuple[str, ...]) -> bool:
    """Lossless for langchain-core, and not interleaved (the adapter re-indexes)."""
    stream = stream_plan(plan, [q for q in quirks if parse_quirk(q).stage.name != "EVENTS"])
    events_lossless = all(parse_quirk(q).lossless for q in quirks)
    interleaved = "interleave_calls" in quirks and len(plan.calls) > 1
    return stream.lossless and events_lossless and not interleaved


def _check_adapter(
    chunks: list[AIMessageChunk], error: Exception | None, wire: Wire, plan: Plan, quirks: Any
) -> None:
    assert error is None
    parsed = DIALECT.parse(wire.body)
    assert [c.tool_call_chunks for c in chunks] == parsed
    summed = add_ai_message_chunks(chunks[0], *chunks[1:])
    reference = reference_merge(parsed)
    assert summed.tool_calls == reference.tool_calls
    assert summed.invalid_tool_calls == reference.invalid_tool_calls
    if _adapter_is_lossless(plan, quirks):
        assert reference.calls() == DIALECT.planned_calls(plan, 7)


# --- ChatOpenAI(use_responses_api=True) -------------------------------------------------


@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
def test_chat_openai_stream_yields_what_parse_says(plan: Plan, quirks: tuple[str, ...]) -> None:
    wire = DIALECT.render(plan, quirks, seed=7)
    chunks, error = _stream(_chat_model(wire))
    _check_adapter(chunks, error, wire, plan, quirks)


@pytest.mark.asyncio
@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
async def test_chat_openai_astream_yields_what_parse_says(
    plan: Plan, quirks: tuple[str, ...]
) -> None:
    wire = DIALECT.render(plan, quirks, seed=7)
    chunks, error = await _astream(_chat_model(wire))
    _check_adapter(chunks, error, wire, plan, quirks)


@pytest.mark.parametrize("seed", range(6))
def test_interleaving_is_lossless_for_parse_and_adapter_alike(seed: int) -> None:
    # Whatever the interleaving, parse reproduces the adapter chunk for chunk.
    wire = DIALECT.render(PLANS["parallel"], ["interleave_calls", "split_args"], seed=seed)
    chunks, error = _stream(_chat_model(wire))
    assert error is None
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)


# --- the official SDK -------------------------------------------------------------------


@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
def test_sdk_create_stream_reads_every_event(plan: Plan, quirks: tuple[str, ...]) -> None:
    wire = DIALECT.render(plan, quirks, seed=3)
    events = list(_sdk(wire).responses.create(model="gpt-4.1", input="hi", stream=True))
    assert [e.type for e in events] == _wire_types(wire.body)
    if quirks in [QUIRK_SETS[name] for name in CREATE_INTACT]:
        assert events[-1].type == "response.completed"
        assert _function_calls(events[-1].response.output) == _expected_final_calls(plan, quirks, 3)
        done = [e.item for e in events if e.type == "response.output_item.done"]
        assert _function_calls(done) == _expected_final_calls(plan, quirks, 3)


@pytest.mark.asyncio
@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
async def test_async_sdk_create_stream_reads_every_event(
    plan: Plan, quirks: tuple[str, ...]
) -> None:
    wire = DIALECT.render(plan, quirks, seed=3)
    stream = await _async_sdk(wire).responses.create(model="gpt-4.1", input="hi", stream=True)
    events = [event async for event in stream]
    assert [e.type for e in events] == _wire_types(wire.body)
    if quirks in [QUIRK_SETS[name] for name in CREATE_INTACT]:
        assert _function_calls(events[-1].response.output) == _expected_final_calls(plan, quirks, 3)


HELPER_CASES = [
    pytest.param(plan, QUIRK_SETS[name], id=f"{plan_name}-{name}")
    for plan_name, plan in PLANS.items()
    for name in FINAL_ITEMS_INTACT
]


@pytest.mark.parametrize(("plan", "quirks"), HELPER_CASES)
def test_sdk_stream_helper_final_response_holds_the_plan(
    plan: Plan, quirks: tuple[str, ...]
) -> None:
    wire = DIALECT.render(plan, quirks, seed=5)
    with _sdk(wire).responses.stream(model="gpt-4.1", input="hi") as stream:
        streamed_args = {}
        for event in stream:
            if event.type == "response.function_call_arguments.delta":
                streamed_args[event.item_id] = event.snapshot
        final = stream.get_final_response()
    assert _function_calls(final.output) == _expected_final_calls(plan, quirks, 5)
    final_args = {item.id: item.arguments for item in final.output if item.type == "function_call"}
    if "cumulative_args" not in quirks:  # the helper's running snapshot is the final text
        assert all(final_args[item_id] == text for item_id, text in streamed_args.items())
    if not quirks:
        assert streamed_args.keys() == final_args.keys()


@pytest.mark.asyncio
@pytest.mark.parametrize(("plan", "quirks"), HELPER_CASES)
async def test_async_sdk_stream_helper_final_response_holds_the_plan(
    plan: Plan, quirks: tuple[str, ...]
) -> None:
    wire = DIALECT.render(plan, quirks, seed=5)
    async with _async_sdk(wire).responses.stream(model="gpt-4.1", input="hi") as stream:
        final = await stream.get_final_response()
    assert _function_calls(final.output) == _expected_final_calls(plan, quirks, 5)


# --- finishes through both clients ------------------------------------------------------


def test_length_finish_ends_with_response_incomplete_and_a_truncated_item() -> None:
    plan = PLANS["parallel"].model_copy(update={"finish": "length"})
    wire = DIALECT.render(plan, ["truncate_args"], seed=1)
    events = list(_sdk(wire).responses.create(model="gpt-4.1", input="hi", stream=True))
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
    truncated = events[-1].response.output[-1]
    assert truncated.status == "incomplete"
    assert truncated.arguments == '{"tz": "C'
    chunks, error = _stream(_chat_model(wire))
    assert error is None
    assert chunks[-1].chunk_position == "last"
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)


def test_content_filter_finish_is_an_incomplete_response() -> None:
    plan = PLANS["single"].model_copy(update={"finish": "content_filter"})
    wire = DIALECT.render(plan, seed=1)
    events = list(_sdk(wire).responses.create(model="gpt-4.1", input="hi", stream=True))
    assert events[-1].response.incomplete_details.reason == "content_filter"


# --- pinned adapter and SDK behaviour ---------------------------------------------------


def test_pin_rs1_arguments_only_in_done() -> None:
    """Langchain-openai before 1.8.1 ignores ``function_call_arguments.done``
    (the calls merge with ``{}``); 1.8.1 and later stream the arguments it completes."""
    wire = DIALECT.render(PLANS["parallel"], ["no_argument_deltas"])
    chunks, _ = _stream(_chat_model(wire))
    summed = add_ai_message_chunks(chunks[0], *chunks[1:])
    recovered = hasattr(chat_openai_base, "_remaining_function_call_arguments")  # 1.8.1
    assert completes_arguments_on_done() == recovered  # the mirror follows the installed release
    assert [(c["name"], c["args"], c["id"]) for c in summed.tool_calls] == [
        ("get_weather", {"city": "Paris"} if recovered else {}, "call_Wx1"),
        ("get_time", {"tz": "CET", "24h": True} if recovered else {}, "call_Tm2"),
    ]


def test_pin_rs2_calls_opened_first_split_into_nameless_idless_halves() -> None:
    """Every output_index change starts a new chunk index."""
    wire = DIALECT.render(PLANS["parallel"], ["open_calls_first"])
    chunks, _ = _stream(_chat_model(wire))
    summed = add_ai_message_chunks(chunks[0], *chunks[1:])
    assert [(c["name"], c["args"], c["id"]) for c in summed.tool_calls] == [
        ("get_weather", {}, "call_Wx1"),
        ("get_time", {}, "call_Tm2"),
        ("", {"city": "Paris"}, None),
        ("", {"tz": "CET", "24h": True}, None),
    ]


def test_pin_interleaved_deltas_lose_calls_although_the_merge_rule_is_index_keyed() -> None:
    """``interleave_calls`` is lossless for index-keyed streams, not for this adapter."""
    wire = DIALECT.render(PLANS["parallel"], ["interleave_calls"], seed=7)
    chunks, _ = _stream(_chat_model(wire))
    summed = add_ai_message_chunks(chunks[0], *chunks[1:])
    assert len(summed.tool_calls) > 2
    assert any(c["id"] is None and c["name"] == "" for c in summed.tool_calls)


def test_pin_rs3_error_event_raises_after_partial_chunks() -> None:
    plan = PLANS["parallel"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan)
    chunks, error = _stream(_chat_model(wire))
    assert isinstance(error, ValueError)
    assert str(error) == f"server_error: {SERVER_ERROR}"
    assert any(c.tool_call_chunks for c in chunks)
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)


def test_pin_response_failed_raises_with_the_error_object() -> None:
    plan = PLANS["single"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan, ["response_failed"])
    chunks, error = _stream(_chat_model(wire))
    assert isinstance(error, ValueError)
    assert "server_error" in str(error)
    assert SERVER_ERROR in str(error)
    assert [c.tool_call_chunks for c in chunks] == DIALECT.parse(wire.body)


def test_pin_truncated_stream_gives_a_valid_call_with_cut_arguments() -> None:
    """On this wire: EOF mid-arguments, langchain-core closes the string."""
    wire = DIALECT.render(PLANS["single"], ["truncate_args"])
    chunks, error = _stream(_chat_model(wire))
    assert error is None
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].tool_call_chunks == []
    summed = add_ai_message_chunks(chunks[0], *chunks[1:])
    assert summed.tool_calls[0]["args"] == {"city": "Pa"}


@pytest.mark.parametrize("quirk", ["missing_id", "duplicate_ids"])
def test_pin_sdk_stream_helper_rejects_two_calls_with_one_call_id(quirk: str) -> None:
    wire = DIALECT.render(PLANS["parallel"], [quirk])
    with (
        pytest.raises(RuntimeError, match="conflicting output identities"),
        _sdk(wire).responses.stream(model="gpt-4.1", input="hi") as stream,
    ):
        stream.get_final_response()


@pytest.mark.parametrize(
    ("finish", "quirks"), [("eof", ()), ("error", ()), ("length", ("truncate_args",))]
)
def test_pin_sdk_stream_helper_needs_response_completed(finish: str, quirks: Any) -> None:
    wire = DIALECT.render(PLANS["single"].model_copy(update={"finish": finish}), quirks)
    with (
        pytest.raises(RuntimeError, match=r"Didn't receive a `response\.completed` event"),
        _sdk(wire).responses.stream(model="gpt-4.1", input="hi") as stream,
    ):
        stream.get_final_response()


# --- validate() through the SDK and ChatOpenAI ------------------------------------------

DANGLING = [
    {"role": "user", "content": "Weather in Paris?"},
    {"type": "function_call", "call_id": "call_Wx1", "name": "get_weather", "arguments": "{}"},
]
ORPHAN = [
    {"role": "user", "content": "Weather in Paris?"},
    {"type": "function_call_output", "call_id": "call_Zz9", "output": "sunny"},
]


@pytest.mark.parametrize(
    ("history", "message"),
    [
        (DANGLING, "No tool output found for function call call_Wx1."),
        (ORPHAN, "No tool call found for function call output with call_id call_Zz9."),
    ],
)
def test_sdk_raises_bad_request_with_the_real_text(history: Any, message: str) -> None:
    wire = DIALECT.render(PLANS["single"])
    with pytest.raises(openai.BadRequestError) as raised:
        _sdk(wire).responses.create(model="gpt-4.1", input=history, stream=True)
    assert raised.value.status_code == 400
    assert raised.value.body == {
        "message": message,
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
    assert raised.value.param == "input"
    assert raised.value.code is None


@pytest.mark.asyncio
async def test_async_sdk_raises_bad_request_for_a_dangling_call() -> None:
    wire = DIALECT.render(PLANS["single"])
    with pytest.raises(openai.BadRequestError, match="No tool output found"):
        await _async_sdk(wire).responses.create(model="gpt-4.1", input=DANGLING, stream=True)


def test_chat_openai_history_pairs_by_call_id() -> None:
    """ChatOpenAI sends AIMessage.tool_calls as function_call items keyed by call_id."""
    wire = DIALECT.render(PLANS["single"])
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_Wx1"}
    asked = [HumanMessage("Weather?"), AIMessage("", tool_calls=[call])]
    seen: list[ProviderRequest] = []
    _, error = _stream(_chat_model(wire, seen), asked)
    assert isinstance(error, openai.BadRequestError)
    assert "No tool output found for function call call_Wx1." in str(error)
    answered = [*asked, ToolMessage("sunny", tool_call_id="call_Wx1")]
    chunks, error = _stream(_chat_model(wire, seen), answered)
    assert error is None
    assert chunks
    assert DIALECT.validate(seen[-1]) is None
