"""The ``/api/chat`` body for a request with ``"stream": false``.

Ollama's chat handler, asked not to stream, accumulates what it would have
streamed and answers one JSON object (API docs, "Generate a chat completion",
non-streaming response; server/routes.go ``ChatHandler``): the final line's
``model``, ``created_at``, ``done_reason``, ``done: true`` and timing
counters, with ``message`` holding the whole ``content``, any ``thinking``
and every ``tool_calls`` entry. The body is Go-serialised without a trailing
newline. Reading it back is the stream reader's job: it is one NDJSON line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent

__all__ = ["ollama_completion"]


def ollama_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered ``/api/chat`` lines into the non-streamed answer."""
    lines = [e.data for e in events if isinstance(e.data, dict)]
    content, thinking = "", ""
    calls: list[Any] = []
    for line in lines:
        message = line.get("message") or {}
        content += message.get("content") or ""
        thinking += message.get("thinking") or ""
        calls += message.get("tool_calls") or []
    last = dict(lines[-1])
    message = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if calls:
        message["tool_calls"] = calls
    last["message"] = message
    return last
