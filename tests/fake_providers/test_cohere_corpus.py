"""The cohere_v2 dialect against real Cohere recordings (tests/corpus/cohere).

parse() (and the astream reading) must equal what ChatCohere yields from the
recorded bytes, and a plan with the recorded calls and tool plan must render
with the recording's event types, field sets, ordering and framing.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from _adapter_streams import adapter_messages, by_position
from _corpus import corpus_params
from langchain_cohere import ChatCohere
from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import FakeProvider, Wire, decode_sse, patch_httpx
from tooltape.fake_providers.dialects.cohere._dialect import CohereV2Dialect
from tooltape.fake_providers.dialects.cohere._parse import read_cohere_stream
from tooltape.harness import Plan, reference_merge

DIALECT = CohereV2Dialect()
RECORDS = corpus_params("cohere_v2_chat")


def body_of(record: dict[str, Any]) -> bytes:
    return record["response_body"].encode()


def tool_chunks(chunks: list[AIMessageChunk]) -> list[list[Any]]:
    return [list(c.tool_call_chunks) for c in adapter_messages(chunks)]


def chat_cohere_chunks(body: bytes, *, asynchronous: bool) -> list[AIMessageChunk]:
    llm = ChatCohere(cohere_api_key="k", model="command-r")

    async def collect() -> list[AIMessageChunk]:
        return [chunk async for chunk in llm.astream("hi")]

    with patch_httpx(FakeProvider(DIALECT).stream(Wire(reads=(body,)))):
        return asyncio.run(collect()) if asynchronous else list(llm.stream("hi"))


def recorded_plan(body: bytes) -> Plan:
    """The calls (ids, names, arguments) and tool plan the recording carries."""
    events = [e.json() for e in decode_sse(body) if e.data != "[DONE]"]
    calls: dict[int, dict[str, Any]] = {}
    for event in events:
        if event["type"] == "tool-call-start":
            call = event["delta"]["message"]["tool_calls"]
            calls[event["index"]] = {"id": call["id"], "name": call["function"]["name"]}
            calls[event["index"]]["text"] = call["function"]["arguments"]
        elif event["type"] == "tool-call-delta":
            calls[event["index"]]["text"] += event["delta"]["message"]["tool_calls"]["function"][
                "arguments"
            ]
    tool_plan = "".join(
        e["delta"]["message"]["tool_plan"] for e in events if e["type"] == "tool-plan-delta"
    )
    planned = [
        {"name": c["name"], "args": json.loads(c["text"]), "id": c["id"]} for c in calls.values()
    ]
    return Plan(text_before=tool_plan, calls=planned)


def key_paths(value: Any, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        paths = set()
        for key, item in value.items():
            paths |= {f"{prefix}{key}"} | key_paths(item, f"{prefix}{key}.")
        return paths
    if isinstance(value, list):
        return set().union(*(key_paths(item, f"{prefix}[].") for item in value))
    return set()


def shape(body: bytes) -> dict[str, Any]:
    """Event types in order (runs collapsed), field sets per type, framing facts."""
    events = decode_sse(body)
    types = [e.event or e.data for e in events]
    fields: dict[str, set[str]] = {}
    for event in events:
        if event.data != "[DONE]":
            payload = event.json()
            assert payload["type"] == event.event  # the event: line names the type
            fields.setdefault(event.event, set()).update(key_paths(payload))
    return {
        "order": [kind for kind, _ in itertools.groupby(types)],
        "fields": fields,
        "compact": all(e.data == _compact(e.data) for e in events if e.data != "[DONE]"),
        "done_has_event_line": any(e.event for e in events if e.data == "[DONE]"),
        "message_start_keys": list(events[0].json()["delta"]["message"]),
    }


def _compact(data: str) -> str:
    return json.dumps(json.loads(data), separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("record", RECORDS)
def test_parse_equals_chat_cohere_stream_on_recorded_bytes(record: dict[str, Any]) -> None:
    body = body_of(record)
    parsed = DIALECT.parse(body)
    assert by_position(tool_chunks(chat_cohere_chunks(body, asynchronous=False))) == by_position(
        parsed
    )
    assert read_cohere_stream(body).error is None
    # the whole calls of the last chunk carry the recorded ids
    assert reference_merge(parsed).calls()[-2:] == recorded_plan(body).expected_calls()


@pytest.mark.parametrize("record", RECORDS)
def test_astream_reading_equals_chat_cohere_astream_on_recorded_bytes(
    record: dict[str, Any],
) -> None:
    body = body_of(record)
    reading = read_cohere_stream(body, mode="astream")
    assert tool_chunks(chat_cohere_chunks(body, asynchronous=True)) == reading.deltas
    assert reference_merge(reading.deltas).calls() == recorded_plan(body).expected_calls()
    assert record["observed"]["n_tool_calls"] == len(reading.deltas[-1])


@pytest.mark.parametrize("record", RECORDS)
def test_rendering_has_the_recorded_events_fields_and_order(record: dict[str, Any]) -> None:
    body = body_of(record)
    plan = recorded_plan(body)
    rendered = DIALECT.render(plan).body
    assert shape(rendered) == shape(body)
    assert DIALECT.media_type == record["response_content_type"]
    assert recorded_plan(rendered).expected_calls() == plan.expected_calls()
