"""EVENTS quirks that OpenAI-compatible servers share: envelope keys, usage, turn endings.

Each quirk is an ``openai_chat`` EVENTS quirk (a :class:`ChatEventQuirk`) that
rewrites the finished chunks in :meth:`rewrite_events`; the dialect applies them
lowest ``priority`` first, after the chunks are built. They only touch what
public reports and the corpus recordings show a server sending differently from
OpenAI in ways several servers share; the quirks of one server live in
:mod:`~tooltape.fake_providers.dialects.openai_compatible._server_quirks` and the tool-call entry
rewrites in :mod:`~tooltape.fake_providers.dialects.openai_compatible._call_quirks`.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, Literal

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.dialects.openai_chat._dialect import ChatEventQuirk
from tooltape.fake_providers.dialects.openai_compatible._events import (
    choice_of,
    chunk_at,
    chunk_positions,
    chunks_of,
    delta_of,
    entries_of,
    first_position,
    insert_after,
    is_finish_chunk,
    usage_position,
)
from tooltape.harness import PlannedStream, evidence

__all__ = [
    "ContentWithToolCalls",
    "DuplicateFinish",
    "EarlyFinishReason",
    "FinishDeltaFields",
    "FinishOnLastDelta",
    "NoChunkId",
    "NoSystemFingerprint",
    "OneChunkTurn",
    "RoleOnEveryDelta",
    "SortedKeys",
    "StopAfterToolCalls",
    "UsageChunkChoice",
    "UsagePlacement",
]

_Events = list[ProviderEvent]


# --- keys -------------------------------------------------------------------------------


@evidence(
    "Azure OpenAI, Gemini OpenAI-compatible (corpus)",
    "AbanteAI/archive-old-cli-mentat#429 THU-MAIC/OpenMAIC#1556",
)
class SortedKeys(ChatEventQuirk, kind="sorted_keys", priority=100):
    """Send every JSON object with its keys in alphabetical order (Azure, Gemini compat).

    Both serialise that way (their recordings in tests/corpus). JSON readers do
    not see it; byte-level comparisons and hand-written parsers do.
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Sort the keys of every payload, at every depth."""
        return [
            ProviderEvent(_sorted(e.data), e.event) if isinstance(e.data, dict) else e
            for e in events
        ]


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


# --- envelope fields --------------------------------------------------------------------


class _DropChunkKey(ChatEventQuirk, priority=70):
    """Leave one envelope key out of every chunk."""

    key: ClassVar[str]

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Drop the key from every chunk."""
        for chunk in chunks_of(events):
            chunk.pop(self.key, None)
        return events


@evidence(
    "Mistral, Gemini compat, Databricks, OpenRouter (corpus)",
    "microsoft/semantic-kernel#6316 THU-MAIC/OpenMAIC#1556",
)
class NoSystemFingerprint(_DropChunkKey, kind="no_system_fingerprint", key="system_fingerprint"):
    """Leave out ``system_fingerprint`` (Mistral, Databricks, vLLM, Gemini compat; corpus)."""


@evidence("Gemini OpenAI-compatible (corpus: magentic recordings)", "THU-MAIC/OpenMAIC#1556")
class NoChunkId(_DropChunkKey, kind="no_chunk_id", key="id"):
    """Leave out the chunk's ``id`` (Gemini's OpenAI-compatible endpoint, corpus)."""


# --- deltas -----------------------------------------------------------------------------


@evidence(
    "Ollama compat, OpenRouter, Databricks (corpus)",
    "openclaw/Tachikoma/pull/34 https://openrouter.ai/docs/api-reference/streaming",
)
class RoleOnEveryDelta(ChatEventQuirk, kind="role_on_every_delta", priority=20):
    """Repeat ``role`` and ``content`` on every delta, with no role-only first chunk.

    Databricks, OpenRouter and Ollama's compatible endpoint (corpus): the first
    text, reasoning or tool-call chunk carries the role, tool-call deltas carry
    ``content`` too, and the finish delta is ``{"role": "assistant", "content": ""}``.
    """

    tool_content: Literal["", None] = None
    """The ``content`` beside tool calls: null (Databricks, OpenRouter) or ``""`` (Ollama)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Drop a bare role chunk and put role and content on every delta."""
        positions = [
            p for p in chunk_positions(events) if delta_of(chunk_at(events, p)) is not None
        ]
        bare = len(positions) > 1 and _bare_role(delta_of(chunk_at(events, positions[0])) or {})
        for position in positions[1:] if bare else positions:
            choice = choice_of(chunk_at(events, position))
            assert choice is not None
            delta = choice["delta"]
            default = self.tool_content if delta.get("tool_calls") else None
            content = delta.pop("content", "" if choice.get("finish_reason") else default)
            delta.pop("role", None)
            choice["delta"] = {"role": "assistant", "content": content, **delta}
        return [e for p, e in enumerate(events) if not (bare and p == positions[0])]


def _bare_role(delta: dict[str, Any]) -> bool:
    text_keys = {"content", "refusal", "reasoning", "reasoning_content"}
    return (
        "role" in delta
        and set(delta) <= {"role", *text_keys}
        and not any(delta.get(key) for key in text_keys)
    )


@evidence("DeepSeek (corpus: chatlas recordings)", "agno-agi/agno#8879")
class FinishDeltaFields(ChatEventQuirk, kind="finish_delta_fields", priority=21):
    """Send the finish delta as ``{"content": "", "reasoning_content": null}`` (DeepSeek)."""

    reasoning_field: Literal["reasoning_content", "reasoning"] | None = "reasoning_content"
    """The reasoning key sent as null beside the empty content (``None``: none)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Fill the finish delta."""
        finish = first_position(events, finish=True)
        choice = choice_of(chunk_at(events, finish)) if finish is not None else None
        if choice is not None and choice.get("delta") == {}:
            fields = {self.reasoning_field: None} if self.reasoning_field else {}
            choice["delta"] = {"content": "", **fields}
        return events


@evidence("Mistral (corpus: openinference recordings of 2024-08)", "microsoft/semantic-kernel#6316")
class ContentWithToolCalls(ChatEventQuirk, kind="content_with_tool_calls", priority=22):
    """Send ``content: null`` beside ``tool_calls`` in every tool-call delta (Mistral 2024)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Put the key in front of ``tool_calls`` where it is missing."""
        for chunk in chunks_of(events):
            choice = choice_of(chunk) or {}
            delta = choice.get("delta") or {}
            if delta.get("tool_calls") and "content" not in delta:
                choice["delta"] = {"content": None, **delta}
        return events


# --- how the turn ends ------------------------------------------------------------------


@evidence(
    "DeepSeek, Groq, Mistral, OpenRouter, Databricks (corpus)",
    "BerriAI/litellm#17136 Routstr/routstr-core/pull/543",
)
class UsagePlacement(ChatEventQuirk, kind="usage_placement", priority=30):
    """Move ``usage`` from OpenAI's usage-only chunk to where a server sends it.

    ``on="finish_chunk"``: the finish chunk carries it and no ``choices: []``
    chunk follows (DeepSeek, Groq, Mistral, Databricks). ``before``: what the
    earlier chunks carry: ``usage: null`` (OpenAI, DeepSeek), no key (Mistral,
    Groq, OpenRouter) or a running object whose completion counts are null
    (Databricks; ChatOpenAI adds every one of them up).
    """

    on: Literal["usage_chunk", "finish_chunk"] = "finish_chunk"
    """The chunk that carries the usage."""
    before: Literal["null", "absent", "running"] = "null"
    """What every other chunk carries."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Place the usage (a stream cut short has none: only ``before`` applies)."""
        usage_at = next(
            (p for p in chunk_positions(events) if chunk_at(events, p).get("choices") == []), None
        )
        usage = chunk_at(events, usage_at).get("usage") if usage_at is not None else None
        finish = first_position(events, finish=True)
        target = finish if self.on == "finish_chunk" and finish is not None else usage_at
        running = {"prompt_tokens": (usage or {}).get("prompt_tokens")}
        running |= {"completion_tokens": None, "total_tokens": None}
        for position in chunk_positions(events):
            chunk = chunk_at(events, position)
            if usage and position == target:
                chunk["usage"] = usage
            elif self.before == "absent":
                chunk.pop("usage", None)
            elif "usage" in chunk:  # a stream without usage (no_usage_chunk) gets none
                keep_running = usage and self.before == "running"
                chunk["usage"] = copy.deepcopy(running) if keep_running else None
        return [e for p, e in enumerate(events) if p != usage_at or target == usage_at]


@evidence(
    "OpenRouter (corpus: chatlas and activeagent recordings)",
    "https://openrouter.ai/docs/api-reference/streaming",
)
class UsageChunkChoice(ChatEventQuirk, kind="usage_chunk_choice", priority=32):
    """Give the usage-only chunk a choice with an empty assistant delta (OpenRouter 2025)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Fill the usage chunk's ``choices``."""
        for chunk in chunks_of(events):
            if chunk.get("choices") == [] and chunk.get("usage"):
                choices = (choice_of(each) for each in chunks_of(events))
                keys = next((c for c in choices if c), {"index": 0, "delta": {}})
                choice: dict[str, Any] = dict.fromkeys(keys)
                choice |= {"index": 0, "delta": {"role": "assistant", "content": ""}}
                chunk["choices"] = [choice]
        return events


@evidence(
    "Mistral, OpenRouter (corpus)",
    "microsoft/semantic-kernel#6316 https://openrouter.ai/docs/api-reference/streaming",
    "Routstr/routstr-core/pull/543",
)
class FinishOnLastDelta(ChatEventQuirk, kind="finish_on_last_delta", priority=45):
    """Put ``finish_reason`` (and whatever the finish chunk carries) on the last delta chunk.

    No separate empty-delta finish chunk: Mistral's whole-call chunk ends the
    turn, and so does OpenRouter's with a Google upstream (corpus).
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Fold the finish chunk into the chunk before it."""
        finish = first_position(events, finish=True)
        if not finish or finish - 1 not in set(chunk_positions(events)):
            return events
        previous, finish_chunk = chunk_at(events, finish - 1), chunk_at(events, finish)
        target, source = choice_of(previous), choice_of(finish_chunk)
        if target is None or source is None or is_finish_chunk(previous):
            return events
        for key, value in source.items():
            if key not in ("index", "delta") and (value is not None or key not in target):
                target[key] = value
        for key, value in finish_chunk.items():
            if key != "choices" and value is not None and previous.get(key) is None:
                previous[key] = value
        return [e for p, e in enumerate(events) if p != finish]


@evidence(
    "xAI, Gemini OpenAI-compatible (corpus)",
    "https://docs.revspace.net/directory/ext/x-ai/guides/function-calling",
    "THU-MAIC/OpenMAIC#1556",
)
class OneChunkTurn(ChatEventQuirk, kind="one_chunk_turn", priority=46):
    """Send the whole turn as one chunk: role, calls, ``finish_reason``, ``usage``.

    xAI and Gemini's compatible endpoint answer a tool-only turn with a single
    chunk (corpus); text and reasoning, if any, are joined into it.
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Merge every chunk into the first."""
        positions = list(chunk_positions(events))
        if len(positions) < 2:
            return events
        first = chunk_at(events, positions[0])
        delta: dict[str, Any] = {"role": "assistant"}
        entries: list[Any] = []
        finish, usage = None, None
        for position in positions:
            chunk = chunk_at(events, position)
            usage = chunk.get("usage") or usage
            choice = choice_of(chunk) or {}
            finish = choice.get("finish_reason") or finish
            for key, value in (choice.get("delta") or {}).items():
                if key == "tool_calls":
                    entries += value or []
                elif isinstance(value, str) and value and key != "role":
                    delta[key] = delta.get(key, "") + value
        if entries:
            delta["tool_calls"] = entries
        merged = choice_of(first)
        assert merged is not None
        merged["delta"], merged["finish_reason"] = delta, finish
        if usage is not None:
            first["usage"] = usage
        return [e for p, e in enumerate(events) if p == positions[0] or p not in positions]


@evidence(
    "Gemini compat, SGLang #2877, Ollama compat (corpus)",
    "vllm-project/vllm/pull/25054 open-webui/computer#224",
)
class StopAfterToolCalls(ChatEventQuirk, kind="stop_after_tool_calls", priority=50):
    """End a turn with calls on ``finish_reason: "stop"``, not ``"tool_calls"``."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Rename the finish reason."""
        for chunk in chunks_of(events):
            for choice in chunk["choices"]:
                if choice.get("finish_reason") == "tool_calls":
                    choice["finish_reason"] = "stop"
        return events


@evidence(
    "OpenRouter; second_reason: ChatMock #114, SGLang #8417 (public reports)",
    "https://openrouter.ai/docs/api-reference/streaming langchain-ai/langchain#38366",
    "langchain-ai/langchainjs#11054",
)
class DuplicateFinish(ChatEventQuirk, kind="duplicate_finish", priority=40):
    """Send two terminal chunks with ``finish_reason``, the second with the usage.

    ChatOpenAI concatenates the two: ``finish_reason`` becomes ``"tool_callstool_calls"``
    and ``model_name`` doubles. With ``second_reason="stop"`` the second chunk says
    ``"stop"``, as proxies that translate the Responses API did (ChatMock #114,
    SGLang #8417): a client that trusts the last ``finish_reason`` drops the calls.
    """

    second_reason: str | None = None
    """The second chunk's ``finish_reason`` (``None``: the same as the first)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Repeat the finish chunk in place of the usage chunk (or right after it)."""
        finish = first_position(events, finish=True)
        if finish is None:
            return events
        second = copy.deepcopy(chunk_at(events, finish))
        if self.second_reason is not None:
            for choice in second["choices"]:
                choice["finish_reason"] = self.second_reason
        usage_at = usage_position(events)
        if usage_at is None or usage_at < finish:
            return insert_after(events, finish, second)
        second["usage"] = chunk_at(events, usage_at)["usage"]
        return [*events[:usage_at], ProviderEvent(second), *events[usage_at + 1 :]]


@evidence("litellm #31634 (public report)")
class EarlyFinishReason(ChatEventQuirk, kind="early_finish_reason", priority=60):
    # priority: after the quirks that move or repeat the finish chunk
    """Send ``finish_reason`` on every tool-call chunk, before the last argument fragment.

    LiteLLM's Gemini translation set ``finish_reason: "tool_calls"`` on intermediate
    tool-call chunks (litellm #31634); the closing empty-delta finish chunk still
    follows. A client that stops reading at the first ``finish_reason`` keeps a
    call whose arguments are cut short. ChatOpenAI keeps every fragment (it
    concatenates the repeated reasons in ``response_metadata``).
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Copy the finish reason onto each chunk that carries tool-call entries."""
        finish = first_position(events, finish=True)
        if finish is None:
            return events
        final = choice_of(chunk_at(events, finish))
        reason = final.get("finish_reason") if final else None
        for position in chunk_positions(events):
            choice = choice_of(chunk_at(events, position))
            if position < finish and choice is not None and entries_of(chunk_at(events, position)):
                choice["finish_reason"] = reason
        return events
