"""Reading one recorded event's payload for what it says besides tool-call fragments.

Each dialect answers :meth:`Dialect.event_pieces` and :meth:`Dialect.event_finish`
with its own field names; this module holds what they share: a safe path lookup
into a decoded JSON payload and the shape of a piece.
"""

from __future__ import annotations

from typing import Any, Literal

from tooltape.harness import Finish

__all__ = [
    "CHOICES_FINISH",
    "Piece",
    "choices_finish",
    "choices_pieces",
    "dig",
    "finish_named",
    "text_piece",
]

Piece = tuple[Literal["text", "reasoning", "tool"], str]
"""``("text", ...)``, ``("reasoning", ...)``, or ``("tool", "")`` for an event that
starts or carries a tool call."""


def dig(data: Any, *keys: str | int) -> Any:
    """``data[k0][k1]...``, or ``None`` where a key or index is missing or the type differs."""
    for key in keys:
        if isinstance(key, int):
            data = data[key] if isinstance(data, list) and len(data) > key else None
        else:
            data = data.get(key) if isinstance(data, dict) else None
    return data


def text_piece(kind: Literal["text", "reasoning"], value: Any) -> list[Piece]:
    """``[(kind, value)]`` for a non-empty string, else nothing."""
    return [(kind, value)] if isinstance(value, str) and value else []


def choices_pieces(data: Any) -> list[Piece]:
    """The OpenAI-style ``choices[0].delta`` (Chat Completions, Mistral): reasoning, text, tools."""
    delta = dig(data, "choices", 0, "delta")
    if not isinstance(delta, dict):
        return []
    pieces = [
        piece
        for field in ("reasoning_content", "reasoning", "thinking")
        for piece in text_piece("reasoning", delta.get(field))
    ]
    pieces += text_piece("text", delta.get("content"))
    return [*pieces, ("tool", "")] if delta.get("tool_calls") else pieces


def finish_named(reason: Any, names: dict[str, Finish]) -> Finish | None:
    """``names[reason]`` for a string the provider sent, else ``None``."""
    return names.get(reason) if isinstance(reason, str) else None


CHOICES_FINISH: dict[str, Finish] = {"length": "length", "content_filter": "content_filter"}
"""The OpenAI-style ``choices[0].finish_reason`` values that are not a plain stop."""


def choices_finish(data: Any) -> Finish | None:
    """The OpenAI-style ``choices[0].finish_reason`` ``length`` or ``content_filter``."""
    return finish_named(dig(data, "choices", 0, "finish_reason"), CHOICES_FINISH)
