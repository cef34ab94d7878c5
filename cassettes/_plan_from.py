"""Recover the plan behind a recording: the calls the reference merge finds, and the text.

The calls come from langchain-core's merge of the dialect's parse (names, ids
and arguments as the reference reads them, so a truncated stream gives the
repaired arguments). The text, reasoning and finish come from the events
themselves, read by the field names the dialects use (Chat Completions
``delta.content``, Responses ``response.output_text.delta``, Anthropic
``text_delta``/``thinking_delta``, Gemini ``parts[].text``, Ollama
``message.content``, Cohere ``content-delta``, Bedrock ``contentBlockDelta``);
text seen before the first tool event is ``text_before``, the rest
``text_after``. Envelope fields (response ids, model, timestamps, usage) are
not part of a plan: a dialect renders them afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes._events import BodyEvent
from tooltape.harness import Deltas, Finish, Plan, PlannedCall, reference_merge

__all__ = ["plan_from_recording"]

_FINISH: dict[str, Finish] = {
    "length": "length",
    "max_tokens": "length",
    "MAX_TOKENS": "length",
    "max_output_tokens": "length",
    "content_filter": "content_filter",
    "SAFETY": "content_filter",
}


def _get(data: Any, *keys: str | int) -> Any:
    for key in keys:
        if isinstance(key, int):
            data = data[key] if isinstance(data, list) and len(data) > key else None
        else:
            data = data.get(key) if isinstance(data, dict) else None
    return data


def _is_tool(data: dict[str, Any]) -> bool:
    """True when the event starts or carries a tool call, in any dialect's shape."""
    kind = str(data.get("type") or "")
    parts = _get(data, "candidates", 0, "content", "parts") or []
    return bool(
        _get(data, "choices", 0, "delta", "tool_calls")
        or _get(data, "message", "tool_calls")
        or kind.startswith(("response.function_call", "tool-call"))
        or _get(data, "item", "type") == "function_call"
        or _get(data, "content_block", "type") == "tool_use"
        or _get(data, "start", "toolUse")
        or _get(data, "delta", "toolUse")
        or any(isinstance(p, dict) and p.get("functionCall") for p in parts)
    )


def _unwrapped(data: Any) -> Any:
    """Bedrock InvokeModel events carry the model's own event under ``bytes``."""
    if isinstance(data, dict) and isinstance(data.get("bytes"), dict):
        return data["bytes"]
    return data


def _pieces(data: Any) -> list[tuple[str, str]]:
    """``(kind, text)`` pieces of one event payload: ``text``, ``reasoning`` or ``tool``."""
    data = _unwrapped(data)
    if not isinstance(data, dict):
        return []
    pieces: list[tuple[str, str]] = []
    kind = data.get("type")
    delta = _get(data, "choices", 0, "delta") or _get(data, "message") or {}
    if isinstance(delta, dict):
        for field in ("reasoning_content", "reasoning", "thinking"):
            if isinstance(delta.get(field), str):
                pieces.append(("reasoning", delta[field]))
        if isinstance(delta.get("content"), str):
            pieces.append(("text", delta["content"]))
    if kind == "response.output_text.delta":
        pieces.append(("text", str(data.get("delta", ""))))
    elif kind == "response.reasoning_summary_text.delta":
        pieces.append(("reasoning", str(data.get("delta", ""))))
    inner: dict[str, Any] = data["delta"] if isinstance(data.get("delta"), dict) else {}
    if inner.get("type") == "text_delta":
        pieces.append(("text", str(inner.get("text", ""))))
    elif inner.get("type") == "thinking_delta":
        pieces.append(("reasoning", str(inner.get("thinking", ""))))
    if kind == "content-delta":
        pieces.append(("text", str(_get(data, "delta", "message", "content", "text") or "")))
    for part in _get(data, "candidates", 0, "content", "parts") or []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(("reasoning" if part.get("thought") else "text", part["text"]))
    block = _get(data, "contentBlockDelta", "delta") or _get(data, "delta")
    if isinstance(block, dict) and isinstance(block.get("text"), str) and "type" not in block:
        pieces.append(("text", block["text"]))
    if _is_tool(data):
        pieces.append(("tool", ""))
    return [(k, t) for k, t in pieces if t or k == "tool"]


def _finish(events: Sequence[BodyEvent], aborted: bool) -> Finish | None:
    if aborted:
        return "eof"
    for event in events:
        data = _unwrapped(event.data)
        if event.kind in ("error", "response.failed") or (
            isinstance(data, dict) and "error" in data
        ):
            return "error"
        for reason in (
            _get(data, "choices", 0, "finish_reason"),
            _get(data, "delta", "stop_reason"),
            _get(data, "response", "incomplete_details", "reason"),
            _get(data, "candidates", 0, "finishReason"),
            _get(data, "done_reason"),
            _get(data, "stopReason"),
            _get(data, "messageStop", "stopReason"),
        ):
            if isinstance(reason, str) and reason in _FINISH:
                return _FINISH[reason]
    return None


def _recorded_id(call_id: str | None, haystack: bytes) -> str | None:
    """The id, unless the adapter made it up (not in the bytes): the plan then numbers it."""
    if call_id == "":
        return call_id  # an empty id is what the provider sent (Gemini's OpenAI endpoint)
    return call_id if call_id and call_id.encode() in haystack else None


def plan_from_recording(
    deltas: Deltas,
    events: Sequence[BodyEvent],
    haystack: bytes,
    *,
    aborted: bool = False,
    path: Any = None,
    interaction: int | None = None,
) -> Plan:
    """The plan a recording plays: merged calls, text around them, reasoning and finish.

    Raises:
        CassetteError: The recording holds invalid calls (arguments that are not a
            JSON object) or calls no plan can hold (no name, a repeated id).
    """
    merged = reference_merge(deltas)
    if merged.invalid_tool_calls:
        bad = merged.invalid_tool_calls[0]
        raise CassetteError(
            f"{where(path, interaction)}: the recording holds {len(merged.invalid_tool_calls)} "
            f"invalid call(s) (first: {bad.get('name')!r} with {bad.get('args')!r}); a plan "
            "needs calls whose arguments are JSON objects"
        )
    before: list[str] = []
    after: list[str] = []
    reasoning: list[str] = []
    seen_tool = False
    for event in events:
        for kind, text in _pieces(event.data):
            if kind == "tool":
                seen_tool = True
            elif kind == "reasoning":
                reasoning.append(text)
            else:
                (after if seen_tool else before).append(text)
    try:
        return Plan(
            calls=tuple(
                PlannedCall(name=c["name"], args=c["args"], id=_recorded_id(c.get("id"), haystack))
                for c in merged.tool_calls
            ),
            text_before="".join(before),
            text_after="".join(after),
            reasoning="".join(reasoning),
            finish=_finish(events, aborted),
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise CassetteError(
            f"{where(path, interaction)}: the recorded calls make no plan: {first['msg']}"
        ) from None
