"""The ``ollama`` dialect: Ollama's native chat API (``POST /api/chat``, NDJSON).

Wire (the recordings in ``tests/corpus/ollama``): one JSON object per line,
``application/x-ndjson``, each
line ``{"model", "created_at", "message": {"role": "assistant", "content", ...},
"done": false}``: ``message.thinking`` pieces for ``Plan.reasoning``, ``content``
pieces for the text, then tool calls *whole*: ``message.tool_calls`` entries
``{"id", "function": {"index", "name", "arguments": {...}}}`` whose arguments are
a JSON object, not text. The last line is ``done: true`` with ``done_reason`` and
the counters (``total_duration``, ``load_duration``, ``prompt_eval_count``,
``prompt_eval_duration``, ``eval_count``, ``eval_duration``). Lines are written
as Go's ``json.Marshal`` writes them (compact, raw UTF-8, ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped), key order that of Ollama's Go structs.

Ids are on by default (current Ollama mints ``call_`` plus 8 characters and puts
``index`` inside ``function``); ``missing_id`` plus ``no_index`` give the older
shape with neither. A call's line is the line of its first fragment; its
arguments are all its fragments' text joined and parsed, so the default
token-sized split and ``whole_call`` render alike and ``pack_fragments`` with
``whole_call`` puts several calls in one line (as Ollama does for parallel
calls). Quirks that need argument text, names or ids spread over chunks, or an
index other than the call's position, cannot be said on this wire: they raise
:class:`~tooltape.harness.TooltapeUsageError` naming quirk, dialect and why
(``LACKS``). The ``reemitted_calls`` EVENTS quirk sends every tool-call
line twice (ChatOllama then runs each call twice).

Finish: ``tool_calls`` and ``stop`` end with ``done_reason: "stop"`` (Ollama has
no tool-call reason), ``length`` with ``"length"``; ``content_filter`` has no
Ollama equivalent and is refused; ``eof`` ends after the tool-call lines (no
``text_after``, no done line); ``error`` then sends ``{"error": ...}``, which the
ollama client raises as ``ResponseError``.

Parsing is :func:`~tooltape.fake_providers.dialects.ollama._parse.read_ollama_stream`:
``parse`` gives what ``ChatOllama.stream()`` (and ``.astream()``) yields.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from random import Random
from typing import Any, Literal

from tooltape.fake_providers._call_ids import LOWER_ALNUM, IdShape
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import echo_model
from tooltape.fake_providers._event_text import Piece, dig, finish_named, text_piece
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.dialects.ollama._complete import ollama_completion
from tooltape.fake_providers.dialects.ollama._integration import OllamaIntegration
from tooltape.fake_providers.dialects.ollama._parse import parse_ollama
from tooltape.fake_providers.dialects.ollama._validate import (
    ollama_body_error,
    validate_ollama_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Finish, PlannedStream, Quirk, Stage, TooltapeUsageError, evidence
from tooltape.harness.json_text import compact, loads

__all__ = ["OllamaDialect", "OllamaReemittedCalls", "go_json"]

MODEL = "llama3.1:8b"
"""The model named on every line."""

_ERROR_TEXT = "an error was encountered while running the model: unexpected EOF"
_DONE_REASONS = {"tool_calls": "stop", "stop": "stop", "length": "length"}
_PIECE = re.compile(r"\s*\S+|\s+")
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
_GO_ESCAPES |= {"\u2028": "\\u2028", "\u2029": "\\u2029"}
_GO_ESCAPE = re.compile("[<>&\u2028\u2029]")

_WHOLE = "each call travels whole in one line, its arguments a JSON object"
LACKS = {
    "escaped_text": "Go's json.Marshal writes non-ASCII raw, and arguments are an object",
    "args_text": "Ollama's arguments are a map inside a JSON line: they cannot be malformed "
    "or anything but an object (the ollama client also requires a mapping)",
    "arg_pieces": _WHOLE + ", so its argument text cannot be cut, repeated or truncated (a "
    "cut call never reaches the wire: end the plan with finish 'eof' or 'length' instead)",
    "interleaving": _WHOLE + ", so calls cannot interleave",
    "name_fragments": _WHOLE + ", naming it once",
    "id_fragments": _WHOLE + ", so it has one id, sent once",
    "index_field": "function.index is the call's position in the response; a shared index "
    "is the OpenAI-compatible endpoint's quirk (render it with the openai_chat dialect)",
}


_CALL_ID = IdShape("ollama", "call_", LOWER_ALNUM, 8)
"""Ollama's tool-call ids: ``call_`` and 8 lower-case letters and digits (corpus)."""


@evidence(
    "Ollama native, run-llama/llama_index#22464 (dedup by content)", "openclaw/Tachikoma/pull/34"
)
class OllamaReemittedCalls(Quirk, kind="reemitted_calls", stage=Stage.EVENTS, lossless=False):
    """Send every tool-call line twice: ChatOllama yields (and an agent runs) each call twice."""


# --- rendering --------------------------------------------------------------------------


class _Lines:
    """Builds one stream's lines; every line gets a later ``created_at``."""

    def __init__(self, seed: int) -> None:
        self.rng = Random(f"{seed}:ollama")
        self.clock = datetime(2025, 8, 4, 19, 22, 45, tzinfo=UTC)
        self.clock += timedelta(microseconds=self.rng.randint(0, 999_999))
        self.out: list[ProviderEvent] = []

    def created_at(self) -> str:
        self.clock += timedelta(microseconds=self.rng.randint(9_000, 40_000))
        nanos = self.clock.microsecond * 1000 + self.rng.randint(0, 999)
        # Go's RFC3339Nano: nanosecond digits with trailing zeros trimmed.
        fraction = f"{nanos:09d}".rstrip("0")
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"

    def line(self, message: dict[str, Any], **tail: Any) -> None:
        head = {"model": MODEL, "created_at": self.created_at()}
        self.out.append(ProviderEvent({**head, "message": message, **tail}))

    def chunk(self, content: str = "", **fields: Any) -> None:
        self.line({"role": "assistant", "content": content, **fields}, done=False)

    def texts(self, text: str, field: Literal["content", "thinking"]) -> None:
        for piece in _PIECE.findall(text):
            if field == "thinking":
                self.chunk(thinking=piece)
            else:
                self.chunk(piece)

    def done(self, reason: str, written: int) -> None:
        output = 1 + written // 4
        load_ns = self.rng.randint(10**6, 10**8)
        prompt_ns = self.rng.randint(5, 99) * 10**7
        eval_ns = output * self.rng.randint(15, 30) * 10**6
        total_ns = load_ns + prompt_ns + eval_ns + self.rng.randint(10**5, 10**6)
        counters = {"total_duration": total_ns, "load_duration": load_ns}
        counters |= {"prompt_eval_count": 26, "prompt_eval_duration": prompt_ns}
        counters |= {"eval_count": output, "eval_duration": eval_ns}
        self.line({"role": "assistant", "content": ""}, done_reason=reason, done=True, **counters)


def _tool_call_lines(stream: PlannedStream) -> list[list[dict[str, Any]]]:
    """The ``tool_calls`` of each line: a call rides on the line of its first fragment."""
    texts: dict[int, str] = {}
    for fragment in stream.fragments:
        texts[fragment.call] = texts.get(fragment.call, "") + (fragment.args or "")
    lines: list[list[dict[str, Any]]] = []
    seen: set[int] = set()
    for message in stream.messages:
        entries = []
        for fragment in message:
            if fragment.call in seen:
                continue
            seen.add(fragment.call)
            entry: dict[str, Any] = {} if fragment.id is None else {"id": fragment.id}
            function: dict[str, Any] = {} if fragment.index is None else {"index": fragment.index}
            function |= {"name": fragment.name, "arguments": _arguments(texts[fragment.call])}
            entries.append(entry | {"function": function})
        if entries:
            lines.append(entries)
    return lines


def _arguments(text: str) -> dict[str, Any]:
    value = loads(text) if text.strip() else {}
    if not isinstance(value, dict):  # pragma: no cover - the refused quirks make these
        raise TooltapeUsageError(f"ollama arguments must be a JSON object, got {text!r}")
    return value


def _check_finish(stream: PlannedStream) -> None:
    """Raise for a finish this wire cannot say."""
    if stream.finish == "content_filter":
        raise TooltapeUsageError(
            "finish 'content_filter' cannot be rendered by dialect ollama: Ollama has no content "
            "filter; its done_reason is 'stop' or 'length'"
        )


def go_json(data: dict[str, Any] | str) -> str:
    """Serialise like Go's ``json.Marshal``: compact, raw UTF-8, HTML characters escaped."""
    if not isinstance(data, str):
        data = compact(data)
    return _GO_ESCAPE.sub(lambda match: _GO_ESCAPES[match.group()], data)


# --- the dialect ------------------------------------------------------------------------


class OllamaDialect(OllamaIntegration, Dialect):
    """Ollama's native ``/api/chat`` stream; the reference adapter is ``ChatOllama``.

    ``stream_flag`` stays False: Ollama streams unless the body says
    ``"stream": false``, and :meth:`validate` answers such a request with a 400
    that says why (tooltape serves streamed turns only).
    """

    name = "ollama"
    call_id_format = _CALL_ID
    path = "/api/chat"
    framing = "ndjson"
    event_shape = (
        ("message", "object"),
        ("message.tool_calls", "list|null"),
        ("message.tool_calls[]", "object"),
        *fields_of(
            "message.tool_calls[].function", name="str", arguments="object|str", index="int"
        ),
    )
    media_type = "application/x-ndjson"
    completion_media_type = "application/json; charset=utf-8"
    carries = frozenset({"optional_id", "optional_index", "packing"})
    lacks = LACKS
    event_quirks = (OllamaReemittedCalls,)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """Lines for the planned stream: thinking, text, whole tool calls, the done line.

        Raises:
            TooltapeUsageError: A finish this wire cannot say.
        """
        _check_finish(stream)
        plan, lines = stream.plan, _Lines(stream.seed)
        lines.texts(plan.reasoning, "thinking")
        lines.texts(plan.text_before, "content")
        for calls in _tool_call_lines(stream):
            for _ in range(2 if quirks.has(OllamaReemittedCalls) else 1):
                lines.chunk(tool_calls=calls)
        if stream.finish == "eof":
            return lines.out
        if stream.finish == "error":
            return [*lines.out, ProviderEvent({"error": _ERROR_TEXT})]
        lines.texts(plan.text_after, "content")
        written = len(plan.reasoning + plan.text_before + plan.text_after)
        written += sum(len(json.dumps(call.args)) for call in plan.calls)
        lines.done(_DONE_REASONS[stream.finish], written)
        return lines.out

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """The non-streamed answer as Go's ``json.Marshal`` writes it (no trailing newline)."""
        return go_json(body).encode()

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """Every line names the request's ``model`` exactly as written, as Ollama does."""
        return echo_model(events, request)

    def frame(self, event: ProviderEvent) -> bytes:
        """One line, serialised as Ollama's Go server does."""
        return (go_json(event.data) + "\n").encode()

    def event_pieces(self, data: Any) -> list[Piece]:
        """``message.thinking``, ``message.content`` and ``message.tool_calls``."""
        message = dig(data, "message")
        if not isinstance(message, dict):
            return []
        pieces = text_piece("reasoning", message.get("thinking"))
        pieces += text_piece("text", message.get("content"))
        return [*pieces, ("tool", "")] if message.get("tool_calls") else pieces

    def event_finish(self, data: Any) -> Finish | None:
        """``done_reason`` ``length``."""
        return finish_named(dig(data, "done_reason"), {"length": "length"})

    parse = staticmethod(parse_ollama)
    completion_body = staticmethod(ollama_completion)
    validate = staticmethod(validate_ollama_request)
    body_error = staticmethod(ollama_body_error)
