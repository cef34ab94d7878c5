"""Reading and editing rendered Chat Completions chunks, for the server-profile quirks.

The profile quirks (:mod:`~tooltape.fake_providers.dialects.openai_compatible._quirks`,
:mod:`~tooltape.fake_providers.dialects.openai_compatible._call_quirks`) rewrite the events the
``openai_chat`` dialect renders: its chunks are fresh dicts on every render, so
a rewrite edits them in place and returns the (possibly reshaped) list. These
helpers name the parts of a chunk the rewrites talk about.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from random import Random
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent

__all__ = [
    "ALNUM",
    "choice_of",
    "chunk_at",
    "chunk_positions",
    "chunks_of",
    "delta_of",
    "entries_of",
    "first_position",
    "insert_after",
    "is_finish_chunk",
    "is_usage_chunk",
    "random_text",
    "set_key_after",
    "usage_position",
]

ALNUM = string.ascii_letters + string.digits


def chunk_positions(events: list[ProviderEvent]) -> Iterator[int]:
    """Positions of the ``chat.completion.chunk`` payloads (not ``[DONE]``, not error objects)."""
    for position, event in enumerate(events):
        if isinstance(event.data, dict) and "choices" in event.data:
            yield position


def chunk_at(events: list[ProviderEvent], position: int) -> dict[str, Any]:
    """The chunk payload at ``position`` (a position :func:`chunk_positions` gave)."""
    data = events[position].data
    assert isinstance(data, dict)
    return data


def chunks_of(events: list[ProviderEvent]) -> Iterator[dict[str, Any]]:
    """The chunk payloads in order, to read or edit in place (see :func:`chunk_positions`)."""
    return (chunk_at(events, position) for position in chunk_positions(events))


def choice_of(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The chunk's first choice, if it has one."""
    choices = chunk.get("choices") or []
    return choices[0] if choices else None


def delta_of(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The first choice's delta, if the chunk has one."""
    choice = choice_of(chunk)
    return choice.get("delta") if choice else None


def entries_of(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_calls`` entries of the chunk's delta (empty when it has none)."""
    delta = delta_of(chunk)
    entries = delta.get("tool_calls") if delta else None
    return entries if isinstance(entries, list) else []


def is_finish_chunk(chunk: dict[str, Any]) -> bool:
    """True when the first choice carries a ``finish_reason``."""
    choice = choice_of(chunk)
    return bool(choice and choice.get("finish_reason"))


def is_usage_chunk(chunk: dict[str, Any]) -> bool:
    """True for the usage-only chunk: ``choices: []`` and a ``usage`` object."""
    return chunk.get("choices") == [] and bool(chunk.get("usage"))


def first_position(events: list[ProviderEvent], *, finish: bool = False) -> int | None:
    """Position of the first chunk (``finish=True``: the first finish chunk), if any."""
    for position in chunk_positions(events):
        chunk = chunk_at(events, position)
        if not finish or is_finish_chunk(chunk):
            return position
    return None


def usage_position(events: list[ProviderEvent]) -> int | None:
    """Position of the chunk after the finish chunk that carries the usage, if any.

    OpenAI's ``choices: []`` chunk, or a server's version of it with an
    empty-delta choice (OpenRouter).
    """
    finish = first_position(events, finish=True)
    for position in chunk_positions(events):
        chunk = chunk_at(events, position)
        after_finish = finish is None or position > finish
        if after_finish and chunk.get("usage") and not is_finish_chunk(chunk):
            return position
    return None


def insert_after(
    events: list[ProviderEvent], position: int, payload: dict[str, Any]
) -> list[ProviderEvent]:
    """A copy of ``events`` with ``payload`` sent right after ``events[position]``."""
    return [*events[: position + 1], ProviderEvent(payload), *events[position + 1 :]]


def set_key_after(mapping: dict[str, Any], key: str, value: Any, after: str) -> None:
    """Set ``mapping[key]`` and move the key right after ``after`` (at the end when absent)."""
    mapping.pop(key, None)
    if after not in mapping:
        mapping[key] = value
        return
    items = list(mapping.items())
    mapping.clear()
    for name, item in items:
        mapping[name] = item
        if name == after:
            mapping[key] = value


def random_text(rng: Random, length: int, alphabet: str = ALNUM) -> str:
    """``length`` characters drawn from ``alphabet``."""
    return "".join(rng.choices(alphabet, k=length))
