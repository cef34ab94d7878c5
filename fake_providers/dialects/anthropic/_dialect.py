"""The ``anthropic_messages`` dialect: Anthropic Messages streaming (``POST /v1/messages``).

Events, as the live API sends them (https://github.com/cloudwego/eino/issues/432; the recordings in
``tests/corpus/anthropic``): ``message_start``; then content blocks, each
``content_block_start``, ``content_block_delta``..., ``content_block_stop``:
``thinking`` for ``Plan.reasoning`` (``thinking_delta`` pieces, one
``signature_delta``), ``text`` for ``text_before``, one ``tool_use`` per call,
``text`` for ``text_after``; then ``message_delta`` (``stop_reason``, usage) and
``message_stop``. One ``ping`` follows the first block start. Every event has an
``event:`` line (anthropic SDK 2.x drops events without one); JSON is compact,
non-ASCII raw UTF-8. A block's ``index`` is its position in the final
``content``, so tool_use blocks after thinking or text start at 1 or 2 (https://github.com/BerriAI/litellm/issues/11407).
``message_start``'s message keys run ``model, id, type, role, ...`` and every
event but ``ping`` is padded with spaces before its last ``}``, as in the 2025-2026
recordings; tool_use ids the plan numbered are sent as ``toolu_01`` plus 22
letters and digits.

Fragments map to blocks by ``Fragment.call``: a call's block opens at its first
fragment (``{"type": "tool_use", "id", "name", "input": {}}``), each fragment's
argument text is one ``input_json_delta`` (the header's ``""`` is the empty
first ``partial_json`` real streams start with), and the block closes after its
last fragment. ``Fragment.index`` is unused: the wire index is the block position.

Quirks: the argument-text quirks are expressible (``split_args``,
``whole_args``, ``whole_call``, ``split_inside_escapes``, ``ascii_escapes``,
``empty_args`` (argument-less tools), ``malformed_args`` / ``non_object_args`` and
``truncate_args`` (fine-grained tool streaming; a proxy's cut), ``cumulative_args``:
each ``partial_json`` repeats the prefix), and so is ``duplicate_ids``.
``interleave_calls`` is rendered faithfully though Anthropic never sends it (Claude
on Bedrock does): several tool_use blocks stay open and deltas of different indexes
alternate. Quirks that put the name or id on other chunks or change the index
cannot be said here (the name and id ride once on the start, the index is the position): they raise
:class:`~tooltape.harness.TooltapeUsageError` naming quirk and dialect
(``LACKS``), and so do other dialects' EVENTS quirks. This dialect's
EVENTS quirks (``ping_events``, ``json_padding``, ``no_json_padding``,
``no_empty_partial_json``, ``input_on_block_start``) add pings, set or drop the
live API's padding (padded by default), and give the other shape of an
argument-less call and the arguments already parsed on the start.

Finish: ``tool_calls``/``stop``/``length``/``content_filter`` become
``tool_use``/``end_turn``/``max_tokens``/``refusal``. ``eof`` ends after the last
content delta, that block open, with no ``message_delta`` or ``message_stop``
(https://github.com/BerriAI/litellm/pull/32159); ``error`` cuts there too, then
sends ``event: error`` ``overloaded_error``
(https://platform.claude.com/docs/build-with-claude/streaming).
"""

from __future__ import annotations

import base64
import hashlib
import json
from random import Random
from typing import Any

from pydantic import Field

from tooltape.fake_providers._call_ids import ALNUM, IdShape
from tooltape.fake_providers._content_blocks import (
    CARRIES,
    ContentBlockEvents,
    Event,
    content_block_lacks,
)
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import requested_model
from tooltape.fake_providers._event_text import Piece, dig, finish_named, text_piece
from tooltape.fake_providers._expressible import require_header_fields
from tooltape.fake_providers._sse import encode_sse
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.dialects.anthropic._complete import anthropic_message
from tooltape.fake_providers.dialects.anthropic._integration import AnthropicIntegration
from tooltape.fake_providers.dialects.anthropic._parse import read_anthropic_stream
from tooltape.fake_providers.dialects.anthropic._validate import (
    anthropic_body_error,
    validate_anthropic_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import (
    Finish,
    Fragment,
    Plan,
    PlannedStream,
    Quirk,
    Stage,
    TooltapeUsageError,
    evidence,
)
from tooltape.harness.json_text import compact, loads

__all__ = [
    "AnthropicInputOnBlockStart",
    "AnthropicMessagesDialect",
    "AnthropicNoEmptyPartialJson",
    "AnthropicJsonPadding",
    "AnthropicNoJsonPadding",
    "AnthropicPingEvents",
]

MODEL = "claude-sonnet-4-6"
"""The model named in ``message_start``."""

_STOP_REASONS = {
    "tool_calls": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
_PING = '{"type": "ping"}'  # the live API's exact bytes: the one event it does not compact

LACKS = content_block_lacks("content_block_start", "input_json_delta")


# --- EVENTS-stage quirks ----------------------------------------------------------------


ANTHROPIC_CALL_ID = IdShape("anthropic", "toolu_01", ALNUM, 22)
"""Anthropic's tool-use ids: ``toolu_01`` and 22 letters and digits (corpus)."""


class _AnthropicEventQuirk(Quirk, stage=Stage.EVENTS):
    """Base of this dialect's EVENTS quirks; any other EVENTS quirk is refused."""


@evidence(
    "Anthropic keep-alives",
    "https://platform.claude.com/docs/build-with-claude/streaming cloudwego/eino#432",
)
class AnthropicPingEvents(_AnthropicEventQuirk, kind="ping_events"):
    """Send ``ping`` keep-alive events between the other events ("anywhere": https://platform.claude.com/docs/build-with-claude/streaming)."""

    every: int = Field(default=1, ge=1)
    """A ping after every ``every`` events."""


@evidence(
    "Anthropic and Bedrock argument-less tools",
    "langchain-ai/langchain/pull/23915 microsoft/autogen/pull/6979",
)
class AnthropicNoEmptyPartialJson(_AnthropicEventQuirk, kind="no_empty_partial_json"):
    """Leave out the empty first ``partial_json`` after a tool_use start.

    With ``empty_args`` an argument-less call then has no ``input_json_delta``
    at all, the other shape Anthropic streams an argument-less call in.
    """


@evidence("handled explicitly by langchain-anthropic", "https://github.com/langchain-ai/langchain")
class AnthropicInputOnBlockStart(_AnthropicEventQuirk, kind="input_on_block_start"):
    """Put the parsed arguments in ``content_block_start.input`` and send no deltas."""


@evidence("every recording in ../shared/corpus/anthropic", "cloudwego/eino#432")
class AnthropicJsonPadding(_AnthropicEventQuirk, kind="json_padding"):
    """Pad each event's JSON with up to ``max_spaces`` spaces before its last ``}``.

    The live API pads every event but ``ping`` (every recording in the corpus),
    and so does this dialect by default with ``max_spaces=16``; this quirk sets
    the most spaces, :class:`AnthropicNoJsonPadding` turns the padding off.
    """

    max_spaces: int = Field(default=16, ge=1)
    """The most spaces put into one event."""


@evidence(
    "Bedrock invoke chunks (corpus), re-encoding proxies",
    "cloudwego/eino#432",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html",
)
class AnthropicNoJsonPadding(_AnthropicEventQuirk, kind="no_json_padding"):
    """Compact JSON with no padding (Claude on Bedrock, proxies that re-encode the events)."""


# --- rendering --------------------------------------------------------------------------

_INPUT_USAGE = {"input_tokens": 472, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
_CACHE = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
_START_USAGE: dict[str, Any] = _INPUT_USAGE | {"cache_creation": _CACHE, "output_tokens": 1}
_START_USAGE |= {"service_tier": "standard", "inference_geo": "global"}
_MESSAGE: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
_MESSAGE |= {"stop_reason": None, "stop_sequence": None, "stop_details": None}
_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class _Events(ContentBlockEvents):
    """Builds one stream's events; blocks are numbered in the order they open."""

    reasoning = "thinking"
    block_stop = "content_block_stop"

    def __init__(self, stream: PlannedStream, quirks: EventQuirks) -> None:
        super().__init__(stream, quirks, "anthropic_messages")
        self.on_start = _inputs_on_start(stream) if quirks.has(AnthropicInputOnBlockStart) else {}
        self.skip_empty = quirks.has(AnthropicNoEmptyPartialJson)

    def block_event(self, kind: str, index: int, **fields: Any) -> None:
        self.out.append((kind, {"type": kind, "index": index, **fields}))

    def open(self, block: dict[str, Any]) -> int:
        index = self.next_block()
        self.block_event("content_block_start", index, content_block=block)
        return index

    def delta(self, index: int, kind: str, **fields: Any) -> None:
        self.block_event("content_block_delta", index, delta={"type": kind, **fields})

    def stop(self, index: int) -> None:
        self.block_event("content_block_stop", index)

    def text_block(self, text: str, kind: str) -> None:
        if not text:
            return
        empty = {"thinking": "", "signature": ""} if kind == "thinking" else {"text": ""}
        index = self.open({"type": kind, **empty})
        for piece in self.text_pieces(text):
            self.delta(index, f"{kind}_delta", **{kind: piece})
        if kind == "thinking":
            digest = base64.b64encode(hashlib.sha256(text.encode()).digest() * 3).decode()
            self.delta(index, "signature_delta", signature="Eo" + digest)
        self.stop(index)

    def open_tool(self, fragment: Fragment) -> int:
        block: dict[str, Any] = {"type": "tool_use", "id": fragment.id, "name": fragment.name}
        block |= {"input": self.on_start.get(fragment.call, {}), "caller": {"type": "direct"}}
        return self.open(block)

    def tool_delta(self, index: int, fragment: Fragment, first: bool) -> None:
        args = fragment.args
        if (
            args is not None
            and not self.on_start
            and not (first and self.skip_empty and args == "")
        ):
            self.delta(index, "input_json_delta", partial_json=args)

    def build(self) -> list[Event]:
        plan = self.stream.plan
        message_id = "msg_01" + "".join(self.rng.choice(_ID_ALPHABET) for _ in range(22))
        message = {"model": MODEL, "id": message_id, **_MESSAGE, "usage": _START_USAGE}
        self.out.append(("message_start", {"type": "message_start", "message": message}))
        if self.content():
            if self.stream.finish == "error":
                self.out.append(("error", _OVERLOADED))
            return self.out
        stop = {"stop_reason": _STOP_REASONS[self.stream.finish], "stop_sequence": None}
        delta = {"type": "message_delta", "delta": {**stop, "stop_details": None}}
        self.out.append(("message_delta", {**delta, "usage": _final_usage(plan)}))
        self.out.append(("message_stop", {"type": "message_stop"}))
        return self.out


def _final_usage(plan: Plan) -> dict[str, Any]:
    written = plan.reasoning + plan.text_before + plan.text_after
    written += "".join(json.dumps(call.args) for call in plan.calls)
    usage: dict[str, Any] = {**_INPUT_USAGE, "output_tokens": 1 + len(written) // 4}
    if plan.reasoning:
        usage["output_tokens_details"] = {"thinking_tokens": 1 + len(plan.reasoning) // 4}
    return usage


def _inputs_on_start(stream: PlannedStream) -> dict[int, Any]:
    """Each call's whole argument text, parsed, for :class:`AnthropicInputOnBlockStart`."""
    texts: dict[int, str] = {}
    for fragment in stream.fragments:
        texts[fragment.call] = texts.get(fragment.call, "") + (fragment.args or "")
    inputs = {}
    for call, text in texts.items():
        try:
            value = loads(text) if text.strip() else {}
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise TooltapeUsageError(
                f"quirk input_on_block_start needs whole JSON objects, but call {call} "
                f"carries {text!r} on the anthropic_messages wire; drop the quirks that break "
                "the arguments or this one"
            )
        inputs[call] = value
    return inputs


def _with_model(data: dict[str, Any] | str, model: str) -> dict[str, Any] | str:
    """A ``message_start`` payload (padded text or not) naming ``model`` instead of ours."""
    if isinstance(data, str):
        ours = '{"model":' + json.dumps(MODEL, ensure_ascii=False)
        theirs = '{"model":' + json.dumps(model, ensure_ascii=False)
        return data.replace(ours, theirs, 1)
    message = data.get("message")
    if isinstance(message, dict) and message.get("model") == MODEL:
        return {**data, "message": {**message, "model": model}}
    return data


def _padded(data: dict[str, Any], rng: Random, max_spaces: int) -> str:
    text = compact(data)
    return text[:-1] + " " * rng.randint(1, max_spaces) + "}"


def anthropic_event_pieces(data: Any) -> list[Piece]:
    """An Anthropic event's text and thinking deltas, and whether it starts a ``tool_use``."""
    kind = dig(data, "delta", "type")
    if kind == "text_delta":
        return text_piece("text", dig(data, "delta", "text"))
    if kind == "thinking_delta":
        return text_piece("reasoning", dig(data, "delta", "thinking"))
    return [("tool", "")] if dig(data, "content_block", "type") == "tool_use" else []


def anthropic_event_finish(data: Any) -> Finish | None:
    """An Anthropic ``message_delta``'s ``stop_reason`` ``max_tokens``, as ``length``."""
    return finish_named(dig(data, "delta", "stop_reason"), {"max_tokens": "length"})


class AnthropicMessagesDialect(AnthropicIntegration, Dialect):
    """Anthropic Messages streaming: SSE with ``event:`` lines, content blocks by index."""

    name = "anthropic_messages"
    call_id_format = ANTHROPIC_CALL_ID
    event_shape = (
        ("index", "int"),
        *fields_of("content_block", type="str", id="str", name="str", input="object"),
        *fields_of("delta", type="str", partial_json="str"),
    )
    path = "/v1/messages"
    stream_flag = True
    carries = CARRIES
    lacks = LACKS
    event_quirks = (_AnthropicEventQuirk,)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The provider events for a planned stream (see the module docstring).

        Raises:
            TooltapeUsageError: A call's id or name is not on its block start.
        """
        require_header_fields(stream, self.name)
        built = _Events(stream, quirks).build()
        pings = quirks.get(AnthropicPingEvents)
        every = pings.every if pings is not None else 0
        starts = [n for n, (name, _) in enumerate(built) if name == "content_block_start"]
        first_start = starts[0] if starts else 0
        padding = quirks.get(AnthropicJsonPadding)
        max_spaces = padding.max_spaces if padding is not None else 16
        rng = Random(f"{stream.seed}:json_padding")
        events: list[ProviderEvent] = []
        for n, (name, data) in enumerate(built):
            if not quirks.has(AnthropicNoJsonPadding):
                events.append(ProviderEvent(_padded(data, rng, max_spaces), name))
            else:
                events.append(ProviderEvent(data, name))
            if n == first_start or (every and (n + 1) % every == 0 and n + 1 < len(built)):
                events.append(ProviderEvent(_PING, "ping"))
        return events

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """``message_start`` names the request's ``model``, as the live API does."""
        model = requested_model(request)
        if model is None:
            return events
        out = []
        for event in events:
            if event.event == "message_start":
                event = ProviderEvent(_with_model(event.data, model), event.event)
            out.append(event)
        return out

    def frame(self, event: ProviderEvent) -> bytes:
        """One SSE event with compact JSON and raw UTF-8, as the live API frames it."""
        if isinstance(event.data, str):
            return encode_sse(event.data, event.event)
        text = compact(event.data)
        return encode_sse(text, event.event)

    parse = staticmethod(read_anthropic_stream)
    event_pieces = staticmethod(anthropic_event_pieces)
    event_finish = staticmethod(anthropic_event_finish)

    def complete(self, plan: Plan, request: ProviderRequest | None = None) -> dict[str, Any]:
        """The Message the API sends for ``plan`` without streaming (unpadded events)."""
        return anthropic_message(self.completion_events(plan, request, [AnthropicNoJsonPadding()]))

    validate = staticmethod(validate_anthropic_request)
    body_error = staticmethod(anthropic_body_error)
