"""What an accumulator made of a turn: its calls, its text and the order of its parts.

Every subject reads its library's result (a final message, a stream of chunks,
an agent's response) into a :class:`RawTurn`, most of them through a
:class:`TurnParts` that keeps the calls, the text and their order as the reader
meets them. Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["RawCall", "RawTurn", "TurnParts", "part_runs", "raw_turn"]

RawCall = tuple[Any, Any, Any]
"""A call as an accumulator left it: ``(name, arguments, id)``; arguments as text or a value."""


def part_runs(kinds: Iterable[str]) -> tuple[str, ...]:
    """The kinds of a turn's parts (``text``, ``call``) in order, runs collapsed to one.

    ``["text", "text", "call", "call", "text"]`` gives ``("text", "call", "text")``;
    any other kind (reasoning, a citation) is left out.
    """
    runs: list[str] = []
    for kind in kinds:
        if kind in ("text", "call") and (not runs or runs[-1] != kind):
            runs.append(kind)
    return tuple(runs)


@dataclass(frozen=True)
class RawTurn:
    """What an accumulator made of a turn: its calls, and its text where it keeps it."""

    calls: list[RawCall]
    """The calls, as :data:`RawCall` tuples, in order."""
    text: str | None = None
    """The assistant's visible text (reasoning excluded); ``None``: the result has none."""
    parts: tuple[str, ...] | None = None
    """The order of text and calls (:func:`part_runs`); ``None``: the result does not keep it."""


def raw_turn(made: list[RawCall] | RawTurn) -> RawTurn:
    """``made`` as a :class:`RawTurn` (a bare list of calls reports no text)."""
    return made if isinstance(made, RawTurn) else RawTurn(list(made))


class TurnParts:
    """A turn's calls and text pieces, kept in the order a reader meets them.

    A reader hands over each call and each piece of visible text as it comes
    (what to skip, an empty piece or reasoning, is the reader's to decide), then
    takes the :class:`RawTurn`.
    """

    def __init__(self) -> None:
        self._calls: dict[object, list[Any]] = {}
        self._texts: list[str] = []
        self._kinds: list[str] = []

    def call(self, name: Any, arguments: Any, call_id: Any) -> None:
        """A whole call."""
        self.open_call(object(), name, arguments, call_id)

    def open_call(self, index: object, name: Any, arguments: Any, call_id: Any) -> None:
        """A call opened at ``index``, for :meth:`arguments` to extend.

        A call opened again at an ``index`` already open replaces it where it stood.
        """
        self._calls[index] = [name, arguments, call_id]
        self._kinds.append("call")

    def arguments(self, index: object, fragment: str) -> None:
        """One more fragment of the arguments of the call open at ``index``."""
        self._calls[index][1] += fragment

    def text(self, piece: str) -> None:
        """A piece of the visible text."""
        self._texts.append(piece)
        self._kinds.append("text")

    def turn(self, *, ordered: bool = True) -> RawTurn:
        """The calls and the text so far, with their order (``ordered=False``: not kept)."""
        calls: list[RawCall] = [(name, args, id_) for name, args, id_ in self._calls.values()]
        parts = part_runs(self._kinds) if ordered else None
        return RawTurn(calls, "".join(self._texts), parts)
