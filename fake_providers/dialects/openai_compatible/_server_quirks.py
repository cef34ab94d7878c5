"""EVENTS quirks that only one OpenAI-compatible server shows: Azure, OpenRouter, Groq, Writer.

Like every profile quirk they are ``openai_chat`` EVENTS quirks that rewrite the
finished chunks (see :mod:`~tooltape.fake_providers.dialects.openai_compatible._quirks`).
"""

from __future__ import annotations

import copy
import json
import string
from random import Random
from typing import Any, Literal

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.dialects.openai_chat._dialect import ChatEventQuirk
from tooltape.fake_providers.dialects.openai_compatible._events import (
    choice_of,
    chunk_at,
    chunk_positions,
    delta_of,
    first_position,
    insert_after,
    random_text,
    set_key_after,
    usage_position,
)
from tooltape.harness import PlannedStream, evidence

__all__ = [
    "AzureAnnotationFrames",
    "AzureContentFilter",
    "GroqToolUseFailed",
    "OpenRouterFields",
    "ReasoningChannel",
    "WriterChunks",
    "XGroq",
]

_Events = list[ProviderEvent]


# --- Azure -----------------------------------------------------------------------------

_CATEGORIES = ("hate", "self_harm", "sexual", "violence")
_SAFE = {name: {"filtered": False, "severity": "safe"} for name in _CATEGORIES}


@evidence(
    "Azure OpenAI (corpus: crewAI recording)",
    "AbanteAI/archive-old-cli-mentat#429 microsoft/semantic-kernel#5240",
)
class AzureContentFilter(ChatEventQuirk, kind="azure_content_filter", priority=101):
    """Azure's content-safety fields.

    A first frame with ``choices: []``, a blank envelope and
    ``prompt_filter_results``; ``content_filter_results`` on every choice (``{}``
    beside tool calls, the category verdicts beside text); when the plan ends in
    ``content_filter`` the finish choice names the filtered category. It runs
    after ``sorted_keys``: Azure sorts map keys but sends struct fields in their
    declared order (``prompt_index`` before ``content_filter_results``, corpus).
    """

    prompt_annotations: bool = False
    """Name the first frame's list ``prompt_annotations`` (api-versions before 2023-06)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Add the verdicts to every choice and the prompt-filter frame in front."""
        for position in chunk_positions(events):
            chunk = chunk_at(events, position)
            chunk["choices"] = [
                _put(choice, "content_filter_results", _verdicts(choice))
                for choice in chunk["choices"]
            ]
        verdicts: dict[str, Any] = {**copy.deepcopy(_SAFE), "jailbreak": _JAILBREAK}
        prompt = {"prompt_index": 0, "content_filter_results": dict(sorted(verdicts.items()))}
        key = "prompt_annotations" if self.prompt_annotations else "prompt_filter_results"
        first = {"choices": [], "created": 0, "id": "", "model": "", "object": "", key: [prompt]}
        return [ProviderEvent(first), *events]


_JAILBREAK = {"filtered": False, "detected": False}


def _verdicts(choice: dict[str, Any]) -> dict[str, Any]:
    if choice.get("finish_reason") == "content_filter":
        return {**copy.deepcopy(_SAFE), "violence": {"filtered": True, "severity": "medium"}}
    return copy.deepcopy(_SAFE) if (choice.get("delta") or {}).get("content") else {}


def _put(mapping: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """``mapping`` with ``key`` set, still in sorted order if it was sorted."""
    was_sorted = list(mapping) == sorted(mapping)
    updated = {**mapping, key: value}
    return dict(sorted(updated.items())) if was_sorted else updated


@evidence(
    "Azure OpenAI asynchronous filter",
    "openai/openai-python#1677 AbanteAI/archive-old-cli-mentat#429",
)
class AzureAnnotationFrames(ChatEventQuirk, kind="azure_annotation_frames", priority=102):
    """Add an asynchronous-filter annotation frame: a choice with no ``delta``.

    ChatOpenAI skips it; clients that read ``choices[0].delta`` crash.
    """

    at: Literal["end", "middle"] = "end"
    """After the finish chunk (the usual place) or halfway through the deltas."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Insert the frame."""
        deltas = [p for p in chunk_positions(events) if delta_of(chunk_at(events, p)) is not None]
        if not deltas:
            return events
        finish = first_position(events, finish=True)
        after = deltas[max(0, len(deltas) // 2 - 1)] if self.at == "middle" else deltas[-1]
        if self.at == "end" and finish is not None:
            after = finish
        offsets = {"check_offset": 0, "start_offset": 0, "end_offset": 120}
        choice = {"content_filter_offsets": offsets, "content_filter_results": copy.deepcopy(_SAFE)}
        choice |= {"finish_reason": None, "index": 0}
        frame = {"choices": [choice], "created": 0, "id": "", "model": "", "object": ""}
        return insert_after(events, after, frame)


# --- OpenRouter ------------------------------------------------------------------------


@evidence(
    "OpenRouter, (corpus: three recordings)",
    "https://openrouter.ai/docs/api-reference/streaming",
    "https://github.com/latere-ai/pkg/releases/tag/v0.90.1",
)
class OpenRouterFields(ChatEventQuirk, kind="openrouter_fields", priority=35):
    """OpenRouter's additions: ``provider`` and each choice's ``native_finish_reason``.

    ``native_finish_reason`` repeats ``finish_reason`` unless set (OpenRouter can
    report ``"max_tokens"`` there behind a ``tool_calls`` finish). OpenRouter's own
    usage chunk carries no ``system_fingerprint``.
    """

    provider: str = "OpenAI"
    """The upstream named in every chunk."""
    native_finish_reason: str | None = None
    """What the upstream said on the finish chunk (``None``: the same as ``finish_reason``)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Add the fields."""
        usage_at = usage_position(events)
        for position in chunk_positions(events):
            chunk = chunk_at(events, position)
            set_key_after(chunk, "provider", self.provider, "id")
            if position == usage_at:
                chunk.pop("system_fingerprint", None)
            for choice in chunk["choices"]:
                finish = choice.get("finish_reason")
                native = (self.native_finish_reason or finish) if finish else None
                set_key_after(choice, "native_finish_reason", native, "finish_reason")
        return events


# --- Groq ------------------------------------------------------------------------------


@evidence("Groq (corpus: pydantic-ai recordings)", "vercel/ai/pull/1653")
class XGroq(ChatEventQuirk, kind="x_groq", priority=36):
    """Groq's ``x_groq`` object: request id and seed first, usage with timings at the finish (https://github.com/vercel/ai/pull/1653).

    The finish chunk carries the same usage as ``x_groq.usage`` and ``usage``.
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Add ``x_groq`` to the first and the finish chunk."""
        rng = Random(f"{stream.seed}:x_groq")
        request_id = "req_" + random_text(rng, 26, string.ascii_lowercase + string.digits)
        first = first_position(events)
        if first is None:
            return events
        chunk_at(events, first)["x_groq"] = {"id": request_id, "seed": rng.randint(0, 2**31 - 1)}
        finish = first_position(events, finish=True)
        if finish is not None:
            chunk = chunk_at(events, finish)
            usage = chunk.pop("usage", None) or {"prompt_tokens": 75, "completion_tokens": 9}
            prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
            timed = {"queue_time": 0.0054, "prompt_tokens": prompt, "prompt_time": 0.0168}
            timed |= {"completion_tokens": completion, "completion_time": 0.3791}
            timed |= {"total_tokens": prompt + completion, "total_time": 0.3959}
            chunk["x_groq"] = {"id": request_id, "usage": timed}
            chunk["usage"] = copy.deepcopy(timed)
        return events


@evidence("Groq gpt-oss (corpus: pydantic-ai recordings)", "vercel/ai/pull/1653")
class ReasoningChannel(ChatEventQuirk, kind="reasoning_channel", priority=20):
    """Stream reasoning as gpt-oss does on Groq: ``{"reasoning": ..., "channel": "analysis"}``.

    Combine with ``reasoning_deltas`` (``field="reasoning"``). The role chunk
    opens with ``content: ""``. ChatOpenAI ignores both fields (corpus).
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Reshape the reasoning deltas and the role chunk."""
        for position in chunk_positions(events):
            choice = choice_of(chunk_at(events, position)) or {}
            delta = choice.get("delta")
            if not delta:
                continue
            if delta.get("reasoning"):
                choice["delta"] = {"reasoning": delta["reasoning"], "channel": "analysis"}
                continue
            delta.pop("reasoning", None)
            if "role" in delta:
                delta["content"] = delta.get("content") or ""
        return events


@evidence("Groq (corpus: pydantic-ai tool_use_failed recording)", "vercel/ai/pull/1653")
class GroqToolUseFailed(ChatEventQuirk, kind="groq_tool_use_failed", priority=80, lossless=False):
    """End an ``error`` turn as Groq does when a generated call fails validation.

    An ``event: error`` block whose body has ``code: tool_use_failed`` and the
    model's raw ``failed_generation``, and no ``[DONE]`` (corpus). The openai SDK
    raises ``APIError`` with the message after the chunks already yielded.
    """

    message: str = (
        "Failed to call a function. Please adjust your prompt. "
        "See 'failed_generation' for more details."
    )
    """The error message the SDK raises with."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Replace the error object and drop ``[DONE]`` (only when the turn ends in ``error``)."""
        if stream.finish != "error":
            return events
        calls = stream.plan.calls
        generation = (
            json.dumps({"name": calls[0].name, "arguments": calls[0].args}) if calls else ""
        )
        error: dict[str, Any] = {"message": self.message, "type": "invalid_request_error"}
        error |= {"code": "tool_use_failed", "failed_generation": generation, "status_code": 400}
        out = []
        for event in events:
            if isinstance(event.data, dict) and "error" in event.data:
                out.append(ProviderEvent({"error": error}, event="error"))
            elif event.data != "[DONE]":
                out.append(event)
        return out


# --- Writer ----------------------------------------------------------------------------


@evidence("Writer palmyra-x4 (corpus: openllmetry recordings)")
class WriterChunks(ChatEventQuirk, kind="writer_chunks", priority=90):
    """Writer's palmyra chunks: every choice mirrors its delta in ``message``.

    Every delta carries ``role`` and nine keys (``tool_calls``, ``graph_data``,
    ``llm_data`` ... mostly null); choices add ``trace_details``; continuation
    entries send ``type: null``, and the header ``arguments: null`` (corpus).
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Rebuild every chunk in Writer's shape."""
        for position in chunk_positions(events):
            chunk = chunk_at(events, position)
            chunk["service_tier"], chunk["system_fingerprint"] = None, "v1"
            chunk["choices"] = [_writer_choice(choice) for choice in chunk["choices"]]
        return events


def _writer_choice(choice: dict[str, Any]) -> dict[str, Any]:
    delta = choice.get("delta") or {}
    entries = delta.get("tool_calls") or None
    for entry in entries or ():
        if entry.get("id") is None:
            entry.setdefault("type", None)
        elif entry["function"].get("arguments") == "":
            entry["function"]["arguments"] = None
    graph = {"sources": None, "status": None, "subqueries": None}
    mirror = {"content": delta.get("content"), "role": "assistant", "tool_calls": entries}
    mirror |= {"graph_data": graph, "llm_data": None, "image_data": None}
    mirror |= {"translation_data": None, "web_search_data": None, "refusal": None}
    finish = choice.get("finish_reason")
    shaped = {"index": choice.get("index", 0), "finish_reason": finish}
    shaped |= {"message": copy.deepcopy(mirror), "delta": mirror}
    return shaped | {"logprobs": None, "trace_details": None}
