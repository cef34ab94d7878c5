"""The anthropic_messages dialect against real recordings (tests/corpus/anthropic).

parse() must equal what ChatAnthropic yields from the recorded bytes, and a plan
with the recorded calls must render the recorded event types, per-type field
sets and ordering (repeated deltas collapsed, pings ignored).
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest
from _adapter_streams import adapter_messages
from _corpus import corpus_params
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import decode_sse
from tooltape.fake_providers.dialects.anthropic._dialect import AnthropicMessagesDialect
from tooltape.harness import Plan, reference_merge

DIALECT = AnthropicMessagesDialect()
RECORDS = corpus_params("anthropic_messages")

# Fields that came and went across API versions in the recordings (2024 to 2026 models).
VERSIONED_FIELDS = {"caller", "stop_details", "context_management"}
# Block types of server tools and citations, which a plan cannot ask for.
UNRENDERED_BLOCKS = ("server_tool_use", "_tool_result", "citations_delta")
FINISHES = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}


class Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A response body handed to the client in one read."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self):
        yield self.body

    async def __aiter__(self):
        yield self.body


def chat(body: bytes) -> Any:
    """ChatAnthropic (a tool bound) whose SDK clients read ``body`` from a mock transport."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers=[("content-type", "text/event-stream")], stream=Reads(body)
        )

    llm = ChatAnthropic(model="claude-sonnet-4-6", api_key="sk-test", max_retries=0)
    mock = httpx2.MockTransport(handler)
    vars(llm)["_client"] = anthropic.Anthropic(
        **llm._client_params, http_client=httpx2.Client(transport=mock)
    )
    vars(llm)["_async_client"] = anthropic.AsyncAnthropic(
        **llm._client_params, http_client=httpx2.AsyncClient(transport=mock)
    )
    schema = {"type": "object", "properties": {}}
    return llm.bind_tools([{"name": "any_tool", "description": "d", "input_schema": schema}])


def adapter_deltas(chunks: list[AIMessageChunk]) -> list[list[Any]]:
    return [chunk.tool_call_chunks for chunk in adapter_messages(chunks)]


def crashes_on_context_management(body: bytes) -> bool:
    return any(
        data.get("type") == "message_delta" and data.get("context_management")
        for _, data in recorded_events(body)
    )


@pytest.mark.parametrize("record", RECORDS)
def test_parse_equals_chat_anthropic_on_recording(record):
    body = record["response_body"].encode()
    chunks: list[AIMessageChunk] = []
    try:
        chunks.extend(chat(body).stream("hi"))
        crashed = False
    except AttributeError:  # pinned below: context_management crashes the adapter
        crashed = True
    assert crashed == crashes_on_context_management(body)
    parsed = DIALECT.parse(body)
    assert adapter_deltas(chunks) == parsed
    assert len(reference_merge(parsed).tool_calls) == record["observed"]["client_calls"]


@pytest.mark.asyncio
@pytest.mark.parametrize("record", RECORDS)
async def test_parse_equals_chat_anthropic_astream_on_recording(record):
    body = record["response_body"].encode()
    chunks: list[AIMessageChunk] = []
    try:
        async for chunk in chat(body).astream("hi"):
            chunks.append(chunk)
        crashed = False
    except AttributeError:
        crashed = True
    assert crashed == crashes_on_context_management(body)
    assert adapter_deltas(chunks) == DIALECT.parse(body)


def recorded_events(body: str | bytes) -> list[tuple[str | None, dict[str, Any]]]:
    return [(e.event, json.loads(e.data)) for e in decode_sse(body) if e.event != "ping"]


def plan_from(events: list[tuple[str | None, dict[str, Any]]]) -> Plan:
    """The plan a recording carries out: its calls, texts, thinking and stop reason."""
    blocks: dict[int, dict[str, Any]] = {}
    stop_reason = None
    for _, data in events:
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
    calls = [
        {"name": b["name"], "id": b["id"], "args": json.loads(b["json"] or "{}")}
        for b in ordered
        if b["type"] == "tool_use"
    ]
    return Plan(
        calls=calls,
        reasoning="thought" if any(b["type"] == "thinking" for b in ordered) else "",
        text_before="".join(t for n, t in texts if not tools or n < tools[0]),
        text_after="".join(t for n, t in texts if tools and n > tools[-1]),
        finish=FINISHES[stop_reason],
    )


def shape(events: list[tuple[str | None, dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """Per event: name, type, block or delta type and field sets; repeats collapsed."""
    out: list[tuple[Any, ...]] = []
    for name, data in events:
        inner = data.get("content_block") or data.get("delta") or data.get("message") or {}
        item = (
            name,
            data["type"],
            inner.get("type"),
            frozenset(data) - VERSIONED_FIELDS,
            frozenset(inner) - VERSIONED_FIELDS,
            "usage" in data or "usage" in inner,
        )
        if not out or out[-1] != item:
            out.append(item)
    return out


def test_chat_anthropic_crashes_on_context_management_in_message_delta():
    """Pinned adapter bug (langchain-anthropic 1.7.10, anthropic 2.14, non-beta client): a
    message_delta with ``context_management`` reaches ChatAnthropic as a plain dict, and
    ``context_management.model_dump()`` raises AttributeError after every other chunk."""
    wire = DIALECT.render(Plan(calls=[{"name": "any_tool", "args": {"a": 1}, "id": "toolu_01"}]))
    body = wire.body.replace(
        b'"usage":{"input_tokens"',
        b'"context_management":{"applied_edits":[]},"usage":{"input_tokens"',
    )
    chunks: list[AIMessageChunk] = []
    with pytest.raises(AttributeError, match="model_dump"):
        chunks.extend(chat(body).stream("hi"))
    assert adapter_deltas(chunks) == DIALECT.parse(body)
    assert reference_merge(DIALECT.parse(body)).calls()[0]["args"] == {"a": 1}


# Server tools' blocks and citations are the provider's, not the client's: a plan cannot
# ask for them, so recordings that hold them have no rendering to compare with.
RENDERABLE = [
    p for p in RECORDS if not any(k in p.values[0]["response_body"] for k in UNRENDERED_BLOCKS)
]


def test_most_recordings_have_a_rendering_to_compare_with():
    assert len(RENDERABLE) >= len(RECORDS) - 3


@pytest.mark.parametrize("record", RENDERABLE)
def test_render_matches_recorded_event_shape(record):
    body = record["response_body"]
    recorded = recorded_events(body)
    plan = plan_from(recorded)
    rendered = recorded_events(DIALECT.render(plan).body)
    assert shape(rendered) == shape(recorded)
    assert reference_merge(DIALECT.parse(body.encode())).calls() == plan.expected_calls()
