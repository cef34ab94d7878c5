"""The ``:generateContent`` body, the answer Gemini sends when the URL does not stream.

One ``GenerateContentResponse`` (API reference, ``models.generateContent``):
``candidates[0].content.parts`` holds every part the stream's chunks carried
(adjacent text parts of one kind joined, empty ones dropped, function calls
whole with their ``thoughtSignature``), then the last chunk's ``finishReason``,
``usageMetadata``, ``modelVersion`` and ``responseId``. Google's front end
pretty-prints JSON with a two-space indent, as the unstreamed recordings in
``../shared/corpus/gemini`` show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.harness.json_text import loads

__all__ = ["gemini_completion"]


def gemini_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered ``streamGenerateContent`` chunks into one response."""
    chunks = [loads(e.data) if isinstance(e.data, str) else e.data for e in events]
    parts: list[dict[str, Any]] = []
    for chunk in chunks:
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                _add_part(parts, part)
    last = dict(chunks[-1])
    candidate = dict((last.get("candidates") or [{}])[0])
    candidate["content"] = {"parts": parts, "role": "model"}
    last["candidates"] = [candidate]
    return last


def _add_part(parts: list[dict[str, Any]], part: dict[str, Any]) -> None:
    if set(part) <= {"text", "thought"}:
        if not part.get("text"):
            return
        previous = parts[-1] if parts else None
        if (
            previous is not None
            and set(previous) <= {"text", "thought"}
            and previous.get("thought") == part.get("thought")
        ):
            previous["text"] = previous.get("text", "") + part["text"]
            return
    parts.append(dict(part))
