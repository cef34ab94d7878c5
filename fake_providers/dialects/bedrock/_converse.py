"""The ``bedrock_converse`` dialect (``POST /model/{modelId}/converse-stream``) and shared parts.

Bedrock streams AWS binary event-stream messages, not SSE
(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html;
framing in :mod:`tooltape.fake_providers.dialects.bedrock._eventstream`). Each Converse
event is one message whose ``:event-type`` names it and whose payload is
compact JSON with sorted keys and a ``p`` field of padding (a prefix of
``abc...XYZ0123...`` of random length), as every recording in
``tests/corpus/bedrock`` has it; botocore drops ``p``. The events:
``messageStart {role}``; per content block ``contentBlockDelta``... then
``contentBlockStop``: ``reasoningContent`` deltas (``text`` pieces, then one
``signature``) for ``Plan.reasoning``, ``text`` deltas for ``text_before``, one
``toolUse`` block per call, ``text`` for ``text_after``; then ``messageStop
{stopReason}`` and ``metadata {usage, metrics}``. Reasoning and text blocks
have no start event; a tool block opens with ``contentBlockStart {start:
{toolUse: {toolUseId, name, type: "tool_use"}}}`` (``type`` arrived in 2025;
``no_tool_use_type`` leaves it out, as Claude 3 recordings do). A block's
``contentBlockIndex`` is its position, so calls after text start at 1.

Fragments map to blocks by ``Fragment.call``: a call's block opens at its first
fragment, each fragment's argument text is one ``toolUse.input`` delta (the
header's ``""`` is the empty first input real Claude streams start with;
``no_empty_tool_input`` drops it, and with ``empty_args`` a call then has no
delta at all, as Bedrock streams argument-less tools), and the block stops after
its last fragment. Blocks stay open together under ``interleave_calls`` (as Bedrock
streams them). Quirks that put
the name or id on other chunks, or change or drop the index, cannot be said
here and raise :class:`~tooltape.harness.TooltapeUsageError`.

Finish: ``tool_calls``/``stop``/``length``/``content_filter`` become
``tool_use``/``end_turn``/``max_tokens``/``content_filtered``. ``eof`` ends
after the last content delta, its block open, with no ``messageStop`` (the
adapter then raises ``ConnectionError`` after the last chunk); ``error`` cuts
there too and sends a ``modelStreamErrorException`` exception message, the
shape Bedrock uses for a failure after the 200.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import string
import uuid
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any, ClassVar

from tooltape.fake_providers._call_ids import URLSAFE, IdShape
from tooltape.fake_providers._content_blocks import (
    CARRIES,
    ContentBlockEvents,
    Event,
    content_block_lacks,
)
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._event_text import Piece, dig, finish_named, text_piece
from tooltape.fake_providers._expressible import require_header_fields
from tooltape.fake_providers._wire import Wire
from tooltape.fake_providers.dialects.bedrock._complete import converse_completion
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    encode_eventstream_message,
)
from tooltape.fake_providers.dialects.bedrock._integration import BedrockConverseIntegration
from tooltape.fake_providers.dialects.bedrock._parse import parse_converse
from tooltape.fake_providers.dialects.bedrock._validate import (
    bedrock_body_error,
    validate_converse_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Finish, Fragment, Plan, PlannedStream, Quirk, Stage, evidence
from tooltape.harness.json_text import compact

__all__ = [
    "STREAM_ERROR",
    "BedrockConverseDialect",
    "BedrockNoEmptyToolInput",
    "BedrockNoToolUseType",
    "bedrock_exception_wire",
]

STREAM_ERROR = "A streaming error occurred. Retry your request."
"""The ``message`` of the ``modelStreamErrorException`` an ``error`` finish sends."""

_PADDING = string.ascii_lowercase + string.ascii_uppercase + string.digits
_STOP_REASONS = {
    "tool_calls": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "content_filtered",
}


_CALL_ID = IdShape("bedrock_converse", "tooluse_", URLSAFE, 22)
"""Converse tool-use ids: ``tooluse_`` and 22 URL-safe characters (corpus)."""


@evidence(
    "Bedrock argument-less tools (autogen #6979, spring-ai #3618)", "microsoft/autogen/pull/6979"
)
class BedrockNoEmptyToolInput(Quirk, kind="no_empty_tool_input", stage=Stage.EVENTS):
    """Leave out the empty first ``toolUse.input`` delta of each tool block.

    With ``empty_args`` an argument-less call is then a ``contentBlockStart``
    followed by ``contentBlockStop``: no delta at all.
    """


@evidence(
    "Claude 3 recordings in ../shared/corpus/bedrock",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html",
)
class BedrockNoToolUseType(Quirk, kind="no_tool_use_type", stage=Stage.EVENTS):
    """Send ``contentBlockStart.start.toolUse`` without ``type``, as 2024 recordings do."""


LACKS = content_block_lacks("contentBlockStart", "contentBlockDelta")


def padding(rng: Random) -> str:
    """The ``p`` padding Bedrock adds to an event payload: a random-length prefix of a-zA-Z0-9."""
    return _PADDING[: rng.randint(1, len(_PADDING))]


def signature(text: str) -> str:
    """A deterministic stand-in for a reasoning signature."""
    return "Eo" + base64.b64encode(hashlib.sha256(text.encode()).digest() * 3).decode()


def output_tokens(plan: Plan) -> int:
    """A plausible output-token count for a plan."""
    written = plan.reasoning + plan.text_before + plan.text_after
    return 1 + len(written + "".join(json.dumps(c.args) for c in plan.calls)) // 4


INPUT_TOKENS = 472
"""The input-token count every rendered stream reports."""


def _frame_headers(name: str) -> list[tuple[str, str]]:
    """Bedrock's headers, in its order; AWS exception shapes are named ``...Exception``."""
    exception = name.endswith("Exception")
    return [
        (":exception-type" if exception else ":event-type", name),
        (":content-type", "application/json"),
        (":message-type", "exception" if exception else "event"),
    ]


def bedrock_exception_wire(
    message: str, exception_type: str = "validationException", *, events: Sequence[bytes] = ()
) -> Wire:
    """A 200 event stream that fails with an exception message, as Bedrock reports errors late.

    Claude's own request errors reach Bedrock streaming clients this way
    (botocore raises ``EventStreamError``, code ``validationException``); queue
    the wire as a turn: ``FakeProvider("bedrock_converse").stream(bedrock_exception_wire(...))``.

    Args:
        message: The exception's ``message``.
        exception_type: The ``:exception-type`` header (an exception shape of the stream).
        events: Framed events to send first.
    """
    payload = compact({"message": message}).encode()
    frame = encode_eventstream_message(_frame_headers(exception_type), payload)
    return Wire(reads=(*events, frame), headers=(("content-type", EVENTSTREAM_MEDIA_TYPE),))


class BedrockDialect(Dialect):
    """Base of the Bedrock dialects: event-stream framing and Bedrock's response headers."""

    framing = "eventstream"
    media_type = EVENTSTREAM_MEDIA_TYPE
    carries = CARRIES
    lacks: ClassVar[Mapping[str, str]] = LACKS
    extra_headers: ClassVar[tuple[tuple[str, str], ...]] = ()

    def frame(self, event: ProviderEvent) -> bytes:
        """One event-stream message; names ending in ``Exception`` become exception messages."""
        if isinstance(event.data, str):
            payload = event.data.encode()
        else:
            text = compact(event.data, sort_keys=True)
            payload = text.encode()
        return encode_eventstream_message(_frame_headers(event.event or "chunk"), payload)

    def wire(self, frames: list[bytes], wire_quirks: Sequence[Quirk], seed: int) -> Wire:
        """The reads (shared wire quirks), with ``x-amzn-requestid`` and the dialect's headers."""
        wire = super().wire(frames, wire_quirks, seed)
        request_id = uuid.UUID(int=Random(f"{seed}:request-id").getrandbits(128), version=4)
        headers = (*wire.headers, ("x-amzn-requestid", str(request_id)), *self.extra_headers)
        return dataclasses.replace(wire, headers=headers)


class _ConverseEvents(ContentBlockEvents):
    """Builds one stream's Converse events; blocks are numbered in the order they open."""

    reasoning = "reasoning"
    block_stop = "contentBlockStop"

    def __init__(self, stream: PlannedStream, quirks: EventQuirks) -> None:
        super().__init__(stream, quirks, "bedrock_converse")
        self.skip_empty = quirks.has(BedrockNoEmptyToolInput)

    def add(self, name: str, **fields: Any) -> None:
        self.out.append((name, {**fields, "p": padding(self.rng)}))

    def stop(self, index: int) -> None:
        self.add("contentBlockStop", contentBlockIndex=index)

    def text_block(self, text: str, kind: str) -> None:
        if not text:
            return
        index = self.next_block()
        for piece in self.text_pieces(text):
            delta = {"text": piece} if kind == "text" else {"reasoningContent": {"text": piece}}
            self.add("contentBlockDelta", contentBlockIndex=index, delta=delta)
        if kind == "reasoning":
            delta = {"reasoningContent": {"signature": signature(text)}}
            self.add("contentBlockDelta", contentBlockIndex=index, delta=delta)
        self.stop(index)

    def open_tool(self, fragment: Fragment) -> int:
        tool_use: dict[str, Any] = {"toolUseId": fragment.id, "name": fragment.name}
        if not self.quirks.has(BedrockNoToolUseType):
            tool_use["type"] = "tool_use"
        index = self.next_block()
        self.add("contentBlockStart", contentBlockIndex=index, start={"toolUse": tool_use})
        return index

    def tool_delta(self, index: int, fragment: Fragment, first: bool) -> None:
        if fragment.args is not None and not (first and self.skip_empty and fragment.args == ""):
            delta = {"toolUse": {"input": fragment.args}}
            self.add("contentBlockDelta", contentBlockIndex=index, delta=delta)

    def build(self) -> list[Event]:
        plan = self.stream.plan
        self.add("messageStart", role="assistant")
        if self.content():
            if self.stream.finish == "error":
                self.out.append(("modelStreamErrorException", {"message": STREAM_ERROR}))
            return self.out
        self.add("messageStop", stopReason=_STOP_REASONS[self.stream.finish])
        written = output_tokens(plan)
        usage: dict[str, Any] = {"inputTokens": INPUT_TOKENS, "outputTokens": written}
        usage |= {"serverToolUsage": {}, "totalTokens": INPUT_TOKENS + written}
        metrics = {"latencyMs": self.rng.randint(400, 4000)}
        self.add("metadata", metrics=metrics, usage=usage)
        return self.out


class BedrockConverseDialect(BedrockConverseIntegration, BedrockDialect):
    """Bedrock ConverseStream: event-stream messages, content blocks by ``contentBlockIndex``."""

    name = "bedrock_converse"
    call_id_format = _CALL_ID
    event_shape = (
        ("contentBlockIndex", "int"),
        ("start", "object"),
        *fields_of("start.toolUse", name="str", toolUseId="str"),
        ("delta", "object"),
        *fields_of("delta.toolUse", input="str"),
    )
    path = "/model/{modelId}/converse-stream"
    complete_path = "/model/{modelId}/converse"
    event_quirks = (BedrockNoEmptyToolInput, BedrockNoToolUseType)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The provider events for a planned stream (see the module docstring).

        Raises:
            TooltapeUsageError: A call's id or name is not on its block start.
        """
        require_header_fields(stream, self.name)
        return [ProviderEvent(data, name) for name, data in _ConverseEvents(stream, quirks).build()]

    def event_pieces(self, data: Any) -> list[Piece]:
        """``contentBlockDelta`` text; a ``toolUse`` start or delta."""
        if dig(data, "start", "toolUse") or dig(data, "delta", "toolUse"):
            return [("tool", "")]
        delta = dig(data, "contentBlockDelta", "delta") or dig(data, "delta")
        return text_piece("text", dig(delta, "text"))

    def event_finish(self, data: Any) -> Finish | None:
        """``messageStop``'s ``stopReason`` ``max_tokens``."""
        reason = dig(data, "stopReason") or dig(data, "messageStop", "stopReason")
        return finish_named(reason, {"max_tokens": "length"})

    parse = staticmethod(parse_converse)
    completion_body = staticmethod(converse_completion)
    validate = staticmethod(validate_converse_request)
    body_error = staticmethod(bedrock_body_error)
