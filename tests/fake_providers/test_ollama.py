"""The ollama dialect against ollama-python and ChatOllama.

Rendered lines are served through respx (``patch_httpx``; ollama-python uses
httpx) and once through the real server, to ``ChatOllama.stream()/.astream()``
and to ``ollama.Client.chat(stream=True)`` (sync and async). parse() must equal
what ChatOllama yields, up to the random uuid4 ids it mints per call, which are
compared by position; the merge must equal langchain-core's reference and the
plan's names and arguments.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import _adapter_streams as adapter_streams
import httpx
import ollama
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
from langchain_ollama import ChatOllama

from tooltape.fake_providers import FakeProvider, Wire, patch_httpx, serve_in_thread
from tooltape.fake_providers.dialects.ollama._dialect import OllamaDialect
from tooltape.fake_providers.dialects.ollama._parse import read_ollama_stream
from tooltape.harness import Plan, parse_quirk, reference_merge

pytestmark = pytest.mark.slow

DIALECT = OllamaDialect()
stream_chat = functools.partial(adapter_streams.stream_chat, DIALECT.name)
astream_chat = functools.partial(adapter_streams.astream_chat, DIALECT.name)
BASE = "http://fake-ollama:11434"
MODEL = "llama3.1:8b"
WEATHER = {"name": "get_weather", "args": {"city": "Paris", "days": 3}, "id": "call_weather"}
TIME = {"name": "get_time", "args": {"tz": "Europe/Paris"}, "id": "call_time"}
PLANS = {
    "single": Plan(calls=[WEATHER]),
    "parallel": Plan(calls=[WEATHER, TIME]),
    "text_then_call": Plan(text_before="Let me check the weather.", calls=[WEATHER]),
    "thinking_text_calls": Plan(
        reasoning="The user wants Paris.", text_before="Checking.", calls=[WEATHER, TIME]
    ),
    "non_ascii": Plan(
        calls=[{"name": "say", "args": {"text": "Zürich 北京 😀 <b> & \u2028"}, "id": "call_say"}]
    ),
    "empty_args": Plan(calls=[{"name": "ping_server", "args": {}, "id": "call_ping"}]),
}
QUIRKS: list[list[Any]] = [  # lossless ones: test_chat_model_contract.py
    ["whole_call", {"kind": "pack_fragments", "size": 2}],
    ["missing_id"],
    ["missing_id", "no_index"],
    ["duplicate_ids"],
    ["reemitted_calls"],
]


# --- serving -----------------------------------------------------------------------------


def check_against_chat(wire: Wire, plan: Plan, quirks: list[Any], chunks, error) -> None:
    assert error is None
    reference = assert_merges_as_parsed(chunks, DIALECT.parse(wire.body), by_position)
    assert reference.invalid_tool_calls == []
    usage = merged(chunks).usage_metadata
    assert usage and usage["output_tokens"] > 0
    calls = reference.calls()
    assert all(MINTED_ID.match(call["id"]) for call in calls)  # ChatOllama drops the wire's ids
    expected = without_ids(plan.expected_calls())
    if any(parse_quirk(q).kind == "reemitted_calls" for q in quirks):
        expected = [call for call in expected for _ in (0, 1)]  # each line is sent twice
    assert without_ids(calls) == expected


# --- ChatOllama: parse() is exactly what the adapter yields ------------------------------


@pytest.mark.parametrize("quirks", QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
def test_parse_equals_chat_ollama_stream(plan_name: str, quirks: list[Any]) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=3)
    chunks, error = stream_chat(wire)
    check_against_chat(wire, plan, quirks, chunks, error)


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRKS, ids=quirk_id)
@pytest.mark.parametrize("plan_name", PLANS)
async def test_parse_equals_chat_ollama_astream(plan_name: str, quirks: list[Any]) -> None:
    plan = PLANS[plan_name]
    wire = DIALECT.render(plan, quirks, seed=4)
    chunks, error = await astream_chat(wire)
    check_against_chat(wire, plan, quirks, chunks, error)


@pytest.mark.parametrize("scenario", renderable_scenarios("ollama"))
def test_bundled_scenarios_parse_as_chat_ollama_streams_them(scenario: Any) -> None:
    wire = DIALECT.render(scenario.plan, scenario.quirks, scenario.seed)
    chunks, error = stream_chat(wire)
    parsed = DIALECT.parse(wire.body)
    assert by_position([c.tool_call_chunks for c in adapter_messages(chunks)]) == by_position(
        parsed
    )
    reading = read_ollama_stream(wire.body)
    assert (error is None) == (reading.error is None)
    if scenario.plan.effective_finish not in ("eof", "error"):
        expected = without_ids(scenario.plan.expected_calls())
        assert without_ids(reference_merge(parsed).calls()) == expected


def test_enough_bundled_scenarios_render() -> None:
    names = {p.id for p in renderable_scenarios("ollama")}
    assert {"openai_golden", "parallel_sequential", "whole_call", "missing_id"} <= names
    assert "split_name" not in names and "truncated_mid_string" not in names


# --- the ollama client ---------------------------------------------------------------------


def client_summary(parts: list[Any]) -> dict[str, Any]:
    summary: dict[str, Any] = {"thinking": "", "content": "", "calls": [], "done": []}
    for part in parts:
        summary["thinking"] += part.message.thinking or ""
        summary["content"] += part.message.content or ""
        summary["calls"] += [
            {"name": c.function.name, "args": dict(c.function.arguments)}
            for c in part.message.tool_calls or ()
        ]
        if part.done:
            summary["done"].append(part.done_reason)
    return summary


def expected_summary(plan: Plan) -> dict[str, Any]:
    content = plan.text_before + plan.text_after
    calls = without_ids(plan.expected_calls())
    return {"thinking": plan.reasoning, "content": content, "calls": calls, "done": ["stop"]}


@pytest.mark.parametrize("plan_name", PLANS)
def test_ollama_client_chat_stream_reads_the_plan(plan_name: str) -> None:
    plan = PLANS[plan_name]
    provider = FakeProvider(DIALECT, base_url=BASE).stream(plan, seed=5)
    with patch_httpx(provider):
        parts = list(ollama.Client(host=BASE).chat(model=MODEL, messages=[], stream=True))
    assert client_summary(parts) == expected_summary(plan)
    provider.assert_all_played()


@pytest.mark.asyncio
@pytest.mark.parametrize("plan_name", PLANS)
async def test_async_ollama_client_chat_stream_reads_the_plan(plan_name: str) -> None:
    plan = PLANS[plan_name]
    with patch_httpx(FakeProvider(DIALECT, base_url=BASE).stream(plan, seed=6)):
        stream = await ollama.AsyncClient(host=BASE).chat(model=MODEL, messages=[], stream=True)
        parts = [part async for part in stream]
    assert client_summary(parts) == expected_summary(plan)


def test_ollama_client_drops_the_call_id_ollama_sends() -> None:
    """ollama-python 0.6's ToolCall declares only ``function``: the wire's id is lost."""
    wire = DIALECT.render(PLANS["single"])
    assert b'"id":"call_weather"' in wire.body
    with patch_httpx(FakeProvider(DIALECT, base_url=BASE).stream(wire)):
        parts = list(ollama.Client(host=BASE).chat(model=MODEL, messages=[], stream=True))
    (call,) = [c for p in parts for c in p.message.tool_calls or ()]
    assert "id" not in call and not hasattr(call, "id")


def test_chat_ollama_over_the_real_server() -> None:
    """The same bytes over uvicorn on 127.0.0.1: parse() still equals the adapter."""
    plan = PLANS["thinking_text_calls"]
    wire = DIALECT.render(plan, ["whole_call"])
    provider = FakeProvider(DIALECT, base_url=BASE).stream(wire)
    with serve_in_thread([provider]) as base_url:
        llm = ChatOllama(model=MODEL, base_url=base_url)
        chunks = list(llm.stream("hi"))
        llm._client.close()  # the keep-alive socket, before pytest counts unclosed resources
    assert by_position([c.tool_call_chunks for c in adapter_messages(chunks)]) == by_position(
        DIALECT.parse(wire.body)
    )
    assert provider.requests[0].json()["stream"] is True


# --- pinned adapter behaviour ---------------------------------------------------------------


def test_chat_ollama_mints_new_ids_and_never_sets_an_index() -> None:
    """The provider's ids are ignored; every call gets a fresh uuid4 and index None."""
    plan = PLANS["parallel"]
    wire = DIALECT.render(plan, ["whole_call", {"kind": "pack_fragments", "size": 2}])
    chunks, _ = stream_chat(wire)
    (tool_message,) = [c for c in chunks if c.tool_call_chunks]
    ids = [c["id"] for c in tool_message.tool_call_chunks]
    assert [c["index"] for c in tool_message.tool_call_chunks] == [None, None]
    assert all(MINTED_ID.match(i) for i in ids) and len(set(ids)) == 2
    assert not {"call_weather", "call_time"} & set(ids)


def test_reemitted_calls_run_twice() -> None:
    """A call sent in two lines becomes two calls (index None never merges)."""
    wire = DIALECT.render(PLANS["single"], ["reemitted_calls"])
    chunks, _ = stream_chat(wire)
    merged = functools.reduce(operator.add, chunks)
    assert [c["name"] for c in merged.tool_calls] == ["get_weather", "get_weather"]
    assert merged.tool_calls[0]["id"] != merged.tool_calls[1]["id"]


def test_chat_ollama_band_aid_rewrites_string_arguments() -> None:
    """ollama#6155 band-aid: a string value that parses as a list becomes the list."""
    plan = Plan(calls=[{"name": "run", "args": {"cmd": "[1, 2]", "functionName": "run"}}])
    wire = DIALECT.render(plan)
    chunks, _ = stream_chat(wire)
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls[0]["args"] == {"cmd": [1, 2]}
    assert reference_merge(DIALECT.parse(wire.body)).calls()[0]["args"] == {"cmd": [1, 2]}


def test_chat_ollama_args_are_ascii_escaped_json() -> None:
    chunks, _ = stream_chat(DIALECT.render(PLANS["non_ascii"]))
    (chunk,) = [c for m in chunks for c in m.tool_call_chunks]
    assert chunk["args"] == json.dumps(PLANS["non_ascii"].calls[0].args)
    assert "\\u00fc" in chunk["args"]


@pytest.mark.parametrize("finish", ["stop", "length"])
def test_done_reason_reaches_chat_ollama(finish: str) -> None:
    plan = PLANS["single"].model_copy(update={"finish": finish})
    chunks, _ = stream_chat(DIALECT.render(plan))
    assert adapter_messages(chunks)[-1].response_metadata["done_reason"] == finish


def test_eof_ends_before_the_done_line_without_an_error() -> None:
    plan = PLANS["parallel"].model_copy(update={"finish": "eof"})
    wire = DIALECT.render(plan)
    assert b'"done":true' not in wire.body
    chunks, error = stream_chat(wire)
    assert error is None
    assert len(functools.reduce(operator.add, chunks).tool_calls) == 2
    assert not any(c.usage_metadata for c in chunks)


def test_error_line_raises_response_error_after_the_calls() -> None:
    plan = PLANS["single"].model_copy(update={"finish": "error"})
    wire = DIALECT.render(plan)
    chunks, error = stream_chat(wire)
    assert isinstance(error, ollama.ResponseError)
    assert error.status_code == -1 and "error was encountered" in error.error
    reading = read_ollama_stream(wire.body)
    assert reading.error == f"ResponseError: {error}"
    assert by_position([c.tool_call_chunks for c in chunks]) == by_position(reading.deltas)


def test_a_blank_line_crashes_the_ollama_client() -> None:
    """httpx yields the empty line and ollama-python json-decodes it."""
    first, rest = DIALECT.render(PLANS["single"]).body.split(b"\n", 1)
    wire = Wire(reads=(first + b"\n\n" + rest,))
    chunks, error = stream_chat(wire)
    assert isinstance(error, json.JSONDecodeError)
    reading = read_ollama_stream(wire.body)
    assert reading.error and reading.error.startswith("JSONDecodeError")
    assert by_position(reading.deltas) == by_position([c.tool_call_chunks for c in chunks])
    assert len(chunks) == 1  # the tool-call line before the blank one


def test_load_lines_are_skipped() -> None:
    load = b'{"model":"m","created_at":"t","message":{"role":"assistant","content":""},'
    load += b'"done_reason":"load","done":true}\n'
    wire = Wire(reads=(load + DIALECT.render(PLANS["single"]).body,))
    chunks, _ = stream_chat(wire)
    assert by_position([c.tool_call_chunks for c in adapter_messages(chunks)]) == by_position(
        DIALECT.parse(wire.body)
    )


@pytest.mark.parametrize("kind", ["events_per_read", "split_reads", "split_utf8"])
def test_parse_equals_chat_ollama_under_wire_quirks(kind: str) -> None:
    # No U+2028 here: split_utf8 un-escapes it, and a raw U+2028 ends a line for httpx.
    plan = Plan(calls=[{"name": "say", "args": {"text": "Zürich 北京 😀"}}, TIME])
    wire = DIALECT.render(plan, [kind], seed=1)
    assert wire.reads != DIALECT.render(plan, seed=1).reads
    chunks, error = stream_chat(wire)
    assert error is None
    assert by_position([c.tool_call_chunks for c in adapter_messages(chunks)]) == by_position(
        DIALECT.parse(wire.body)
    )


def test_close_mid_event_raises_after_the_complete_lines() -> None:
    wire = DIALECT.render(PLANS["parallel"], ["whole_call", "close_mid_event"], seed=2)
    chunks, error = stream_chat(wire)
    assert isinstance(error, httpx.RemoteProtocolError)
    assert by_position([c.tool_call_chunks for c in chunks]) == by_position(
        DIALECT.parse(wire.body)
    )


def test_an_empty_stream_raises_in_langchain_core() -> None:
    wire = DIALECT.render(Plan(finish="eof"))
    assert wire.body == b""
    chunks, error = stream_chat(wire)
    assert (chunks, str(error)) == ([], "No generation chunks were returned")
    assert read_ollama_stream(wire.body).error == f"ValueError: {error}"


def test_get_dialect_finds_ollama() -> None:
    from tooltape.fake_providers import dialect_names, get_dialect

    assert isinstance(get_dialect("ollama"), OllamaDialect)
    assert "ollama" in dialect_names()
    assert (DIALECT.path, DIALECT.framing, DIALECT.stream_flag) == ("/api/chat", "ndjson", False)
