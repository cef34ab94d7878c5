"""The ``mistral_native`` dialect: Mistral's own chat completions stream, read by ChatMistralAI.

Wire (``tests/corpus/mistral``; API reference "Chat Completion",
``stream: true``): ``POST https://api.mistral.ai/v1/chat/completions`` answered
with SSE ``data: {json}`` chunks and a closing ``data: [DONE]``. Each chunk is
``{"id", "object": "chat.completion.chunk", "created", "model", "choices":
[{"index": 0, "delta": {...}, "finish_reason"}]}``: a first ``{"role":
"assistant", "content": ""}`` delta, ``content`` pieces (``thinking`` blocks for
``Plan.reasoning``, as Magistral sends them), then every tool call of the turn
*whole* in one delta (the corpus recordings, parallel calls included): its
``tool_calls`` holds entries ``{"id": <9 letters and digits>, "type":
"function", "function": {"name", "arguments": <the full JSON text>}, "index"}``.
The last chunk carries ``finish_reason`` and ``usage``, so with no text after
the calls the calls ride on it, as in every recording (``pack_fragments`` is
accepted and changes nothing).

How it relates to the ``mistral`` profile: that profile is the same server as
seen through ``ChatOpenAI`` (``openai_chat`` plus quirks, reproducing the 2024
corpus recordings, which have no ``type`` and no ``index``); this dialect is the
wire as Mistral's own clients meet it, parsed as ``ChatMistralAI`` (not
``ChatOpenAI``) yields it. The profile's shape is ``no_index`` here, plus
``whole_call`` and ``pack_fragments``.

Ids: Mistral mints 9 letters and digits (``D681PevKs``); the ids a plan numbered
(``call_<n>``) go on the wire in that shape, ids the plan was given as they are
(:meth:`validate` answers a replayed id of any other shape with Mistral's 400,
and ChatMistralAI rewrites ids to that shape before it replays them). The
request's ``model`` is echoed in every chunk. Quirks needing
argument text, names or ids spread over chunks cannot be said on this wire and
raise :class:`~tooltape.harness.TooltapeUsageError` (``LACKS``).
Finish: ``tool_calls``, ``stop`` and ``length`` as named;
``error`` is Mistral's ``finish_reason: "error"`` (its finish enum has it);
``content_filter`` has no Mistral equivalent and is refused; ``eof`` ends after
the tool-call chunks with neither a finish chunk nor ``[DONE]``.

Parsing is :func:`~tooltape.fake_providers.dialects.mistral_native._parse.read_mistral_stream`.
"""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any

from tooltape.fake_providers._call_ids import ALNUM, IdShape
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import echo_model
from tooltape.fake_providers._event_text import choices_finish, choices_pieces
from tooltape.fake_providers.dialects.mistral_native._complete import mistral_completion
from tooltape.fake_providers.dialects.mistral_native._integration import MistralNativeIntegration
from tooltape.fake_providers.dialects.mistral_native._parse import parse_mistral
from tooltape.fake_providers.dialects.mistral_native._validate import (
    mistral_body_error,
    validate_mistral_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import PlannedStream, TooltapeUsageError

__all__ = ["LACKS", "MistralNativeDialect"]

MISTRAL_CALL_ID = IdShape("mistral", "", ALNUM, 9)
"""Mistral's tool-call ids: 9 letters and digits (corpus)."""

_PIECE = re.compile(r"\s*\S+|\s+")
_FINISH = {"tool_calls": "tool_calls", "stop": "stop", "length": "length", "error": "error"}

_WHOLE = "Mistral sends each call whole in one delta, its arguments the full JSON text"
LACKS = {
    "arg_pieces": _WHOLE + ", so its argument text cannot be cut, repeated or truncated (a "
    "cut call never reaches the wire: end the plan with finish 'eof' or 'length' instead)",
    "interleaving": _WHOLE + ", so calls cannot interleave",
    "name_fragments": _WHOLE + ", naming it once",
    "id_fragments": _WHOLE + ", so it has one id, sent once",
}


class _Chunks:
    """Builds one stream's chunks, all with the same completion id, time and model."""

    def __init__(self, stream: PlannedStream, model: str) -> None:
        self.rng = Random(f"{stream.seed}:mistral_native")
        self.head = {
            "id": f"{self.rng.getrandbits(128):032x}",
            "object": "chat.completion.chunk",
            "created": 1_754_000_000 + self.rng.randint(0, 9_999_999),
            "model": model,
        }
        self.deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]

    def texts(self, text: str, *, thinking: bool = False) -> None:
        for piece in _PIECE.findall(text):
            if thinking:
                block = {"type": "thinking", "thinking": [{"type": "text", "text": piece}]}
                self.deltas.append({"content": [block]})
            else:
                self.deltas.append({"content": piece})

    def events(self, finish: str | None, usage: dict[str, int]) -> list[ProviderEvent]:
        out = []
        for position, delta in enumerate(self.deltas):
            last = finish is not None and position == len(self.deltas) - 1
            choice = {"index": 0, "delta": delta, "finish_reason": finish if last else None}
            chunk: dict[str, Any] = {**self.head, "choices": [choice]}
            if last:
                chunk["usage"] = usage
            out.append(ProviderEvent(chunk))
        return out if finish is None else [*out, ProviderEvent("[DONE]")]


def _tool_call_entries(stream: PlannedStream) -> list[dict[str, Any]]:
    """Every call of the turn, whole, in the order its first fragment was streamed."""
    texts: dict[int, str] = {}
    for fragment in stream.fragments:
        texts[fragment.call] = texts.get(fragment.call, "") + (fragment.args or "")
    entries: list[dict[str, Any]] = []
    seen: set[int] = set()
    for message in stream.messages:
        for fragment in message:
            if fragment.call in seen:
                continue
            seen.add(fragment.call)
            entry: dict[str, Any] = {}
            if fragment.id is not None:
                entry["id"] = fragment.id
            entry["type"] = "function"
            entry["function"] = {"name": fragment.name, "arguments": texts[fragment.call]}
            if fragment.index is not None:
                entry["index"] = fragment.index
            entries.append(entry)
    return entries


class MistralNativeDialect(MistralNativeIntegration, Dialect):
    """Mistral's native chat completions stream; the reference adapter is ``ChatMistralAI``.

    ``stream_flag`` is True: Mistral streams only when the body says ``"stream":
    true``; otherwise :meth:`complete` gives the one JSON answer. The request's
    ``model`` is echoed in every chunk.
    """

    name = "mistral_native"
    path = "/v1/chat/completions"
    media_type = "text/event-stream; charset=utf-8"
    stream_flag = True
    event_shape = (
        ("choices[].delta.tool_calls", "list|null"),
        *fields_of("choices[].delta.tool_calls[]", id="str"),
        *fields_of("choices[].delta.tool_calls[].function", name="str", arguments="str"),
        ("choices[].delta.tool_calls[].index", "int"),
    )
    carries = frozenset(
        {"escaped_text", "args_text", "optional_id", "optional_index", "index_field", "packing"}
    )
    lacks = LACKS
    call_id_format = MISTRAL_CALL_ID

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """Chunks for the planned stream: role, thinking, text, whole tool calls, finish.

        Raises:
            TooltapeUsageError: A finish this wire cannot say.
        """
        if stream.finish == "content_filter":
            raise TooltapeUsageError(
                "finish 'content_filter' cannot be rendered by dialect mistral_native: Mistral's "
                "finish_reason is stop, length, model_length, error or tool_calls"
            )
        plan, chunks = stream.plan, _Chunks(stream, self.model)
        chunks.texts(plan.reasoning, thinking=True)
        chunks.texts(plan.text_before)
        entries = _tool_call_entries(stream)
        if entries:  # one delta for every call: the finish chunk, unless text follows
            chunks.deltas.append({"tool_calls": entries})
        if stream.finish == "eof":
            return chunks.events(None, {})
        if stream.finish != "error":
            chunks.texts(plan.text_after)
        written = len(plan.reasoning + plan.text_before + plan.text_after)
        written += sum(len(json.dumps(call.args)) for call in plan.calls)
        output = 1 + written // 4
        usage = {"prompt_tokens": 96, "total_tokens": 96 + output, "completion_tokens": output}
        return chunks.events(_FINISH[stream.finish], usage)

    parse = staticmethod(parse_mistral)
    event_pieces = staticmethod(choices_pieces)
    event_finish = staticmethod(choices_finish)
    completion_body = staticmethod(mistral_completion)
    echo = staticmethod(echo_model)
    validate = staticmethod(validate_mistral_request)
    body_error = staticmethod(mistral_body_error)
