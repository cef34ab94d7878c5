"""The ``cohere_v2`` dialect: Cohere's v2 chat stream (``POST /v2/chat``, SSE).

Events, as the recordings in ``tests/corpus/cohere`` show them: every event
has an ``event:`` line naming its ``type``, compact JSON, then ``data: [DONE]``.
``message-start`` (``id``, an empty assistant ``message``); a ``thinking``
content block for ``Plan.reasoning`` (``content-start`` / ``content-delta`` /
``content-end``, shapes from Cohere's reasoning models); ``Plan.text_before`` as
``tool-plan-delta`` pieces when the turn calls tools (Cohere's tool plan is the
text before the calls), else as a ``text`` content block; per call
``tool-call-start`` (``index``, ``delta.message.tool_calls`` with ``id``,
``type``, ``function.name`` and ``function.arguments`` — ``""``, or everything
with ``whole_call``), one ``tool-call-delta`` per argument piece and
``tool-call-end``; ``text_after`` as a content block; ``message-end`` with
``finish_reason`` and ``usage`` (``billed_units`` and ``tokens``).

Fragments map to calls by ``Fragment.call``: the first fragment opens the call,
each later one is a delta, the call ends after its last fragment, and the wire
``index`` is the call's position. Argument-text quirks are all expressible, and
so are ``duplicate_ids`` and ``interleave_calls`` (rendered faithfully though
Cohere has not been seen to interleave). Quirks that move the name or id off
``tool-call-start``, change the index or pack several deltas into one event
cannot be said here and raise :class:`~tooltape.harness.TooltapeUsageError`
(``LACKS``), as do EVENTS quirks (this dialect has none).

Finish: ``tool_calls``/``stop``/``length`` become ``TOOL_CALL``/``COMPLETE``/
``MAX_TOKENS``; Cohere has no content-filter reason, so ``content_filter`` is
refused. ``eof`` ends after the last delta (the open call or block never ends,
no ``message-end``, no ``[DONE]``); ``error`` cuts there too, then sends
``message-end`` with ``finish_reason: "ERROR"`` and the ``error`` text the SDK's
``ChatMessageEndEventDelta`` declares (no recording shows it), then ``[DONE]``.

Parsing is :func:`~tooltape.fake_providers.dialects.cohere._parse.read_cohere_stream`:
``parse`` gives what ``ChatCohere.stream()`` yields; ``ChatCohere.astream()``
differs (``mode="astream"``).
"""

from __future__ import annotations

import re
import uuid
from random import Random
from typing import Any, Literal

from tooltape.fake_providers._call_ids import LOWER_ALNUM, IdShape
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._event_text import Piece, dig, text_piece
from tooltape.fake_providers._expressible import require_header_fields
from tooltape.fake_providers.dialects.cohere._complete import cohere_completion
from tooltape.fake_providers.dialects.cohere._integration import CohereIntegration
from tooltape.fake_providers.dialects.cohere._parse import parse_cohere
from tooltape.fake_providers.dialects.cohere._validate import (
    cohere_body_error,
    validate_cohere_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Plan, PlannedStream, TooltapeUsageError

__all__ = ["CohereV2Dialect"]

_FINISH = {"tool_calls": "TOOL_CALL", "stop": "COMPLETE", "length": "MAX_TOKENS"}
_ERROR_TEXT = "internal server error, this has been reported to our developers"
_PIECE = re.compile(r"\s*\S+|\s+")
_START = "the call's id and name ride once, on tool-call-start"
CARRIES = frozenset({"escaped_text", "args_text", "arg_pieces", "interleaving"})
"""What this wire can say: argument text in pieces, several calls open at once."""

LACKS = {
    "name_fragments": _START + ", before any argument",
    "id_fragments": _START + ", before any argument; tool-call-delta events carry no id",
    "optional_id": _START + " (the cohere SDK drops a start without an id)",
    "optional_index": "every tool-call event carries the call's index",
    "index_field": "the index is the call's position among the tool calls",
    "packing": "each event carries one delta, so there is nothing to pack",
}


_CALL_ID = IdShape("cohere", "", LOWER_ALNUM, 12, name_prefix=True)
"""Cohere's tool-call ids: the tool's name, ``_`` and 12 lower-case letters and digits (corpus)."""


class _Events:
    """Builds one stream's events, numbering content blocks as they open."""

    def __init__(self, stream: PlannedStream) -> None:
        self.stream = stream
        self.rng = Random(f"{stream.seed}:cohere_v2")
        self.out: list[ProviderEvent] = []
        self.blocks = 0

    def add(self, kind: str, **fields: Any) -> None:
        self.out.append(ProviderEvent({"type": kind, **fields}, event=kind))

    def start(self) -> None:
        message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}
        message["citations"] = []
        message_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        data = {"id": message_id, "type": "message-start", "delta": {"message": message}}
        self.out.append(ProviderEvent(data, event="message-start"))

    def content_block(self, text: str, kind: Literal["text", "thinking"]) -> None:
        if not text:
            return
        index, self.blocks = self.blocks, self.blocks + 1
        opening = {"content": {"type": kind, kind: ""}}
        self.add("content-start", index=index, delta={"message": opening})
        for piece in _PIECE.findall(text):
            self.add("content-delta", index=index, delta={"message": {"content": {kind: piece}}})
        self.add("content-end", index=index)

    def tool_plan(self, text: str) -> None:
        for piece in _PIECE.findall(text):
            self.add("tool-plan-delta", delta={"message": {"tool_plan": piece}})

    def tool_calls(self) -> None:
        fragments = self.stream.fragments
        last = {fragment.call: n for n, fragment in enumerate(fragments)}
        opened: set[int] = set()
        for n, fragment in enumerate(fragments):
            index = fragment.call
            if index not in opened:
                opened.add(index)
                function = {"name": fragment.name, "arguments": fragment.args or ""}
                call = {"id": fragment.id, "type": "function", "function": function}
                self.add("tool-call-start", index=index, delta={"message": {"tool_calls": call}})
            elif fragment.args is not None:
                arguments = {"function": {"arguments": fragment.args}}
                self.add(
                    "tool-call-delta", index=index, delta={"message": {"tool_calls": arguments}}
                )
            if last[index] == n:
                self.add("tool-call-end", index=index)

    def build(self) -> list[ProviderEvent]:
        plan, stream = self.stream.plan, self.stream
        self.start()
        self.content_block(plan.reasoning, "thinking")
        if plan.calls:
            self.tool_plan(plan.text_before)
        else:
            self.content_block(plan.text_before, "text")
        self.tool_calls()
        if stream.truncated_call is None:
            self.content_block(plan.text_after, "text")
        if stream.finish in ("eof", "error"):
            if self.out[-1].event in ("tool-call-end", "content-end"):
                self.out.pop()  # the connection drops inside the last call or block
            if stream.finish == "eof":
                return self.out
            delta = {"error": _ERROR_TEXT, "finish_reason": "ERROR", "usage": _usage(plan)}
        else:
            delta = {"finish_reason": _FINISH[stream.finish], "usage": _usage(plan)}
        self.add("message-end", delta=delta)
        return [*self.out, ProviderEvent("[DONE]")]


def _usage(plan: Plan) -> dict[str, Any]:
    written = plan.reasoning + plan.text_before + plan.text_after
    written += "".join(str(call.args) for call in plan.calls)
    output = 1 + len(written) // 4
    billed = {"input_tokens": 62, "output_tokens": output}
    return {"billed_units": billed, "tokens": {"input_tokens": 968, "output_tokens": output + 55}}


def _check_finish(stream: PlannedStream) -> None:
    """Raise for a finish this wire cannot say (the module docstring says why)."""
    if stream.finish == "content_filter":
        raise TooltapeUsageError(
            "finish 'content_filter' cannot be rendered by dialect cohere_v2: Cohere's finish "
            "reasons are COMPLETE, STOP_SEQUENCE, MAX_TOKENS, TOOL_CALL, ERROR and TIMEOUT"
        )


class CohereV2Dialect(CohereIntegration, Dialect):
    """Cohere's v2 chat stream; the reference adapter is ``ChatCohere`` (langchain-cohere)."""

    name = "cohere_v2"
    call_id_format = _CALL_ID
    path = "/v2/chat"
    stream_flag = True
    event_shape = (
        ("type", "str"),
        ("index", "int"),
        *fields_of("delta", message="object"),
        *fields_of("delta.message.tool_calls", "object|list", id="str"),
        *fields_of("delta.message.tool_calls.function", name="str", arguments="str"),
    )
    carries = CARRIES
    lacks = LACKS

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The events of the planned stream, ``message-start`` to ``[DONE]``.

        Raises:
            TooltapeUsageError: A quirk or finish cannot be said on this wire.
        """
        _check_finish(stream)
        require_header_fields(stream, self.name, "on tool-call-start")
        return _Events(stream).build()

    def event_pieces(self, data: Any) -> list[Piece]:
        """Text of ``content-delta`` and ``tool-plan-delta`` (before calls); ``tool-call-*``."""
        kind = str(dig(data, "type") or "")
        if kind == "content-delta":
            return text_piece("text", dig(data, "delta", "message", "content", "text"))
        if kind == "tool-plan-delta":
            return text_piece("text", dig(data, "delta", "message", "tool_plan"))
        return [("tool", "")] if kind.startswith("tool-call") else []

    parse = staticmethod(parse_cohere)
    completion_body = staticmethod(cohere_completion)
    validate = staticmethod(validate_cohere_request)
    body_error = staticmethod(cohere_body_error)
