"""The Chat Completions body for a request without ``"stream": true``, and its reading.

The body is what the streamed chunks of the same turn accumulate to, in the
shape of OpenAI's chat completion object (API reference, "The chat completion
object"): ``id``, ``object: "chat.completion"``, ``created``, ``model``,
``choices[0].message`` with ``role``, ``content``, ``tool_calls`` (only when
there are calls), ``refusal`` and ``annotations``, then ``logprobs`` and
``finish_reason``; ``usage``, ``service_tier`` and ``system_fingerprint``.
The key order inside ``message`` follows openai-python's recorded fixtures;
the non-streaming body always carries ``usage`` (no ``stream_options`` needed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.non_streaming import call_deltas
from tooltape.harness import Deltas

__all__ = ["chat_completion", "chat_completion_deltas"]

_DELTA_KEYS = frozenset({"role", "content", "tool_calls", "refusal"})
_ENVELOPE = ("id", "created", "model", "service_tier", "system_fingerprint")


def chat_completion(events: Sequence[ProviderEvent], usage: dict[str, Any]) -> dict[str, Any]:
    """Accumulate rendered ``chat.completion.chunk`` events into one chat completion.

    Args:
        events: The turn's streamed events (without wire quirks).
        usage: The usage to report when the stream carried none.
    """
    chunks = [e.data for e in events if isinstance(e.data, dict) and "choices" in e.data]
    head = chunks[0] if chunks else {}
    content: str | None = None
    extra: dict[str, str] = {}  # reasoning_content (DeepSeek, vLLM ...), accumulated alike
    calls: dict[int, dict[str, Any]] = {}
    finish = "stop"
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content = (content or "") + delta["content"]
            for key, value in delta.items():
                if key not in _DELTA_KEYS and isinstance(value, str):
                    extra[key] = extra.get(key, "") + value
            for entry in delta.get("tool_calls") or []:
                _add_call(calls, entry)
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {"role": "assistant", "content": content or None, **extra}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    message |= {"refusal": None, "annotations": []}
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
    body: dict[str, Any] = {"id": head.get("id"), "object": "chat.completion"}
    body |= {"created": head.get("created"), "model": head.get("model"), "choices": [choice]}
    body["usage"] = usage
    body |= {key: head[key] for key in _ENVELOPE[3:] if key in head}
    return body


def _add_call(calls: dict[int, dict[str, Any]], entry: dict[str, Any]) -> None:
    index = entry.get("index", len(calls))
    function = entry.get("function") or {}
    if index not in calls:
        calls[index] = {
            "id": entry.get("id"),
            "type": "function",
            "function": {"name": function.get("name") or "", "arguments": ""},
        }
    call = calls[index]
    call["id"] = call["id"] or entry.get("id")
    call["function"]["arguments"] += function.get("arguments") or ""


def chat_completion_deltas(body: object) -> Deltas:
    """The tool-call chunks ``ChatOpenAI.invoke()`` builds from a chat completion body."""
    if not isinstance(body, dict):
        return [[]]
    choices = body.get("choices") or [{}]
    message = (choices[0] if isinstance(choices[0], dict) else {}).get("message") or {}
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    return call_deltas(
        (
            (c.get("function") or {}).get("name"),
            (c.get("function") or {}).get("arguments") or "",
            c.get("id"),
        )
        for c in calls
    )
