"""The ``gemini`` dialect: Gemini ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``.

Frames, as the live API sends them (the recordings in ``tests/corpus/gemini``):
each SSE ``data:`` is a whole ``GenerateContentResponse`` —
``{"candidates": [{"content": {"parts": [...], "role": "model"}, "index": 0}],
"usageMetadata": {...}, "modelVersion", "responseId"}`` — JSON written with
``","`` between items and ``": "`` after keys, raw UTF-8. No ``[DONE]``. The default
shape is a Gemini 3 model's (2026 recordings): thought parts for
:attr:`Plan.reasoning` (``"thought": true``), text parts, then one frame per call
holding one ``{"functionCall": {"name", "args", "id"}}`` part, the first call's
part signed with a ``thoughtSignature`` (a text-only turn signs its last text
part), then a separate final frame with an empty text part and
``finishReason`` (``STOP`` for calls and stops alike, ``MAX_TOKENS``, ``SAFETY``).
``usageMetadata`` is cumulative and on every frame. Real Gemini ends lines with
CRLF (https://github.com/Routstr/routstr-core/pull/543), and so does this
dialect by default: events are framed with LF and
re-ended with CRLF last, after the other wire quirks, unless a ``line_endings``
quirk says otherwise (``{"kind": "line_endings", "style": "lf"}`` for LF).

A call is one part whose ``args`` is a JSON object, so tool-chunk quirks that
cut, repeat or corrupt argument text, move names or ids to other chunks, or set
indexes (the wire has none) cannot be said: they raise
:class:`~tooltape.harness.TooltapeUsageError` naming quirk, dialect and reason.
Accepted: any splitter (a call is always whole), ``ascii_escapes`` (frames
escape non-ASCII), ``empty_args`` (no ``args`` key, as Vertex sends
argument-less calls), ``missing_id`` (no ``id``: Gemini 2.x), ``duplicate_ids``
and ``pack_fragments`` (the calls that start in one packed message share a
frame: parallel calls in one frame, as Gemini 2.x sends them). Finish ``eof``
stops after the last call frame; ``error`` then sends ``{"error": {"code": 503,
"message", "status": "UNAVAILABLE"}}``, which google-genai raises as ``ServerError``.

EVENTS quirks, in :mod:`tooltape.fake_providers.dialects.gemini._quirks`: :class:`GeminiModel`
(another ``modelVersion``: Gemini 2.x content stays a string, so text no longer
shifts the adapter's call indexes), :class:`FinishWithLastPart` and
:class:`FinishWithoutParts` (https://github.com/envoyproxy/ai-gateway/pull/2399),
:class:`NoThoughtSignature` and :class:`SignatureOnlyPart`
(https://github.com/Chevey339/kelivo/pull/1002), :class:`LowerFinalPromptCount`
(https://github.com/langchain-ai/langchain-google) and :class:`PartialArgs`
(Vertex AI's ``streamFunctionCallArguments``).

Vertex AI streams the same frames, so it has no dialect of its own: serve it with
``FakeProvider("gemini", base_url=...)``, whose path matches any URL ending in
``models/{model}:streamGenerateContent`` (``/v1``, ``/v1beta``, Vertex's
``/v1beta1/publishers/google/...`` alike).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from random import Random
from typing import Any

from tooltape.fake_providers._call_ids import LOWER_ALNUM, IdShape
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import url_model
from tooltape.fake_providers._event_text import Piece, dig, finish_named, text_piece
from tooltape.fake_providers._sse_quirks import LineEndings
from tooltape.fake_providers._wire import ProviderRequest, Wire
from tooltape.fake_providers.dialects.gemini._complete import gemini_completion
from tooltape.fake_providers.dialects.gemini._integration import GeminiIntegration
from tooltape.fake_providers.dialects.gemini._parse import parse_gemini
from tooltape.fake_providers.dialects.gemini._quirks import (
    CARRIES,
    EVENT_QUIRKS,
    LACKS,
    FinishWithLastPart,
    FinishWithoutParts,
    GeminiModel,
    LowerFinalPromptCount,
    NoThoughtSignature,
    PartialArgs,
    SignatureOnlyPart,
    check_combinations,
    partial_parts,
)
from tooltape.fake_providers.dialects.gemini._validate import (
    gemini_body_error,
    validate_gemini_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Finish, Fragment, PlannedStream, Quirk, TooltapeUsageError
from tooltape.harness.json_text import loads

__all__ = ["MODEL", "GeminiDialect"]

MODEL = "gemini-3.5-flash"
"""The default ``modelVersion`` (a Gemini 3 model, as in the 2026 recordings)."""

_FINISH_REASONS = {
    "tool_calls": "STOP",  # Gemini has no tool-call finish reason
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}
_OVERLOADED = {"code": 503, "message": "The model is overloaded. Please try again later."}
_PROMPT_TOKENS = 71
_WORDS = re.compile(r"\s*\S+")
_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

Part = dict[str, Any]


# --- rendering --------------------------------------------------------------------------


_CALL_ID = IdShape("gemini", "", LOWER_ALNUM, 8)
"""Gemini 3 function-call ids: 8 lower-case letters and digits (corpus)."""


class _Frames:
    """Builds one stream's frames: each a list of parts, then the envelope around them."""

    def __init__(self, stream: PlannedStream, quirks: EventQuirks) -> None:
        self.stream = stream
        self.quirks = quirks
        self.rng = Random(f"{stream.seed}:gemini")
        model = quirks.get(GeminiModel)
        self.model = model.model if model is not None else MODEL
        self.response_id = "".join(self.rng.choice(_ID_ALPHABET) for _ in range(23))
        self.signed = not quirks.has(NoThoughtSignature)
        self.signature = _signature(stream) if self.signed else ""
        self.thinking = self.signed or bool(stream.plan.reasoning)

    def content(self) -> list[list[Part]]:
        """The parts of every content frame, signature placed, before the finish."""
        plan = self.stream.plan
        frames = [[{"text": piece, "thought": True}] for piece in self.pieces(plan.reasoning)]
        frames += [[{"text": piece}] for piece in self.pieces(plan.text_before)]
        calls_from = len(frames)
        frames += self.call_frames()
        if self.stream.finish not in ("eof", "error"):
            frames += [[{"text": piece}] for piece in self.pieces(plan.text_after)]
        if self.signed and not self.quirks.has(SignatureOnlyPart):
            target = self.signature_target(frames, calls_from)
            if target is not None:
                target["thoughtSignature"] = self.signature
        return frames

    def signature_target(self, frames: list[list[Part]], calls_from: int) -> Part | None:
        """The first call's part, else the last text part (rust-genai#302)."""
        for frame in frames[calls_from:]:
            for part in frame:
                if "functionCall" in part:
                    return part
        texts = [p for frame in frames for p in frame if "text" in p and not p.get("thought")]
        return texts[-1] if texts else None

    def pieces(self, text: str) -> list[str]:
        words = _WORDS.findall(text)
        out = []
        while words:
            size = self.rng.randint(3, 8)
            out.append("".join(words[:size]))
            words = words[size:]
        return out

    def call_frames(self) -> list[list[Part]]:
        """One frame per packed message that opens calls; one part per call (whole)."""
        args = _call_args(self.stream)
        partial = self.quirks.get(PartialArgs)
        rng = Random(f"{self.stream.seed}:partial_args")
        frames: list[list[Part]] = []
        seen: set[int] = set()
        for message in self.stream.messages:
            headers = [f for f in message if f.call not in seen]
            seen.update(f.call for f in headers)
            if partial is not None:
                for header in headers:
                    frames += [[p] for p in partial_parts(header, args[header.call], partial, rng)]
            elif headers:
                frames.append([_call_part(header, args[header.call]) for header in headers])
        return frames

    def signature_part(self) -> Part | None:
        """The trailing signature-only part of :class:`SignatureOnlyPart`, if any."""
        quirk = self.quirks.get(SignatureOnlyPart)
        if not self.signed or quirk is None:
            return None
        part: Part = {"text": ""} if quirk.empty_text else {}
        return part | {"thoughtSignature": self.signature}

    def envelope(
        self, parts: list[Part] | None, usage: dict[str, Any], finish: str | None
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {}
        if parts is not None:
            candidate["content"] = {"parts": parts, "role": "model"}
        if finish is not None:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": self.model,
            "responseId": self.response_id,
        }

    def usage(self, output: int, prompt: int = _PROMPT_TOKENS) -> dict[str, Any]:
        thoughts = 64 + len(self.stream.plan.reasoning) // 4 if self.thinking else 0
        usage: dict[str, Any] = {"promptTokenCount": prompt}
        if output:
            usage["candidatesTokenCount"] = output
        usage["totalTokenCount"] = prompt + output + thoughts
        usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        usage["serviceTier"] = "standard"
        return usage

    def with_finish(self) -> list[tuple[list[Part] | None, str | None]]:
        """Each frame's parts (``None``: no content) and ``finishReason`` (where ``STOP`` goes)."""
        out: list[tuple[list[Part] | None, str | None]] = [(p, None) for p in self.content()]
        finish = _FINISH_REASONS.get(self.stream.finish)
        if finish is None:  # eof and error: the stream stops before any finish
            return out
        signature = self.signature_part()
        signatures = [signature] if signature else []
        if self.quirks.has(FinishWithLastPart) and out:
            out[-1] = ([*(out[-1][0] or []), *signatures], finish)
        elif self.quirks.has(FinishWithoutParts):
            out.append((None, finish))
        elif signature is not None and "text" in signature:
            out.append(([signature], finish))
        else:
            out.append(([{"text": ""}, *signatures], finish))
        return out

    def build(self) -> list[dict[str, Any]]:
        """Every frame's payload, cumulative usage included, then the error if any."""
        frames = self.with_finish()
        lower = self.quirks.get(LowerFinalPromptCount)
        events, output = [], 0
        for n, (parts, reason) in enumerate(frames):
            output += sum(_tokens(p) for p in parts or [] if not p.get("thought"))
            prompt = _PROMPT_TOKENS
            if lower is not None and n == len(frames) - 1:
                prompt -= lower.by
            events.append(self.envelope(parts, self.usage(output, prompt), reason))
        if self.stream.finish == "error":
            events.append({"error": {**_OVERLOADED, "status": "UNAVAILABLE"}})
        return events


def _tokens(part: Part) -> int:
    text = part.get("text")
    if text is not None:
        return (len(text) + 3) // 4
    return 1 + len(json.dumps(part.get("functionCall", {}))) // 4


def _signature(stream: PlannedStream) -> str:
    digest = hashlib.sha256(f"{stream.seed}:{stream.plan.model_dump_json()}".encode()).digest()
    return base64.b64encode(b"\x12\x8c\x02\n\x89\x02\x01" + digest * 3).decode()


def _call_args(stream: PlannedStream) -> dict[int, dict[str, Any] | None]:
    """Each call's arguments as the object its fragments spell (``None``: no args key)."""
    texts: dict[int, str] = {}
    for fragment in stream.fragments:
        texts[fragment.call] = texts.get(fragment.call, "") + (fragment.args or "")
    args: dict[int, dict[str, Any] | None] = {}
    for call, text in texts.items():
        value = loads(text) if text.strip() else None
        if value is not None and not isinstance(value, dict):  # pragma: no cover - refused
            raise TooltapeUsageError(f"dialect gemini needs object args; call {call}: {text!r}")
        args[call] = value
    return args


def _call_part(header: Fragment, args: dict[str, Any] | None) -> Part:
    call: dict[str, Any] = {"name": header.name}
    if args is not None:
        call["args"] = args
    if header.id is not None:
        call["id"] = header.id
    return {"functionCall": call}


# --- the dialect ------------------------------------------------------------------------


_FUNCTION_CALL = "candidates[].content.parts[].functionCall"
"""Where a call sits in a streamed response."""


class GeminiDialect(GeminiIntegration, Dialect):
    """Gemini ``streamGenerateContent?alt=sse``, read by ``ChatGoogleGenerativeAI``.

    Streaming is chosen by the URL, not by the body, so ``stream_flag`` is off.
    """

    name = "gemini"
    call_id_format = _CALL_ID
    path = "/v1beta/models/{model}:streamGenerateContent"
    complete_path = "/v1beta/models/{model}:generateContent"
    completion_media_type = "application/json; charset=UTF-8"
    event_shape = (
        ("candidates", "list"),
        *fields_of("candidates[]", content="object"),
        ("candidates[].content.parts", "list"),
        ("candidates[].content.parts[]", "object"),
        *fields_of(_FUNCTION_CALL, name="str|null", args="object|null", id="str|null"),
    )
    carries = CARRIES
    lacks = LACKS
    event_quirks = EVENT_QUIRKS

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The frames for a planned stream (see the module docstring).

        Raises:
            TooltapeUsageError: Two quirks this wire cannot say together.
        """
        check_combinations(stream, quirks)
        ascii_only = any(getattr(q, "kind", "") == "ascii_escapes" for q in stream.quirks)
        return [
            ProviderEvent(json.dumps(data, separators=(",", ": "), ensure_ascii=ascii_only))
            for data in _Frames(stream, quirks).build()
        ]

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """``modelVersion`` names the model in the request's URL, as the live API does."""
        model = url_model(request)
        if model is None or model == MODEL:
            return events
        ours, theirs = (
            f'"modelVersion": {json.dumps(MODEL)}',
            f'"modelVersion": {json.dumps(model)}',
        )
        return [
            ProviderEvent(e.data.replace(ours, theirs), e.event) if isinstance(e.data, str) else e
            for e in events
        ]

    def wire(self, frames: list[bytes], wire_quirks: Sequence[Quirk], seed: int) -> Wire:
        """Cut the frames into reads with CRLF line ends, as every real recording has them."""
        if not any(quirk.kind == "line_endings" for quirk in wire_quirks):
            wire_quirks = (*wire_quirks, LineEndings(style="crlf"))
        return super().wire(frames, wire_quirks, seed)

    def event_pieces(self, data: Any) -> list[Piece]:
        """The first candidate's parts in order: text (``thought``: reasoning), functionCall."""
        pieces: list[Piece] = []
        for part in dig(data, "candidates", 0, "content", "parts") or []:
            if isinstance(part, dict):
                pieces += text_piece(
                    "reasoning" if part.get("thought") else "text", part.get("text")
                )
                pieces += [("tool", "")] if part.get("functionCall") else []
        return pieces

    def event_finish(self, data: Any) -> Finish | None:
        """The first candidate's ``finishReason``: ``MAX_TOKENS`` or ``SAFETY``."""
        reason = dig(data, "candidates", 0, "finishReason")
        return finish_named(reason, {"MAX_TOKENS": "length", "SAFETY": "content_filter"})

    parse = staticmethod(parse_gemini)
    completion_body = staticmethod(gemini_completion)

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """Pretty-printed with a two-space indent, as Google's front end writes JSON."""
        return json.dumps(body, indent=2, ensure_ascii=False).encode()

    validate = staticmethod(validate_gemini_request)
    body_error = staticmethod(gemini_body_error)
