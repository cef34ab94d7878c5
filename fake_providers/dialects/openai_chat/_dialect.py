"""OpenAI Chat Completions streaming (``/v1/chat/completions``, SSE): render, parse, validate.

Rendering follows the corpus recordings (``tests/corpus/openai``): a role chunk, content
deltas, ``tool_calls`` deltas (a header with ``index``/``id``/``type``/``function``,
then ``index`` + ``function.arguments``), an empty delta with ``finish_reason``, the
usage-only ``choices: []`` chunk, ``data: [DONE]``. Envelope keys and their order
are those of 2025-2026 OpenAI recordings; EVENTS quirks select older shapes. A
fragment's fields say what is on the wire: ``None`` omits the key, ``""`` sends it.

Parsing lives in :mod:`._parse`.
"""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any, Literal

from tooltape.fake_providers._call_ids import ALNUM, IdShape
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import map_dicts, request_body
from tooltape.fake_providers._event_text import choices_finish, choices_pieces
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.dialects.openai_chat._complete import chat_completion
from tooltape.fake_providers.dialects.openai_chat._integration import OpenAIChatIntegration
from tooltape.fake_providers.dialects.openai_chat._parse import parse_chat
from tooltape.fake_providers.dialects.openai_chat._validate import (
    openai_body_error,
    validate_chat_request,
)
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Fragment, PlannedStream, Quirk, Stage, evidence

__all__ = [
    "ChatEventQuirk",
    "FirstCallOnRoleChunk",
    "NoLogprobs",
    "NoObfuscation",
    "NoServiceTier",
    "NoUsageChunk",
    "NullContinuationFields",
    "OpenAIChatDialect",
    "ReasoningDeltas",
    "TypeOnEveryChunk",
]


# --- EVENTS quirks ----------------------------------------------------------------------


OPENAI_CALL_ID = IdShape("openai", "call_", ALNUM, 24)
"""OpenAI's tool-call ids: ``call_`` and 24 letters and digits (corpus, Chat and Responses)."""


class ChatEventQuirk(Quirk, stage=Stage.EVENTS):
    """Base of the EVENTS quirks the ``openai_chat`` dialect understands.

    The quirks in this module are read by kind while the chunks are built. A
    subclass defined elsewhere (the server profiles) overrides
    :meth:`rewrite_events` instead; the dialect calls it on the finished events.
    """

    def rewrite_events(
        self, events: list[ProviderEvent], stream: PlannedStream
    ) -> list[ProviderEvent]:
        """Rewrite the rendered events, lowest ``priority`` first (default: unchanged)."""
        return events


@evidence("OpenAI without include_usage, compatible servers", "openai/openai-openapi/pull/248")
class NoUsageChunk(ChatEventQuirk, kind="no_usage_chunk"):
    """No ``usage`` key and no ``choices: []`` chunk: OpenAI without ``include_usage``."""


@evidence("vLLM, lmdeploy", "InternLM/lmdeploy#3412")
class TypeOnEveryChunk(ChatEventQuirk, kind="type_on_every_chunk"):
    """Put ``"type": "function"`` on every tool-call entry, not only on those with an id."""


@evidence("vLLM, lmdeploy, Writer (corpus)", "vllm-project/vllm#9693 InternLM/lmdeploy#3412")
class NullContinuationFields(ChatEventQuirk, kind="null_continuation_fields"):
    """Send ``"id": null`` and ``"name": null`` instead of leaving the keys out."""


@evidence(
    "OpenAI recordings 2024-2026 (corpus)",
    "https://platform.openai.com/docs/guides/function-calling",
)
class FirstCallOnRoleChunk(ChatEventQuirk, kind="first_call_on_role_chunk"):
    """Put the first call on the role chunk and ``usage`` after ``choices`` (gpt-4o-mini, 4.1).

    Newer recordings send the role chunk alone. Applies when a call opens the turn.
    """

    refusal: bool = True
    """Whether the role chunk also carries ``"refusal": null`` (absent before mid-2024)."""


@evidence(
    "OpenAI recordings before August 2025 (corpus)",
    "https://platform.openai.com/docs/guides/function-calling",
)
class NoObfuscation(ChatEventQuirk, kind="no_obfuscation"):
    """Leave out the ``obfuscation`` field (older recordings, ``include_obfuscation: false``)."""


@evidence(
    "OpenAI recordings of 2024 (corpus), compatible servers",
    "https://platform.openai.com/docs/guides/function-calling",
)
class NoServiceTier(ChatEventQuirk, kind="no_service_tier"):
    """Leave out the ``service_tier`` field (older OpenAI recordings, most compatible servers)."""


@evidence(
    "gpt-5.4 (corpus)",
    "https://platform.openai.com/docs/guides/function-calling microsoft/semantic-kernel#6316",
    "THU-MAIC/OpenMAIC#1556",
)
class NoLogprobs(ChatEventQuirk, kind="no_logprobs"):
    """Leave out ``logprobs`` from each choice (gpt-5 recordings, Mistral, Gemini compat)."""


@evidence(
    "DeepSeek, Ollama, OpenRouter (corpus)",
    "agno-agi/agno#8879 openclaw/Tachikoma/pull/34",
    "https://openrouter.ai/docs/api-reference/streaming",
)
class ReasoningDeltas(ChatEventQuirk, kind="reasoning_deltas"):
    """Stream :attr:`Plan.reasoning` first, as DeepSeek's ``reasoning_content`` deltas.

    Ollama and OpenRouter use ``reasoning``. ChatOpenAI ignores both fields.
    """

    field: Literal["reasoning_content", "reasoning"] = "reasoning_content"
    """The delta key that carries the reasoning text."""


# --- rendering --------------------------------------------------------------------------

CARRIES = frozenset(
    {
        "escaped_text",
        "args_text",
        "arg_pieces",
        "interleaving",
        "name_fragments",
        "id_fragments",
        "optional_id",
        "optional_index",
        "index_field",
        "packing",
    }
)
"""Every capability of a tool-chunk wire: a ``tool_calls`` entry has a key for each field,
all optional."""

_MODEL = "gpt-4o-mini-2024-07-18"
_CREATED = 1767625745
_PIECE = re.compile(r"\s*\S+|\s+")
_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


class _Envelope:
    """Wraps deltas into chunks with the envelope keys, in the order real recordings use."""

    def __init__(self, seed: int, quirks: EventQuirks) -> None:
        self.quirks = quirks
        self.rng = Random(f"{seed}:openai_chat")
        self.completion_id = "chatcmpl-" + "".join(self.rng.choices(ALNUM, k=29))
        self.fingerprint = "fp_" + "".join(self.rng.choices("0123456789abcdef", k=10))
        # Read once per render, not once per chunk (a cell of ``tooltape matrix`` renders).
        self.service_tier = not quirks.has(NoServiceTier)
        self.with_usage = not quirks.has(NoUsageChunk)
        self.call_on_role = quirks.has(FirstCallOnRoleChunk)
        self.obfuscation = not quirks.has(NoObfuscation)
        self.logprobs = not quirks.has(NoLogprobs)

    def chunk(
        self, choices: list[dict[str, Any]], usage: dict[str, Any] | None = None, *, last: bool
    ) -> dict[str, Any]:
        """One ``chat.completion.chunk``; ``last`` for the finish and usage chunks."""
        chunk: dict[str, Any] = {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": _CREATED,
            "model": _MODEL,
        }
        if self.service_tier:
            chunk["service_tier"] = "default"
        chunk["system_fingerprint"] = self.fingerprint
        with_usage = self.with_usage
        usage_first = not last and not self.call_on_role
        if with_usage and usage_first:
            chunk["usage"] = None
        chunk["choices"] = choices
        if with_usage and not usage_first:
            chunk["usage"] = usage
        if self.obfuscation:
            chunk["obfuscation"] = "".join(self.rng.choices(ALNUM, k=self.rng.randint(0, 15)))
        return chunk

    def choice(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        """The single choice of a chunk."""
        choice: dict[str, Any] = {"index": 0, "delta": delta}
        if self.logprobs:
            choice["logprobs"] = None
        choice["finish_reason"] = finish
        return choice


def _tool_entry(fragment: Fragment, nulls: bool, typed: bool) -> dict[str, Any]:
    """One ``tool_calls`` entry: a key per field the fragment puts on the wire.

    ``nulls``: :class:`NullContinuationFields` was asked for; ``typed``: :class:`TypeOnEveryChunk`.
    """
    entry: dict[str, Any] = {}
    if fragment.index is not None:
        entry["index"] = fragment.index
    if fragment.id is not None or nulls:
        entry["id"] = fragment.id
    if fragment.id is not None or typed:
        entry["type"] = "function"
    function: dict[str, Any] = {}
    if fragment.name is not None or nulls:
        function["name"] = fragment.name
    if fragment.args is not None:
        function["arguments"] = fragment.args
    entry["function"] = function
    return entry


def _choice_deltas(stream: PlannedStream, quirks: EventQuirks) -> list[dict[str, Any]]:
    """The ``delta`` of every chunk before the finish chunk, in wire order."""
    plan = stream.plan
    reasoning = quirks.get(ReasoningDeltas)
    field = reasoning.field if reasoning is not None and plan.reasoning else None
    role: dict[str, Any] = {"role": "assistant", "content": None}
    if field:
        role[field] = ""
    elif plan.text_before:
        role.update(content="", refusal=None)
    deltas = [role]
    if field:
        deltas += [{"content": None, field: piece} for piece in _PIECE.findall(plan.reasoning)]
    deltas += [_content(piece, field) for piece in _PIECE.findall(plan.text_before)]
    nulls, typed = quirks.has(NullContinuationFields), quirks.has(TypeOnEveryChunk)
    messages = [{"tool_calls": [_tool_entry(f, nulls, typed) for f in m]} for m in stream.messages]
    on_role = quirks.get(FirstCallOnRoleChunk)
    if on_role is not None and messages and len(deltas) == 1:
        role.update(messages.pop(0))
        if on_role.refusal:
            role["refusal"] = None
    deltas += messages
    if stream.finish not in ("eof", "error"):
        deltas += [_content(piece, field) for piece in _PIECE.findall(plan.text_after)]
    return deltas


def _content(piece: str, reasoning_field: str | None) -> dict[str, Any]:
    return {"content": piece, reasoning_field: None} if reasoning_field else {"content": piece}


def _usage(completion_tokens: int) -> dict[str, Any]:
    details = ("reasoning", "audio", "accepted_prediction", "rejected_prediction")
    return {
        "prompt_tokens": 75,
        "completion_tokens": completion_tokens,
        "total_tokens": 75 + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {f"{name}_tokens": 0 for name in details},
    }


# --- the dialect ------------------------------------------------------------------------


_TOOL_CALL = "choices[].delta.tool_calls[]"
"""Where a streamed tool-call entry sits in a chunk."""


class OpenAIChatDialect(OpenAIChatIntegration, Dialect):
    """OpenAI Chat Completions streaming; the reference adapter is ``ChatOpenAI``."""

    name = "openai_chat"
    call_id_format = OPENAI_CALL_ID
    event_shape = (
        ("choices", "list|null"),
        *fields_of("choices[]", index="int", delta="object|null"),
        ("choices[].delta.tool_calls", "list|null"),
        *fields_of(_TOOL_CALL, index="int", id="str|null"),
        *fields_of(f"{_TOOL_CALL}.function", "object|null", name="str|null", arguments="str|null"),
    )
    path = "/v1/chat/completions"
    stream_flag = True
    media_type = "text/event-stream; charset=utf-8"
    carries = CARRIES
    event_quirks = (ChatEventQuirk,)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """Chunks for the planned stream: role, text, tool calls, finish, usage, ``[DONE]``.

        Finish ``eof`` stops after the last fragment; ``error`` sends an error object
        inside the 200 stream instead of the finish chunk
        (https://github.com/apache/rocketmq-dashboard/issues/2178).
        """
        events = _chunk_events(stream, quirks)
        chat_quirks = [q for q in quirks if isinstance(q, ChatEventQuirk)]
        for quirk in sorted(chat_quirks, key=lambda quirk: quirk.priority):
            events = quirk.rewrite_events(events, stream)
        return events

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """The request's ``model`` on every chunk; usage only with ``include_usage``.

        Without ``stream_options.include_usage`` OpenAI sends no ``usage`` key and no
        ``choices: []`` chunk (https://github.com/openai/openai-openapi/pull/248).
        The model is echoed as written (the live API answers with the dated
        snapshot an alias resolves to).
        """
        body = request_body(request)
        options = body.get("stream_options")
        usage = isinstance(options, dict) and options.get("include_usage") is True
        model = body.get("model")

        def edit(chunk: dict[str, Any]) -> dict[str, Any] | None:
            if not usage and chunk.get("choices") == [] and "usage" in chunk:
                return None
            chunk = dict(chunk)
            if not usage:
                chunk.pop("usage", None)
            if isinstance(model, str) and model and chunk.get("model") == _MODEL:
                chunk["model"] = model
            return chunk

        return map_dicts(events, edit)

    parse = staticmethod(parse_chat)
    event_pieces = staticmethod(choices_pieces)
    event_finish = staticmethod(choices_finish)

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """OpenAI's non-streamed bodies are pretty-printed with a two-space indent."""
        return json.dumps(body, indent=2, ensure_ascii=False).encode()

    def completion_body(self, events: list[ProviderEvent]) -> dict[str, Any]:
        """The chat completion, with the usage of a stream of that many chunks."""
        return chat_completion(events, _usage(len(events)))

    validate = staticmethod(validate_chat_request)
    body_error = staticmethod(openai_body_error)


def _chunk_events(stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
    envelope = _Envelope(stream.seed, quirks)
    deltas = _choice_deltas(stream, quirks)
    events = [ProviderEvent(envelope.chunk([envelope.choice(d)], last=False)) for d in deltas]
    if stream.finish == "eof":
        return events
    if stream.finish == "error":
        error = {"message": _SERVER_ERROR, "type": "server_error", "param": None, "code": None}
        return [*events, ProviderEvent({"error": error}), ProviderEvent("[DONE]")]
    finish = envelope.choice({}, stream.finish)
    events.append(ProviderEvent(envelope.chunk([finish], None, last=True)))
    if not quirks.has(NoUsageChunk):
        usage = _usage(len(deltas))
        events.append(ProviderEvent(envelope.chunk([], usage, last=True)))
    return [*events, ProviderEvent("[DONE]")]
