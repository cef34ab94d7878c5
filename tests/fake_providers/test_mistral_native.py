"""The mistral_native dialect against ChatMistralAI (langchain-mistralai) and the mistralai SDK.

Rendered chunks are served through respx (``patch_httpx``; ChatMistralAI uses
httpx) to ``ChatMistralAI.stream()/.astream()``. parse() must equal what the
adapter yields, up to the ``uuid4().hex`` ids it mints for entries with neither
an id nor a truthy index, which are compared by position; the merge must equal
langchain-core's reference and the plan's names and arguments. Every bundled
scenario the wire can say is streamed the same way.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import _adapter_streams as adapter_streams
import httpx
import pytest
from _adapter_streams import (
    MINTED_ID,
    adapter_messages,
    assert_merges_as_parsed,
    by_position,
    merged,
    quirk_id,
    renderable_scenarios,
    without_ids,
)
from _corpus import corpus_records
from langchain_core.messages import AIMessageChunk
from langchain_mistralai import ChatMistralAI

from tooltape.fake_providers import FakeProvider, Wire, get_dialect, patch_httpx
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.dialects.mistral_native import MistralNativeDialect
from tooltape.fake_providers.dialects.mistral_native._parse import read_mistral_stream
from tooltape.harness import Plan, TooltapeUsageError, reference_merge

pytestmark = pytest.mark.slow

DIALECT = MistralNativeDialect()
stream_chat = functools.partial(adapter_streams.stream_chat, DIALECT.name)
BASE = "http://fake-mistral/v1"
WEATHER = {"name": "get_weather", "args": {"city": "Paris", "days": 3}, "id": "D681PevKs"}
TIME = {"name": "get_time", "args": {"tz": "Europe/Paris"}, "id": "aB3dE6gH9"}
PLANS = {
    "single": Plan(calls=[WEATHER]),
    "parallel": Plan(calls=[WEATHER, TIME]),
    "text_then_call": Plan(text_before="Let me check the weather.", calls=[WEATHER]),
    "thinking_text_calls": Plan(
        reasoning="The user wants Paris.", text_before="Checking.", calls=[WEATHER, TIME]
    ),
    "non_ascii": Plan(calls=[{"name": "say", "args": {"text": "Zürich 北京 😀 <b> &"}}]),
    "empty_args": Plan(calls=[{"name": "ping_server", "args": {}, "id": "pingPing1"}]),
}
QUIRKS: list[list[Any]] = [  # lossless ones: test_chat_model_contract.py
    ["whole_call", {"kind": "pack_fragments", "size": 8}],
    ["no_index"],
    ["missing_id"],
    ["missing_id", "no_index"],
    ["duplicate_ids"],
]


def chat() -> ChatMistralAI:
    model: ChatMistralAI = DIALECT.chat_model(BASE)
    return model


def adapter_deltas(chunks: list[AIMessageChunk]) -> Any:
    return by_position([c.tool_call_chunks for c in adapter_messages(chunks)])


def check_against_chat(wire: Wire, plan: Plan, chunks: Any, error: Any) -> None:
    assert error is None
    reference = assert_merges_as_parsed(chunks, DIALECT.parse(wire.body), by_position)
    assert reference.invalid_tool_calls == []
    usage = merged(chunks).usage_metadata
    assert usage and usage["output_tokens"] > 0
    assert without_ids(reference.calls()) == without_ids(plan.expected_calls())


# --- ChatMistralAI: parse() is exactly what the adapter yields ------------------------------


@pytest.mark.parametrize("quirks", QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_mistral_stream(plan_name: str, quirks: list[Any]) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    chunks, error = stream_chat(wire)
    check_against_chat(wire, plan, chunks, error)


@pytest.mark.parametrize("scenario", renderable_scenarios("mistral_native"))
def test_bundled_scenarios_parse_as_chat_mistral_streams_them(scenario: Any) -> None:
    wire = DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)
    chunks, error = stream_chat(wire)
    reading = read_mistral_stream(wire.body)
    assert adapter_deltas(chunks) == by_position(reading.deltas)
    if isinstance(error, httpx.TransportError):  # the socket closed: not in the body
        assert "close_mid_event" in scenario.quirks
    else:
        assert (error is None) == (reading.error is None)


def test_enough_bundled_scenarios_render() -> None:
    names = {p.id for p in renderable_scenarios("mistral_native")}
    assert {"openai_golden", "parallel_sequential", "whole_call", "missing_id"} <= names
    assert "split_name" not in names and "truncated_mid_string" not in names


# --- the wire -----------------------------------------------------------------------------


def test_calls_arrive_whole_with_the_plan_ids_and_usage_on_the_last_chunk() -> None:
    wire = DIALECT.render(PLANS["parallel"], ["whole_call", {"kind": "pack_fragments", "size": 8}])
    *chunks, done = wire.body.decode().split("\n\n")[:-1]
    assert done == "data: [DONE]"
    last = json.loads(chunks[-1].removeprefix("data: "))
    calls = last["choices"][0]["delta"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_time"]
    assert [c["id"] for c in calls] == ["D681PevKs", "aB3dE6gH9"]
    assert [c["type"] for c in calls] == ["function", "function"] and calls[1]["index"] == 1
    assert json.loads(calls[0]["function"]["arguments"]) == WEATHER["args"]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and last["usage"]["total_tokens"]


def test_missing_id_at_index_zero_gets_a_minted_id_at_other_indexes_none() -> None:
    """ChatMistralAI mints a uuid only when both id and index are falsy."""
    wire = DIALECT.render(PLANS["parallel"], ["missing_id"])
    chunks, _ = stream_chat(wire)
    ids = [c["id"] for m in chunks for c in m.tool_call_chunks]
    assert MINTED_ID.match(ids[0]) and ids[1] is None


@pytest.mark.parametrize("finish", ["stop", "length", "error"])
def test_finish_reason_reaches_chat_mistral(finish: str) -> None:
    plan = PLANS["single"].model_copy(update={"finish": finish})
    chunks, error = stream_chat(DIALECT.render(plan))
    assert error is None
    assert adapter_messages(chunks)[-1].response_metadata["finish_reason"] == finish


def test_eof_ends_without_finish_or_done() -> None:
    wire = DIALECT.render(PLANS["parallel"].model_copy(update={"finish": "eof"}))
    assert b"[DONE]" not in wire.body and b'"finish_reason":"' not in wire.body
    chunks, error = stream_chat(wire)
    assert error is None and len(functools.reduce(operator.add, chunks).tool_calls) == 2


@pytest.mark.parametrize("kind", ["split_args", "truncate_args", "interleave_calls"])
def test_what_the_wire_cannot_say_is_refused_with_the_reason(kind: str) -> None:
    with pytest.raises(TooltapeUsageError, match="mistral_native") as raised:
        DIALECT.render(PLANS["parallel"], [kind])
    assert "Mistral sends each call whole in one delta" in str(raised.value)


def test_content_filter_is_refused() -> None:
    with pytest.raises(TooltapeUsageError, match="content_filter"):
        DIALECT.render(PLANS["single"].model_copy(update={"finish": "content_filter"}))


def test_non_streamed_answer_reaches_chat_mistral_invoke() -> None:
    provider = FakeProvider(DIALECT, base_url=BASE).stream(PLANS["parallel"])
    with patch_httpx(provider):
        message = chat().invoke("hi")
    assert provider.requests[0].json()["stream"] is False
    assert without_ids(message.tool_calls) == without_ids(PLANS["parallel"].expected_calls())


# --- validation -----------------------------------------------------------------------------


def request(body: Any) -> ProviderRequest:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return ProviderRequest("POST", DIALECT.path, {"content-type": "application/json"}, raw, {})


def detail(body: Any) -> tuple[int, list[dict[str, Any]]]:
    error = DIALECT.validate(request(body))
    assert error is not None
    assert error.body["object"] == "error" and error.body["type"] == "invalid_request_error"
    return error.status, error.body["message"]["detail"]


def test_missing_messages_is_a_422_field_required() -> None:
    status, entries = detail({"model": DIALECT.model})
    assert status == 422
    assert [(e["type"], e["loc"], e["msg"]) for e in entries] == [
        ("missing", ["body", "messages"], "Field required")
    ]


@pytest.mark.parametrize(
    ("choice", "kind", "loc"),
    [
        ("sometimes", "enum", ["body", "tool_choice"]),
        ({"type": "function"}, "missing", ["body", "tool_choice", "function", "name"]),
    ],
)
def test_a_bad_tool_choice_is_a_422(choice: Any, kind: str, loc: list[str]) -> None:
    body = {"model": DIALECT.model, "messages": [], "tool_choice": choice}
    status, entries = detail(body)
    assert status == 422 and [(e["type"], e["loc"]) for e in entries] == [(kind, loc)]


@pytest.mark.parametrize("choice", ["auto", "none", "any", "required"])
def test_every_documented_tool_choice_is_accepted(choice: str) -> None:
    body = {"model": DIALECT.model, "messages": [], "tool_choice": choice}
    assert DIALECT.validate(request(body)) is None
    named = {"type": "function", "function": {"name": "get_weather"}}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    assert DIALECT.validate(request({**body, "tools": tools, "tool_choice": named})) is None


def test_a_foreign_tool_call_id_is_mistrals_400() -> None:
    """Replayed ids must be 9 letters and digits."""
    messages = [{"role": "tool", "tool_call_id": "call_abc123def456", "content": "sunny"}]
    error = DIALECT.validate(request({"model": DIALECT.model, "messages": messages}))
    assert error is not None and error.status == 400
    assert error.body["message"] == (
        "Tool call id was call_abc123def456 but must be a-z, A-Z, 0-9, with a length of 9."
    )


def test_a_broken_body_reaches_chat_mistral_as_http_status_error() -> None:
    provider = FakeProvider(DIALECT, base_url=BASE).stream(PLANS["single"])
    with patch_httpx(provider), pytest.raises(httpx.HTTPStatusError, match="422"):
        list(chat().stream("hi", tool_choice="sometimes"))


def test_get_dialect_finds_mistral_native_beside_the_mistral_profile() -> None:
    assert isinstance(get_dialect("mistral_native"), MistralNativeDialect)
    profile = get_dialect("mistral")
    assert profile.path == DIALECT.path and type(profile) is not MistralNativeDialect


# --- the real recordings (tests/corpus/mistral) ----------------------------------------------


def mistral_recordings() -> list[Any]:
    params = [
        pytest.param(record, id=name)
        for name, record in corpus_records("chat_completions")
        if record["provider"] == "mistral"
    ]
    assert params, "no mistral recording in the corpus"
    return params


@pytest.mark.parametrize("record", mistral_recordings())
def test_parse_equals_chat_mistral_on_real_recordings(record: dict[str, Any]) -> None:
    wire = Wire(reads=(str(record["response_body"]).encode(),))
    chunks, error = stream_chat(wire)
    assert error is None
    parsed = DIALECT.parse(wire.body)
    assert adapter_deltas(chunks) == by_position(parsed)
    assert reference_merge(parsed).calls(), "every Mistral recording streams a tool call"
