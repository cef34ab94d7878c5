"""The openai_chat dialect served to the real openai SDK and to ChatOpenAI.

Every stream is rendered by the dialect and served over httpx2's MockTransport,
read by read, to the official SDK (sync and async) and to langchain-openai's
``ChatOpenAI.stream()`` / ``.astream()``. What the adapter yields must equal
``dialect.parse(body)``; what it merges must equal ``reference_merge`` of that;
and a lossless stream must merge back to the plan.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_openai import ChatOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState
from pydantic import SecretStr

from tooltape.fake_providers import ProviderRequest, Wire, get_dialect
from tooltape.fake_providers._call_ids import with_provider_ids
from tooltape.fake_providers.dialects.openai_chat import read_chat_stream
from tooltape.harness import (
    Fragment,
    Plan,
    PlannedCall,
    PlannedStream,
    Quirk,
    Stage,
    TooltapeUsageError,
    quirk_kinds,
    reference_merge,
    stream_plan,
)

DIALECT = get_dialect("openai_chat")

PLANS = {
    "single": Plan(calls=(PlannedCall(name="get_weather", args={"city": "Paris"}),)),
    "parallel": Plan(
        calls=(
            PlannedCall(name="get_weather", args={"city": "Paris"}),
            PlannedCall(name="get_time", args={"tz": "Europe/Paris"}),
        )
    ),
    "text_then_call": Plan(
        text_before="Let me check the weather for you.",
        calls=(PlannedCall(name="get_weather", args={"city": "Paris", "unit": "celsius"}),),
    ),
    "non_ascii": Plan(
        calls=(PlannedCall(name="lookup", args={"city": "北京", "note": "café ☕"}),)
    ),
    "empty_args": Plan(calls=(PlannedCall(name="get_time", args={}),)),
}

QUIRK_SETS: dict[str, list[str]] = {
    "none": [],
    "interleave_calls": ["interleave_calls"],
    "pack_fragments": ["pack_fragments"],
    "id_on_every_chunk": ["id_on_every_chunk"],
    "empty_string_continuations": ["empty_string_continuations"],
    "repeat_name": ["repeat_name"],
    "no_index": ["no_index"],
    "shared_index+missing_id": ["shared_index", "missing_id"],
    "truncate_args": ["truncate_args"],
    "malformed_args": ["malformed_args"],
    "whole_call": ["whole_call"],
    "split_name": ["split_name"],
    "changing_id": ["changing_id"],
    "missing_id": ["missing_id"],
}

MATRIX = [
    pytest.param(plan, quirks, id=f"{plan}-{quirks}") for plan in PLANS for quirks in QUIRK_SETS
]


# --- serving ----------------------------------------------------------------------------


class _Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A response body handed to the client one read at a time."""

    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read


def _transport(wire: Wire, seen: list[httpx2.Request] | None = None) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if seen is not None:
            seen.append(request)
        return httpx2.Response(wire.status, headers=list(wire.headers), stream=_Reads(wire.reads))

    return httpx2.MockTransport(handler)


def _sdk(wire: Wire) -> openai.OpenAI:
    client = httpx2.Client(transport=_transport(wire))
    return openai.OpenAI(api_key="sk-test", base_url="http://fake/v1", http_client=client)


def _async_sdk(wire: Wire) -> openai.AsyncOpenAI:
    client = httpx2.AsyncClient(transport=_transport(wire))
    return openai.AsyncOpenAI(api_key="sk-test", base_url="http://fake/v1", http_client=client)


def _chat_model(wire: Wire) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini",
        api_key=SecretStr("sk-test"),
        base_url="http://fake/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=_transport(wire)),
        http_async_client=httpx2.AsyncClient(transport=_transport(wire)),
    )


MESSAGES: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]


def _render(plan: str, quirks: str, seed: int = 0) -> tuple[PlannedStream, Wire]:
    """The planned stream with the ids the dialect mints (``call_`` + 24), and its wire."""
    stream = stream_plan(PLANS[plan], QUIRK_SETS[quirks], seed=seed)
    return with_provider_ids(stream, DIALECT.call_id_format), DIALECT.render(stream)


def _payloads(wire: Wire) -> list[dict[str, Any]]:
    events = [block for block in wire.body.decode().split("\n\n") if block]
    return [json.loads(block.removeprefix("data: ")) for block in events if block != "data: [DONE]"]


# --- the official SDK -------------------------------------------------------------------


def _expected_entry(fragment: Fragment) -> dict[str, Any]:
    """What the dialect promises to put on the wire for one fragment."""
    entry: dict[str, Any] = {} if fragment.index is None else {"index": fragment.index}
    if fragment.id is not None:
        entry.update(id=fragment.id, type="function")
    function = {} if fragment.name is None else {"name": fragment.name}
    arguments = {} if fragment.args is None else {"arguments": fragment.args}
    entry["function"] = {**function, **arguments}
    return entry


def _check_sdk_chunks(stream: PlannedStream, wire: Wire, chunks: list[Any]) -> None:
    """The SDK read every event intact, in the order and shape the plan asks for."""
    assert [chunk.to_dict() for chunk in chunks] == _payloads(wire)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert len({chunk.id for chunk in chunks}) == 1
    assert chunks[0].id.startswith("chatcmpl-")
    assert {chunk.object for chunk in chunks} == {"chat.completion.chunk"}
    deltas = [chunk.choices[0].delta for chunk in chunks if chunk.choices]
    tool_deltas = [delta.to_dict()["tool_calls"] for delta in deltas if delta.tool_calls]
    assert tool_deltas == [[_expected_entry(f) for f in m] for m in stream.messages]
    if stream.finish == "eof":
        assert chunks[-1].choices[0].delta.tool_calls, "eof stops right after the last fragment"
        return
    assert chunks[-2].choices[0].finish_reason == stream.finish
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None


@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
def test_sdk_reads_every_fragment_as_rendered(plan: str, quirks: str) -> None:
    stream, wire = _render(plan, quirks)
    response = _sdk(wire).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    _check_sdk_chunks(stream, wire, list(response))


@pytest.mark.asyncio
@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
async def test_async_sdk_reads_every_fragment_as_rendered(plan: str, quirks: str) -> None:
    stream, wire = _render(plan, quirks)
    client = _async_sdk(wire)
    response = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    _check_sdk_chunks(stream, wire, [chunk async for chunk in response])


def _sdk_accumulated(wire: Wire) -> list[dict[str, Any]]:
    chunks = _sdk(wire).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    return _accumulate(list(chunks))


def _accumulate(chunks: list[Any]) -> list[dict[str, Any]]:
    """Tool calls as the SDK's own ``ChatCompletionStreamState`` accumulates them."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    calls = state.get_final_completion().choices[0].message.tool_calls or []
    return [
        {"name": c.function.name, "args": json.loads(c.function.arguments), "id": c.id}
        for c in calls
        if c.type == "function"
    ]


SDK_SAFE = [
    "none",
    "interleave_calls",
    "pack_fragments",
    "empty_string_continuations",
    "whole_call",
    "split_name",
]


@pytest.mark.parametrize("quirks", SDK_SAFE)
@pytest.mark.parametrize("plan", PLANS)
def test_sdk_stream_state_accumulates_the_plan(plan: str, quirks: str) -> None:
    _, wire = _render(plan, quirks)
    assert _sdk_accumulated(wire) == DIALECT.planned_calls(PLANS[plan])


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", SDK_SAFE)
@pytest.mark.parametrize("plan", PLANS)
async def test_async_sdk_stream_state_accumulates_the_plan(plan: str, quirks: str) -> None:
    _, wire = _render(plan, quirks)
    client = _async_sdk(wire)
    response = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert _accumulate([chunk async for chunk in response]) == DIALECT.planned_calls(PLANS[plan])


@pytest.mark.parametrize("plan", PLANS)
def test_sdk_stream_state_concatenates_repeated_ids(plan: str) -> None:
    """Pinned: ChatCompletionStreamState concatenates an id repeated on every chunk.

    langchain-core keeps one id (equal ids are not concatenated); the SDK helper
    glues them into ``call_Xcall_X...``.
    """
    stream, wire = _render(plan, "id_on_every_chunk")
    calls = DIALECT.planned_calls(PLANS[plan])
    chunks_per_call = [sum(f.call == n for f in stream.fragments) for n in range(len(calls))]
    ids = [call["id"] for call in _sdk_accumulated(wire)]
    expected = [(c["id"] or "") * count for c, count in zip(calls, chunks_per_call, strict=True)]
    assert ids == expected
    assert all(count > 1 for count in chunks_per_call)


@pytest.mark.parametrize("plan", PLANS)
def test_sdk_stream_state_crashes_without_index(plan: str) -> None:
    """Pinned: ChatCompletionStreamState cannot accumulate index-less deltas.

    openai-python#2806 reports ``Expected list delta entry to have an index key``;
    when no delta has an index at all the helper fails one step later, indexing
    its snapshot with ``None``. ``ChatOpenAI`` does not use the helper.
    """
    _, wire = _render(plan, "no_index")
    with pytest.raises(TypeError, match="not NoneType"):
        _sdk_accumulated(wire)


# --- ChatOpenAI -------------------------------------------------------------------------


def _check_adapter(stream: PlannedStream, wire: Wire, chunks: list[AIMessageChunk]) -> None:
    last = chunks[-1]
    assert last.chunk_position == "last"
    assert last.tool_call_chunks == []
    assert [chunk.tool_call_chunks for chunk in chunks[:-1]] == DIALECT.parse(wire.body)
    merged = add_ai_message_chunks(chunks[0], *chunks[1:])
    reference = reference_merge(DIALECT.parse(wire.body))
    assert merged.tool_calls == reference.tool_calls
    assert merged.invalid_tool_calls == reference.invalid_tool_calls
    if stream.lossless:
        assert reference.calls() == DIALECT.planned_calls(stream.plan)


@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
def test_chat_openai_stream_yields_what_parse_says(plan: str, quirks: str) -> None:
    stream, wire = _render(plan, quirks)
    _check_adapter(stream, wire, list(_chat_model(wire).stream(MESSAGES)))


@pytest.mark.asyncio
@pytest.mark.parametrize(("plan", "quirks"), MATRIX)
async def test_chat_openai_astream_yields_what_parse_says(plan: str, quirks: str) -> None:
    stream, wire = _render(plan, quirks)
    _check_adapter(stream, wire, [chunk async for chunk in _chat_model(wire).astream(MESSAGES)])


def test_the_matrix_compares_lossless_streams_with_the_plan() -> None:
    """Guard: these quirk sets are lossless, so the adapter checks above compare with the plan."""
    lossless = {q for q in QUIRK_SETS if stream_plan(PLANS["parallel"], QUIRK_SETS[q]).lossless}
    assert lossless == {
        "none",
        "interleave_calls",
        "id_on_every_chunk",
        "empty_string_continuations",
        "whole_call",
        "split_name",
    }


def test_repeated_name_doubles_in_chat_openai() -> None:
    stream, wire = _render("single", "repeat_name")
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.tool_calls[0]["name"] == "get_weather" * len(stream.fragments)


@pytest.mark.parametrize("finish", ["tool_calls", "stop", "length", "content_filter"])
def test_finish_reason_reaches_chat_openai(finish: str) -> None:
    wire = DIALECT.render(PLANS["single"].model_copy(update={"finish": finish}))
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.response_metadata["finish_reason"] == finish
    assert merged.usage_metadata is not None
    assert merged.usage_metadata["input_tokens"] == 75


def test_eof_ends_after_the_last_fragment() -> None:
    plan = PLANS["single"].model_copy(update={"finish": "eof", "text_after": "Done."})
    wire = DIALECT.render(plan)
    last_delta = _payloads(wire)[-1]["choices"][0]["delta"]
    assert list(last_delta) == ["tool_calls"]
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.tool_calls[0]["args"] == {"city": "Paris"}
    assert merged.usage_metadata is None
    assert "finish_reason" not in merged.response_metadata


@pytest.mark.asyncio
async def test_error_inside_the_stream_raises_after_the_fragments() -> None:
    stream, wire = _render("parallel", "none")
    wire = DIALECT.render(stream.plan.model_copy(update={"finish": "error"}))
    seen: list[AIMessageChunk] = []

    async def consume() -> None:
        async for chunk in _chat_model(wire).astream(MESSAGES):
            seen.append(chunk)

    with pytest.raises(openai.APIError, match="The server had an error") as raised:
        await consume()
    assert not isinstance(raised.value, openai.APIStatusError)
    reading = read_chat_stream(wire.body)
    assert [chunk.tool_call_chunks for chunk in seen] == reading.deltas
    assert reading.error == f"APIError: {raised.value.message}"
    assert reference_merge(reading.deltas).calls() == DIALECT.planned_calls(stream.plan)


# --- EVENTS quirks ----------------------------------------------------------------------


def test_no_usage_chunk_drops_every_usage_key() -> None:
    wire = DIALECT.render(PLANS["single"], ["no_usage_chunk"])
    payloads = _payloads(wire)
    assert all("usage" not in p for p in payloads)
    assert payloads[-1]["choices"][0]["finish_reason"] == "tool_calls"
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.usage_metadata is None
    assert merged.tool_calls[0]["id"] == DIALECT.planned_calls(PLANS["single"])[0]["id"]


def test_type_on_every_chunk_and_null_fields() -> None:
    quirks = ["type_on_every_chunk", "null_continuation_fields"]
    wire = DIALECT.render(PLANS["single"], quirks)
    deltas = [p["choices"][0]["delta"] for p in _payloads(wire) if p["choices"]]
    entries = [entry for delta in deltas for entry in delta.get("tool_calls", [])]
    assert all(e["type"] == "function" for e in entries)
    assert all(e["id"] is None and e["function"]["name"] is None for e in entries[1:])
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.tool_calls == reference_merge(DIALECT.parse(wire.body)).tool_calls
    assert reference_merge(DIALECT.parse(wire.body)).calls() == DIALECT.planned_calls(
        PLANS["single"]
    )


def test_first_call_on_role_chunk_matches_the_older_shape() -> None:
    wire = DIALECT.render(PLANS["parallel"], ["first_call_on_role_chunk"])
    first, second = _payloads(wire)[:2]
    assert list(first["choices"][0]["delta"]) == ["role", "content", "tool_calls", "refusal"]
    assert list(first)[-3:] == ["choices", "usage", "obfuscation"]
    assert second["choices"][0]["delta"]["tool_calls"][0].keys() == {"index", "function"}
    chunks = list(_chat_model(wire).stream(MESSAGES))
    assert reference_merge(DIALECT.parse(wire.body)).calls() == DIALECT.planned_calls(
        PLANS["parallel"]
    )
    assert add_ai_message_chunks(*chunks).tool_calls[1]["name"] == "get_time"


def test_reasoning_deltas_come_first_and_chat_openai_ignores_them() -> None:
    plan = PLANS["text_then_call"].model_copy(update={"reasoning": "The user wants weather."})
    plain = _payloads(DIALECT.render(plan))
    assert not any("reasoning_content" in p["choices"][0]["delta"] for p in plain if p["choices"])
    wire = DIALECT.render(plan, [{"kind": "reasoning_deltas"}])
    deltas = [p["choices"][0]["delta"] for p in _payloads(wire) if p["choices"]]
    assert deltas[0] == {"role": "assistant", "content": None, "reasoning_content": ""}
    reasoning = "".join(d.get("reasoning_content") or "" for d in deltas)
    assert reasoning == plan.reasoning
    merged = add_ai_message_chunks(*_chat_model(wire).stream(MESSAGES))
    assert merged.content == plan.text_before
    assert merged.tool_calls == reference_merge(DIALECT.parse(wire.body)).tool_calls


def test_envelope_options_remove_their_keys() -> None:
    quirks = ["no_obfuscation", "no_service_tier", "no_logprobs"]
    for payload in _payloads(DIALECT.render(PLANS["single"], quirks)):
        assert {"obfuscation", "service_tier"}.isdisjoint(payload)
        assert all("logprobs" not in choice for choice in payload["choices"])


def test_rendering_is_deterministic_for_a_seed() -> None:
    assert DIALECT.render(PLANS["parallel"], seed=3) == DIALECT.render(PLANS["parallel"], seed=3)
    assert DIALECT.render(PLANS["parallel"], seed=3) != DIALECT.render(PLANS["parallel"], seed=4)


class _ForeignEvent(Quirk):
    """An EVENTS quirk of some other dialect; no ``kind`` default, so it never registers."""

    kind: str
    stage: ClassVar[Stage] = Stage.EVENTS


def test_an_event_quirk_of_another_dialect_is_refused() -> None:
    foreign = _ForeignEvent(kind="foreign_event")
    assert "foreign_event" not in quirk_kinds()
    with pytest.raises(
        TooltapeUsageError,
        match=r"foreign_event cannot be rendered.*another dialect.*no_usage_chunk",
    ):
        DIALECT.events(stream_plan(PLANS["single"]), [foreign])


# --- validate ---------------------------------------------------------------------------

CALL = {"id": "call_A", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALL_B = {**CALL, "id": "call_B"}
USER = {"role": "user", "content": "hi"}


def _assistant(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _tool(call_id: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


REJECTED: list[Any] = [
    pytest.param(
        [USER, _assistant(CALL, CALL_B), _tool("call_A"), USER],
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_B",
        "messages.[3].role",
        None,
        id="dangling",
    ),
    pytest.param(
        [USER, _assistant(CALL)],
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_A",
        "messages",
        None,
        id="dangling-at-end",
    ),
    pytest.param(
        [USER, _tool("call_A")],
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
        "messages.[1].role",
        None,
        id="orphan",
    ),
    pytest.param(
        [USER, _assistant(CALL), _tool("call_A"), _tool("call_A")],
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_A', in messages[2] and "
        "messages[3].",
        "messages.[3].tool_call_id",
        None,
        id="duplicate",
    ),
    pytest.param(
        [USER, _assistant({**CALL, "id": ""}), _tool("")],
        "Invalid 'messages[1].tool_calls[0].id': empty string. Expected a string with minimum "
        "length 1, but got an empty string instead.",
        "messages[1].tool_calls[0].id",
        "empty_string",
        id="empty-id",
    ),
    pytest.param(
        [USER, _assistant({**CALL, "id": None}), _tool("call_A")],
        "Invalid type for 'messages[1].tool_calls[0].id': expected a string, but got null instead.",
        "messages[1].tool_calls[0].id",
        "invalid_type",
        id="null-id",
    ),
    pytest.param(
        [USER, _assistant(CALL), {"role": "tool", "content": "ok"}],
        "Missing required parameter: 'messages[2].tool_call_id'.",
        "messages[2].tool_call_id",
        "missing_required_parameter",
        id="missing-tool-call-id",
    ),
    pytest.param(
        [USER, {"role": "assistant", "content": "x", "tool_calls": []}],
        "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead.",
        "messages[1].tool_calls",
        "empty_array",
        id="empty-tool-calls",
    ),
]

ACCEPTED: list[Any] = [
    pytest.param([USER], id="first-turn"),
    pytest.param([USER, _assistant(CALL, CALL_B), _tool("call_B"), _tool("call_A")], id="paired"),
    pytest.param([USER, _assistant(CALL, CALL), _tool("call_A"), USER], id="dup-call-one-reply"),
    pytest.param([USER, {"role": "assistant", "content": "hello"}, USER], id="text-turn"),
]


def _validating_transport(wire: Wire, seen: list[httpx2.Request]) -> httpx2.MockTransport:
    """A fake provider that answers like the real API: validate the history, then stream."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        provider_request = ProviderRequest(
            method=request.method, path=request.url.path, body=request.content
        )
        error = DIALECT.validate(provider_request)
        if error is not None:
            return httpx2.Response(error.status, json=error.body)
        return httpx2.Response(200, headers=list(wire.headers), stream=_Reads(wire.reads))

    return httpx2.MockTransport(handler)


def _validating_sdk(wire: Wire, seen: list[httpx2.Request]) -> openai.OpenAI:
    client = httpx2.Client(transport=_validating_transport(wire, seen))
    return openai.OpenAI(
        api_key="sk-test", base_url="http://fake/v1", http_client=client, max_retries=0
    )


@pytest.mark.parametrize(("messages", "text", "param", "code"), REJECTED)
def test_broken_history_raises_bad_request_through_the_sdk(
    messages: list[Any], text: str, param: str, code: str | None
) -> None:
    seen: list[httpx2.Request] = []
    client = _validating_sdk(DIALECT.render(PLANS["single"]), seen)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=messages, stream=True)
    body = {"message": text, "type": "invalid_request_error", "param": param, "code": code}
    assert raised.value.body == body
    assert raised.value.message == f"Error code: 400 - {text}"
    assert [request.url.path for request in seen] == [DIALECT.path]


@pytest.mark.parametrize("messages", ACCEPTED)
def test_valid_history_streams(messages: list[Any]) -> None:
    client = _validating_sdk(DIALECT.render(PLANS["single"]), [])
    chunks = list(client.chat.completions.create(model="m", messages=messages, stream=True))
    assert chunks[-1].usage is not None


def test_chat_openai_history_without_ids_is_rejected() -> None:
    """A call merged with ``id=None`` (missing_id) cannot be replayed to OpenAI."""
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key=SecretStr("sk-test"),
        base_url="http://fake/v1",
        max_retries=0,
        http_client=httpx2.Client(
            transport=_validating_transport(DIALECT.render(PLANS["single"]), [])
        ),
    )
    history = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {}, "id": "call_A"}]),
        ToolMessage("sunny", tool_call_id="call_A"),
    ]
    assert add_ai_message_chunks(*model.stream(history)).tool_calls  # a good history streams
    broken = [
        history[0],
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {}, "id": None}]),
    ]
    with pytest.raises(openai.BadRequestError, match=r"messages\[1\]\.tool_calls\[0\]\.id"):
        list(model.stream(broken))
