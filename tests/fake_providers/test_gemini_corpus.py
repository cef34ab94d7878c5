"""The gemini dialect against real recordings (tests/corpus, api ``gemini``).

parse() must equal what ChatGoogleGenerativeAI yields from the recorded bytes
(ids the adapter invents matched to parse's stand-ins), and a plan carrying the
recorded calls, rendered with the quirks the recording shows (no ids, calls
packed in one frame, finish on the last frame, no signature, its model), must
give frames with the recorded field sets and order. Repeated frame shapes
collapse (text and thoughts arrive in as many frames as the model likes), and
fields that came and went with API versions are left out.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from typing import Any

import httpx2
import pytest
from _adapter_streams import adapter_messages
from _corpus import corpus_params
from langchain_core.messages import AIMessageChunk
from langchain_google_genai import ChatGoogleGenerativeAI

from tooltape.fake_providers import decode_sse
from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect
from tooltape.fake_providers.dialects.gemini._parse import read_gemini_stream
from tooltape.harness import Plan, reference_merge

DIALECT = GeminiDialect()
RECORDS = corpus_params("gemini")
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
# Present in some API versions only: candidate index (absent on gemini-2.0), finishMessage
# (2.5, late 2025), candidatesTokensDetails (2.0), serviceTier (2026).
VERSIONED_FIELDS = {"index", "finishMessage", "candidatesTokensDetails", "serviceTier"}
FINISHES = {"STOP": None, "MAX_TOKENS": "length", "SAFETY": "content_filter"}


class Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A recorded body handed to the client in one read."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self):
        yield self.body

    async def __aiter__(self):
        yield self.body


def chat(body: bytes, model: str) -> ChatGoogleGenerativeAI:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers=[("content-type", "text/event-stream")], stream=Reads(body)
        )

    transport = httpx2.MockTransport(handler)
    return ChatGoogleGenerativeAI(
        model=model, api_key="test-key", max_retries=1, client_args={"transport": transport}
    )


def adapter_deltas(chunks: list[AIMessageChunk], generated: tuple[str, ...], parsed: Any):
    chunks = adapter_messages(chunks)
    out = []
    for message, parsed_message in zip(chunks, parsed, strict=False):
        aligned = []
        for chunk, stand_in in zip(message.tool_call_chunks, parsed_message, strict=False):
            if stand_in["id"] in generated:
                assert UUID4.match(chunk["id"])
                chunk = {**chunk, "id": stand_in["id"]}
            aligned.append(chunk)
        out.append(aligned + message.tool_call_chunks[len(aligned) :])
    return out + [m.tool_call_chunks for m in chunks[len(out) :]]


def is_json_array(body: str) -> bool:
    return body.lstrip().startswith("[")


@pytest.mark.parametrize("record", RECORDS)
def test_parse_equals_chat_google_on_recording(record):
    body = record["response_body"].encode()
    chunks: list[AIMessageChunk] = []
    try:
        chunks.extend(chat(body, record["observed"]["model"]).stream("hi"))
        raised = None
    except Exception as error:  # pinned: a JSON-array body (no alt=sse) is not SSE
        raised = error
    reading = read_gemini_stream(body)
    assert adapter_deltas(chunks, reading.generated_ids, reading.deltas) == reading.deltas
    assert (raised is None) == (reading.error is None)
    if is_json_array(record["response_body"]):
        assert type(raised).__name__ == "UnknownApiResponseError"
        assert reading.error.startswith("UnknownApiResponseError")
        return
    merged = functools.reduce(operator.add, chunks)
    assert len(merged.tool_calls) == record["observed"]["client_calls"]
    assert [c["name"] for c in reference_merge(reading.deltas).tool_calls] == [
        c["name"] for c in merged.tool_calls
    ]


# The sync test covers JSON-array bodies: the SDK raises on them, sync or async.
SSE_RECORDS = [p for p in RECORDS if not is_json_array(p.values[0]["response_body"])]


@pytest.mark.asyncio
@pytest.mark.parametrize("record", SSE_RECORDS)
async def test_parse_equals_chat_google_astream_on_recording(record):
    body = record["response_body"].encode()
    chunks = [c async for c in chat(body, record["observed"]["model"]).astream("hi")]
    reading = read_gemini_stream(body)
    assert adapter_deltas(chunks, reading.generated_ids, reading.deltas) == reading.deltas


# --- rendering has the recorded shape -----------------------------------------------------


def recorded_frames(body: str) -> list[dict[str, Any]]:
    if is_json_array(body):
        return json.loads(body)
    return [json.loads(event.data) for event in decode_sse(body)]


def parts(frame: dict[str, Any]) -> list[dict[str, Any]]:
    return ((frame.get("candidates") or [{}])[0].get("content") or {}).get("parts") or []


def plan_and_quirks(frames: list[dict[str, Any]]) -> tuple[Plan, list[Any]]:
    """The plan a recording carries out and the quirks its frames show."""
    calls, text, thought, finish = [], "", "", None
    for frame in frames:
        finish = frame["candidates"][0].get("finishReason") or finish
        for part in parts(frame):
            if "functionCall" in part:
                call = part["functionCall"]
                calls.append(
                    {"name": call["name"], "args": call.get("args", {}), "id": call.get("id")}
                )
            elif part.get("thought"):
                thought += part["text"]
            else:
                text += part.get("text", "")
    plan = Plan(calls=calls, text_before=text, reasoning=thought, finish=FINISHES[finish or "STOP"])
    quirks: list[Any] = [{"kind": "gemini_model", "model": frames[0]["modelVersion"]}]
    if not any(c["id"] for c in calls):
        quirks.append("missing_id")
    widest = max(sum("functionCall" in p for p in parts(f)) for f in frames)
    if widest > 1:
        quirks += ["whole_call", {"kind": "pack_fragments", "size": widest}]
    last = frames[-1]["candidates"][0]
    if any("functionCall" in p for p in parts(frames[-1])) and last.get("finishReason"):
        quirks.append("finish_with_last_part")
    if not any("thoughtSignature" in p for f in frames for p in parts(f)):
        quirks.append("no_thought_signature")
    return plan, quirks


def shape(frame: dict[str, Any]) -> tuple[Any, ...]:
    """Field names, in order, of a frame and of everything inside it (versioned ones out)."""

    def keys(value: dict[str, Any]) -> tuple[str, ...]:
        return tuple(k for k in value if k not in VERSIONED_FIELDS)

    candidate = frame["candidates"][0]
    part_shapes = tuple(
        (keys(p), keys(p["functionCall"]) if "functionCall" in p else ()) for p in parts(frame)
    )
    content = candidate.get("content")
    return (
        keys(frame),
        keys(candidate),
        keys(content) if content else (),
        part_shapes,
        keys(frame["usageMetadata"]),
    )


def collapsed(shapes: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [s for n, s in enumerate(shapes) if n == 0 or s != shapes[n - 1]]


@pytest.mark.parametrize("record", RECORDS)
def test_render_has_the_recorded_frame_shapes(record):
    frames = recorded_frames(record["response_body"])
    plan, quirks = plan_and_quirks(frames)
    wire = DIALECT.render(plan, quirks)
    rendered = [json.loads(event.data) for event in decode_sse(wire.body)]
    assert collapsed([shape(f) for f in rendered]) == collapsed([shape(f) for f in frames])
    assert [p.get("functionCall") for f in rendered for p in parts(f) if "functionCall" in p] == [
        p["functionCall"] for f in frames for p in parts(f) if "functionCall" in p
    ]
