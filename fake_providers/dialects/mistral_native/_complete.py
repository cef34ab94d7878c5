"""The ``/v1/chat/completions`` body for a request with ``"stream": false``.

The non-streamed answer is the stream's chunks accumulated into one
``chat.completion`` object (API reference, "Chat Completion" response): the
chunk id, ``created`` and ``model``, one choice whose ``message`` holds the whole
``content`` and every ``tool_calls`` entry (``null`` when there are none), the
last chunk's ``finish_reason`` and the ``usage``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent

__all__ = ["mistral_completion"]


def mistral_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered chunks into the non-streamed answer."""
    chunks = [e.data for e in events if isinstance(e.data, dict)]
    content, finish = "", None
    calls: list[Any] = []
    for chunk in chunks:
        choice = chunk["choices"][0]
        delta = choice["delta"]
        if isinstance(delta.get("content"), str):
            content += delta["content"]
        calls += delta.get("tool_calls") or []
        finish = choice.get("finish_reason") or finish
    last = chunks[-1]
    message = {"role": "assistant", "content": content, "tool_calls": calls or None}
    return {
        "id": last["id"],
        "object": "chat.completion",
        "created": last["created"],
        "model": last["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": last.get("usage"),
    }
