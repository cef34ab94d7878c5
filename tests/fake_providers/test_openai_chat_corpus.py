"""openai_chat parse and render against real bytes: corpus recordings and framing edge cases.

For every recorded Chat Completions body (every provider) and for hand-made bodies
that hit the openai SDK decoder's and ChatOpenAI's corners, ``read_chat_stream``
must yield exactly what the real ``ChatOpenAI.stream()`` yields from the same
bytes, and raise where it raises. For OpenAI's own recordings, the dialect must
render the same chunk field sets and event order for the same calls.
"""

from __future__ import annotations

import contextlib
import importlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from _corpus import corpus_params
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers._stream_reading import StreamReading
from tooltape.fake_providers.dialects.openai_chat import read_chat_stream
from tooltape.harness import Plan, PlannedCall, Stage, parse_quirk, quirk_kinds, reference_merge

DIALECT = get_dialect("openai_chat")

# The SDK builds chunks without validation and pydantic warns when it dumps odd
# values; production code carries on, so the comparison must too.
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")


class _Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read


def _chat_openai_reading(reads: tuple[bytes, ...]) -> tuple[list[Any], BaseException | None]:
    """The tool-call chunks ChatOpenAI yields from these reads, and what it raised."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = [("content-type", "text/event-stream")]
        return httpx2.Response(200, headers=headers, stream=_Reads(reads))

    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key=SecretStr("sk-test"),
        base_url="http://fake/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    chunks: list[Any] = []
    try:
        chunks.extend(model.stream("hi"))
    except Exception as error:
        return [getattr(c, "tool_call_chunks", []) for c in chunks], error
    if chunks and getattr(chunks[-1], "chunk_position", None) == "last":
        assert chunks.pop().tool_call_chunks == []
    return [getattr(c, "tool_call_chunks", []) for c in chunks], None


def _assert_same_reading(reading: StreamReading, reads: tuple[bytes, ...]) -> None:
    deltas, error = _chat_openai_reading(reads)
    assert reading.deltas == deltas
    if error is None:
        assert reading.error is None
    else:
        assert reading.error is not None, f"ChatOpenAI raised {error!r}"
        assert reading.error.split(":")[0] == type(error).__name__
        if type(error).__name__ == "APIError":
            assert reading.error == f"APIError: {error.message}"  # type: ignore[attr-defined]


# --- recordings -------------------------------------------------------------------------


@pytest.mark.parametrize("record", corpus_params("chat_completions"))
def test_parse_equals_chat_openai_on_a_recording(record: dict[str, Any]) -> None:
    body = record["response_body"].encode("utf-8")
    reading = read_chat_stream(body)
    _assert_same_reading(reading, (body,))
    if reading.error is None:  # the recorded calls come out (names may be doubled)
        merged = reference_merge(reading.deltas)
        names = [c["name"] or "" for c in [*merged.tool_calls, *merged.invalid_tool_calls]]
        assert all(any(o in n for n in names) for o in record["observed"]["tool_names"])


def _payloads(body: str) -> list[Any]:
    blocks = [b for b in body.replace("\r\n", "\n").split("\n\n") if b.strip()]
    lines = [
        [line[5:].lstrip() for line in b.split("\n") if line.startswith("data:")] for b in blocks
    ]
    data = ["\n".join(block) for block in lines]
    return [d if d == "[DONE]" else json.loads(d) for d in data if d]


def _signature(payload: Any) -> tuple[Any, ...]:
    """The keys of a chunk at every level, in order: what 'same field sets' compares."""
    if payload == "[DONE]":
        return ("[DONE]",)
    choices = payload.get("choices") or []
    choice_keys = tuple(tuple(c) for c in choices)
    delta = choices[0].get("delta") or {} if choices else {}
    calls = delta.get("tool_calls") or []
    entries = tuple((tuple(e), tuple(e.get("function") or {})) for e in calls)
    finish = choices[0].get("finish_reason") if choices else None
    return tuple(payload), choice_keys, tuple(delta), entries, finish is not None


def _shape(payloads: list[Any]) -> list[tuple[Any, ...]]:
    """Signatures in order, runs of equal signatures collapsed (argument fragments)."""
    shape: list[tuple[Any, ...]] = []
    for payload in payloads:
        signature = _signature(payload)
        if not shape or shape[-1] != signature:
            shape.append(signature)
    return shape


def _quirks_seen(payloads: list[Any]) -> list[Any]:
    """The openai_chat EVENTS quirks that select this recording's envelope."""
    chunks = [p for p in payloads if p != "[DONE]"]
    choices = [c for p in chunks for c in p["choices"]]
    first_delta = chunks[0]["choices"][0]["delta"]
    quirks: list[Any] = []
    if "tool_calls" in first_delta:
        quirks.append({"kind": "first_call_on_role_chunk", "refusal": "refusal" in first_delta})
    absent = {"usage": "no_usage_chunk", "obfuscation": "no_obfuscation"}
    for key, kind in {**absent, "service_tier": "no_service_tier"}.items():
        if not any(key in p for p in chunks):
            quirks.append(kind)
    if not any("logprobs" in c for c in choices):
        quirks.append("no_logprobs")
    return quirks


def _openai_records() -> list[Any]:
    params = corpus_params("chat_completions")
    return [p for p in params if p.values[0]["provider"] == "openai"]


def _one_choice(record: dict[str, Any]) -> bool:
    payloads = _payloads(record["response_body"])
    return all(c["index"] == 0 for p in payloads if p != "[DONE]" for c in p["choices"])


# The dialect renders one choice; a recording with several (n > 1) has no rendering to match.
@pytest.mark.parametrize("record", [p for p in _openai_records() if _one_choice(p.values[0])])
def test_render_has_the_field_sets_and_order_of_an_openai_recording(record: dict[str, Any]) -> None:
    recorded = _payloads(record["response_body"])
    merged = reference_merge(read_chat_stream(record["response_body"].encode()).deltas)
    finishes = [c["finish_reason"] for p in recorded if p != "[DONE]" for c in p["choices"]]
    plan = Plan(
        calls=tuple(
            PlannedCall(name=c["name"], args=c["args"], id=c["id"]) for c in merged.tool_calls
        ),
        finish=next(f for f in reversed(finishes) if f),
    )
    rendered = _payloads(DIALECT.render(plan, _quirks_seen(recorded)).body.decode())
    assert _shape(rendered) == _shape(recorded)
    assert len(plan.calls) == record["observed"]["client_calls"]


def test_the_default_envelope_is_the_newest_openai_shape() -> None:
    """With no quirks the dialect renders gpt-4o / gpt-4.1-nano recordings of 2025-2026."""
    default = _shape(_payloads(DIALECT.render(Plan(calls=(PlannedCall(name="f"),))).body.decode()))
    envelope = ("id", "object", "created", "model", "service_tier", "system_fingerprint")
    assert [s[0] for s in default] == [
        (*envelope, "usage", "choices", "obfuscation"),  # role chunk
        (*envelope, "usage", "choices", "obfuscation"),  # tool-call header
        (*envelope, "usage", "choices", "obfuscation"),  # arguments
        (*envelope, "choices", "usage", "obfuscation"),  # finish
        (*envelope, "choices", "usage", "obfuscation"),  # usage, choices: []
        "[DONE]",
    ]
    assert default[0][2] == ("role", "content")
    assert default[1][3][0][0] == ("index", "id", "type", "function")


# --- framing and adapter corners -------------------------------------------------------


def _chunk(delta: Any, **extra: Any) -> str:
    return json.dumps({"id": "chatcmpl-1", "choices": [{"index": 0, "delta": delta}], **extra})


def _event(delta: Any, **extra: Any) -> bytes:
    return f"data: {_chunk(delta, **extra)}\n\n".encode()


def _calls(*entries: Any) -> dict[str, Any]:
    return {"tool_calls": list(entries)}


FN = {"name": "f", "arguments": ""}
HEADER = _event(
    {"role": "assistant", **_calls({"index": 0, "id": "c", "type": "function", "function": FN})}
)
ARGS = _chunk(_calls({"index": 0, "function": {"arguments": '{"a": 1}'}}))
GOOD = HEADER + f"data: {ARGS}\n\n".encode()
DONE = b"data: [DONE]\n\n"

BODIES: dict[str, tuple[bytes, str | None]] = {
    "golden": (GOOD + DONE, None),
    "s2-comment-after-id": (b"id: 7\n" + GOOD + b": ping\n\n", "JSONDecodeError"),
    "s2-retry-only-block": (b"retry: 1000\n\n" + GOOD, "JSONDecodeError"),
    "event-only-block": (b"event: ping\n\n" + GOOD, "JSONDecodeError"),
    "comment-keepalives": (b": OPENROUTER PROCESSING\n\n" + GOOD + DONE, None),
    "crlf": (GOOD.replace(b"\n", b"\r\n"), None),
    "bare-cr": (GOOD.replace(b"\n", b"\r"), None),
    "bom": (b"\xef\xbb\xbf" + GOOD, None),
    "unterminated-last-event": (GOOD[:-2], None),
    "garbage-after-done": (GOOD + DONE + b"data: {not json\n\n", None),
    "multi-line-data": (GOOD + b'data: {"choices":\ndata: []}\n\n', None),
    "error-envelope": (GOOD + b'data: {"error": {"message": "quota exceeded"}}\n\n', "APIError"),
    "error-string": (GOOD + b'data: {"error": "boom"}\n\n', "APIError"),
    "error-event-line": (b'event: error\ndata: {"error": {"message": "x"}}\n\n', "APIError"),
    "falsy-error": (GOOD + b'data: {"error": {}}\n\n', None),
    "no-function-gc3": (_event(_calls({"index": 0})), "AttributeError"),
    "missing-index-gc1": (_event(_calls({"id": "a", "type": "function", "function": FN})), None),
    "string-index": (_event(_calls({"index": "0", "function": FN})), None),
    "null-delta-az2": (GOOD + b'data: {"choices": [{"index": 0}]}\n\n', None),
    "empty-choices-az1": (b'data: {"id": "", "choices": []}\n\n' + GOOD, None),
    "usage-not-an-object": (GOOD + b'data: {"choices": [], "usage": "x"}\n\n', "AttributeError"),
    "payload-not-an-object": (GOOD + b"data: 5\n\n", "AttributeError"),
    "thread-event": (b'event: thread.run\ndata: {"x": 1}\n\n' + GOOD, None),
    "content-delta-type": (GOOD + _event(_calls({"index": 1}), type="content.delta"), None),
    "beta-chunk-wrapper": (b'data: {"chunk": ' + ARGS.encode() + b"}\n\n", None),
    "user-role-sticks": (_event({"role": "user"}) + GOOD, None),
    "tool-calls-not-a-list": (_event({"tool_calls": {"index": 0}}), "TypeError"),
    "broken-utf8-tail": (GOOD + b"data: \xe5\x8c", "UnicodeDecodeError"),
    "empty-data": (GOOD + b"data:\n\n", "JSONDecodeError"),
}


@pytest.mark.parametrize(("body", "error"), list(BODIES.values()), ids=list(BODIES))
def test_parse_equals_chat_openai_on_edge_bodies(body: bytes, error: str | None) -> None:
    reading = read_chat_stream(body)
    assert (reading.error or "").split(":")[0] == (error or "")
    _assert_same_reading(reading, (body,))


@pytest.mark.parametrize(("body", "error"), list(BODIES.values()), ids=list(BODIES))
def test_read_boundaries_do_not_change_the_reading(body: bytes, error: str | None) -> None:
    """Split every body into one-byte reads: CRLF and UTF-8 split across reads."""
    reads = tuple(body[n : n + 1] for n in range(len(body)))
    _assert_same_reading(read_chat_stream(body), reads)


def test_edge_bodies_mean_what_their_names_say() -> None:
    deltas = {name: read_chat_stream(body).deltas for name, (body, _) in BODIES.items()}
    # the BOM hides the first event's field name, so the SDK never dispatches it
    assert deltas["bom"] == deltas["golden"][1:]
    assert deltas["unterminated-last-event"] == deltas["golden"][:1]
    assert deltas["missing-index-gc1"][0][0]["index"] is None
    assert deltas["user-role-sticks"] == [[], [], []]
    assert deltas["s2-comment-after-id"] == deltas["golden"]
    assert deltas["beta-chunk-wrapper"] == deltas["golden"][1:]
    assert deltas["content-delta-type"] == deltas["golden"]
    assert deltas["thread-event"] == [[], *deltas["golden"]]


# --- wire quirks of the framing layer ---------------------------------------------------


def _wire_quirk_params() -> list[Any]:
    """Every registered WIRE quirk that takes no required parameter."""
    for module in ("_framing", "_sse_quirks"):
        with contextlib.suppress(ImportError):  # the framing layer registers them on import
            importlib.import_module(f"tooltape.fake_providers.{module}")
    kinds = []
    for kind in quirk_kinds():
        try:
            quirk = parse_quirk(kind)
        except ValueError:  # needs parameters
            continue
        if quirk.stage is Stage.WIRE:
            kinds.append(pytest.param(kind, id=kind))
    assert kinds, "no WIRE quirks registered"
    return kinds


WIRE_PLAN = Plan(
    text_before="Looking it up.",
    calls=(
        PlannedCall(name="lookup", args={"city": "北京", "note": "café ☕"}),
        PlannedCall(name="get_time", args={"tz": "Asia/Shanghai"}),
    ),
)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", _wire_quirk_params())
def test_parse_equals_chat_openai_under_wire_quirks(kind: str, seed: int) -> None:
    wire = DIALECT.render(WIRE_PLAN, [kind], seed=seed)
    reading = read_chat_stream(wire.body)
    _assert_same_reading(reading, wire.reads)
    if parse_quirk(kind).lossless:
        assert reading.error is None
        assert reference_merge(reading.deltas).calls() == DIALECT.planned_calls(WIRE_PLAN, seed)
