"""Exceptions raised by the cassette room.

Hierarchy::

    TooltapeUsageError (tooltape.harness)
    └── CassetteError             a cassette, body file or option tooltape cannot use
    TooltapeAssertionError (tooltape.harness)
    ├── UnmatchedRequest          a request no recorded interaction answers
    └── UnplayedInteractions      recorded interactions the test never asked for

A :class:`CassetteError` is one paragraph naming the file, the interaction and,
where it applies, the event; it never carries a YAML or vcrpy traceback.
"""

from __future__ import annotations

from pathlib import Path

from tooltape.harness import TooltapeAssertionError, TooltapeUsageError

__all__ = ["CassetteError", "UnmatchedRequest", "UnplayedInteractions", "where"]


class CassetteError(TooltapeUsageError):
    """A cassette (or a raw body file, or a cassette option) that tooltape cannot use."""


class UnmatchedRequest(TooltapeAssertionError):
    """A request matched no recorded interaction; the message shows the nearest one and a diff."""


class UnplayedInteractions(TooltapeAssertionError):
    """The test left recorded interactions unplayed; the message gives counts and indexes."""


def where(path: str | Path | None, interaction: int | None = None, event: int | None = None) -> str:
    """The ``file: interaction n, event k`` prefix every cassette error starts with."""
    parts = [str(path) if path is not None else "<cassette>"]
    located = []
    if interaction is not None:
        located.append(f"interaction {interaction}")
    if event is not None:
        located.append(f"event {event}")
    return parts[0] + (": " + ", ".join(located) if located else "")
