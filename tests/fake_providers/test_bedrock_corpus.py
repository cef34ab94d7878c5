"""The Bedrock dialects against real recordings (tests/corpus/bedrock).

parse() must equal what ChatBedrockConverse / ChatBedrock yield from the
recorded bytes, served by the real server; and a plan with the recorded calls
must render the recorded event types, per-type payload field sets and
ordering (repeated deltas collapsed). Recorded ``:event-type``,
``:content-type`` and ``:message-type`` headers must match ours exactly.
"""

from __future__ import annotations

import base64
import functools
import json
import operator
from typing import Any

import pytest
from _adapter_streams import adapter_messages
from _corpus import corpus_params
from langchain_aws import ChatBedrock, ChatBedrockConverse
from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import FakeProvider, Wire
from tooltape.fake_providers.dialects.bedrock._converse import BedrockConverseDialect
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    decode_eventstream,
)
from tooltape.fake_providers.dialects.bedrock._invoke import BedrockInvokeDialect
from tooltape.harness import Plan, reference_merge

CONVERSE = BedrockConverseDialect()
INVOKE = BedrockInvokeDialect()
CONVERSE_RECORDS = corpus_params("bedrock_converse_stream")
INVOKE_RECORDS = corpus_params("bedrock_invoke_stream")
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
FINISHES = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}
# Fields that came with newer models (2025-2026) and are absent from older recordings.
VERSIONED = {"serverToolUsage", "cache_creation_input_tokens", "cache_read_input_tokens"}


def body_of(record: dict[str, Any]) -> bytes:
    assert record["response_body_encoding"] == "base64"
    return base64.b64decode(record["response_body"])


def events_of(body: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    return [(m.event_type, json.loads(m.payload)) for m in decode_eventstream(body)]


def inner_events(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(base64.b64decode(data["bytes"])) for _, data in events_of(body)]


# --- parse() equals the adapter on the recorded bytes ------------------------------------------


def adapter_deltas(chunks: list[AIMessageChunk]) -> list[list[Any]]:
    return [chunk.tool_call_chunks for chunk in adapter_messages(chunks)]


def replay(endpoint, dialect, body: bytes, chat_class, model: str) -> list[AIMessageChunk]:
    wire = Wire(reads=(body,), headers=(("content-type", EVENTSTREAM_MEDIA_TYPE),))
    endpoint.serve(FakeProvider(dialect).stream(wire))
    return list(endpoint.chat(chat_class, model, ["any_tool"]).stream("hi"))


@pytest.mark.parametrize("record", CONVERSE_RECORDS)
def test_parse_equals_chat_bedrock_converse_on_recording(bedrock_endpoint, record):
    body = body_of(record)
    chunks = replay(
        bedrock_endpoint, CONVERSE, body, ChatBedrockConverse, record["observed"]["model"]
    )
    parsed = CONVERSE.parse(body)
    assert adapter_deltas(chunks) == parsed
    merged = functools.reduce(operator.add, chunks)
    assert merged.tool_calls == reference_merge(parsed).tool_calls
    named = [call for call in merged.tool_calls if call["name"]]
    assert len(named) == record["observed"]["client_calls"]
    # Pinned: a server tool's input (Nova's code interpreter) becomes a nameless, id-less call.
    nameless = [call for call in merged.tool_calls if not call["name"]]
    assert len(nameless) == record["observed"]["server_calls"]
    assert all(call["id"] is None for call in nameless)


@pytest.mark.parametrize("record", INVOKE_RECORDS)
def test_parse_equals_chat_bedrock_on_recording(bedrock_endpoint, record):
    body = body_of(record)
    chunks = replay(bedrock_endpoint, INVOKE, body, ChatBedrock, CLAUDE)
    parsed = INVOKE.parse(body)
    assert adapter_deltas(chunks) == parsed
    assert len(reference_merge(parsed).tool_calls) == record["observed"]["client_calls"]


# --- our rendering looks like the recording ----------------------------------------------------


def converse_plan(events: list[tuple[str | None, dict[str, Any]]]) -> tuple[Plan, list[str]]:
    """The plan a Converse recording carries out, and the quirks that match its shape."""
    blocks: dict[int, dict[str, Any]] = {}
    stop_reason, quirks = "end_turn", []
    for name, data in events:
        index = data.get("contentBlockIndex")
        if name == "contentBlockStart":
            blocks[index] = {**data["start"], "input": ""}
            if "type" not in data["start"].get("toolUse", {"type": "tool_use"}):
                quirks = ["no_tool_use_type"]
        elif name == "contentBlockDelta":
            block, delta = blocks.setdefault(index, {"text": ""}), data["delta"]
            if "toolUse" in delta:
                block["input"] += delta["toolUse"]["input"]
            else:
                block["text"] = block.get("text", "") + delta.get("text", "")
        elif name == "messageStop":
            stop_reason = data["stopReason"]
    ordered = [blocks[n] for n in sorted(blocks)]
    tools = [n for n, b in enumerate(ordered) if "toolUse" in b]
    texts = [(n, b["text"]) for n, b in enumerate(ordered) if "text" in b]
    calls = [
        {
            "name": b["toolUse"]["name"],
            "id": b["toolUse"]["toolUseId"],
            "args": json.loads(b["input"]),
        }
        for b in ordered
        if "toolUse" in b
    ]
    plan = Plan(
        calls=calls,
        text_before="".join(t for n, t in texts if not tools or n < tools[0]),
        text_after="".join(t for n, t in texts if tools and n > tools[-1]),
        finish=FINISHES[stop_reason],
    )
    return plan, quirks


def is_client_tool(start: dict[str, Any]) -> bool:
    return "toolUse" in start and start["toolUse"].get("type", "tool_use") == "tool_use"


def client_blocks_only(events: list[tuple[str | None, dict[str, Any]]]) -> list[Any]:
    """Leave out server-tool and tool-result blocks, which a plan cannot ask for."""
    server = {
        data["contentBlockIndex"]
        for name, data in events
        if name == "contentBlockStart" and not is_client_tool(data["start"])
    }
    return [(n, d) for n, d in events if d.get("contentBlockIndex") not in server]


def converse_shape(events: list[tuple[str | None, dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """Per event: type, payload fields and the start/delta member fields; repeats collapsed."""
    out: list[tuple[Any, ...]] = []
    for name, data in events:
        item: tuple[Any, ...] = (name, tuple(sorted(data)))
        if name in ("contentBlockStart", "contentBlockDelta"):
            union = data["start" if name == "contentBlockStart" else "delta"]
            (kind,) = union
            inner = union[kind]
            item += (
                kind,
                tuple(sorted(inner)) if isinstance(inner, dict) else type(inner).__name__,
            )
        if name == "metadata":
            item += (tuple(sorted(set(data["usage"]) - VERSIONED)), tuple(sorted(data["metrics"])))
        if not out or out[-1] != item:
            out.append(item)
    return out


def headers_of(body: bytes) -> list[tuple[str, ...]]:
    return [tuple(m.headers) for m in decode_eventstream(body)]


@pytest.mark.parametrize("record", CONVERSE_RECORDS)
def test_converse_rendering_has_the_recorded_shape(record):
    body = body_of(record)
    recorded = client_blocks_only(events_of(body))
    plan, quirks = converse_plan(recorded)
    rendered = CONVERSE.render(plan, quirks).body
    assert converse_shape(events_of(rendered)) == converse_shape(recorded)
    assert set(headers_of(rendered)) == set(headers_of(body))
    assert reference_merge(CONVERSE.parse(rendered)).calls() == plan.expected_calls()


def invoke_plan(events: list[dict[str, Any]]) -> Plan:
    blocks: dict[int, dict[str, Any]] = {}
    stop_reason = None
    for data in events:
        if data["type"] == "content_block_start":
            blocks[data["index"]] = {**data["content_block"], "json": ""}
        elif data["type"] == "content_block_delta":
            block, delta = blocks[data["index"]], data["delta"]
            block["json"] += delta.get("partial_json", "")
            block["text"] = block.get("text", "") + delta.get("text", "")
        elif data["type"] == "message_delta":
            stop_reason = data["delta"]["stop_reason"]
    ordered = [blocks[n] for n in sorted(blocks)]
    tools = [n for n, b in enumerate(ordered) if b["type"] == "tool_use"]
    texts = [(n, b["text"]) for n, b in enumerate(ordered) if b["type"] == "text"]
    return Plan(
        calls=[
            {"name": b["name"], "id": b["id"], "args": json.loads(b["json"] or "{}")}
            for b in ordered
            if b["type"] == "tool_use"
        ],
        text_before="".join(t for n, t in texts if not tools or n < tools[0]),
        text_after="".join(t for n, t in texts if tools and n > tools[-1]),
        finish=FINISHES[stop_reason],
    )


def keys(value: Any) -> tuple[str, ...]:
    return tuple(sorted(set(value) - VERSIONED)) if isinstance(value, dict) else ()


def invoke_shape(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for data in events:
        item: tuple[Any, ...] = (data["type"], keys(data))
        inner = data.get("content_block") or data.get("delta") or data.get("message") or {}
        item += (inner.get("type"), keys(inner), keys(inner.get("usage")), keys(data.get("usage")))
        item += (keys(data.get("amazon-bedrock-invocationMetrics")),)
        if not out or out[-1] != item:
            out.append(item)
    return out


@pytest.mark.parametrize("record", INVOKE_RECORDS)
def test_invoke_rendering_has_the_recorded_shape(record):
    body = body_of(record)
    recorded = inner_events(body)
    plan = invoke_plan(recorded)
    rendered = INVOKE.render(plan).body
    assert invoke_shape(inner_events(rendered)) == invoke_shape(recorded)
    assert headers_of(rendered) == [(":event-type", ":content-type", ":message-type")] * len(
        decode_eventstream(rendered)
    )
    assert set(headers_of(rendered)) == set(headers_of(body))
    outer = {tuple(sorted(data)) for _, data in events_of(body)}
    assert {tuple(sorted(data)) for _, data in events_of(rendered)} == outer == {("bytes", "p")}
    assert reference_merge(INVOKE.parse(rendered)).calls() == plan.expected_calls()
