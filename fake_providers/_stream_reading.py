"""What a LangChain chat model's ``.stream()`` makes of a body: its deltas and how it ended.

Each dialect's ``_parse`` module re-states its SDK's and adapter's reading of the
bytes; they all hand back a :class:`StreamReading`, built by :func:`raised` when
the reading stops at an exception and by :func:`ended` when the body ran out.
"""

from __future__ import annotations

from dataclasses import dataclass

from tooltape.harness import Deltas

__all__ = ["NO_GENERATION", "StreamReading", "ended", "raised"]

NO_GENERATION = "ValueError: No generation chunks were returned"
"""What langchain-core's ``stream()`` raises when the adapter yields no chunk."""


@dataclass(frozen=True)
class StreamReading:
    """The deltas an adapter yielded from a body and, if it raised, what."""

    deltas: Deltas
    """One list per yielded ``AIMessageChunk`` (langchain-core's empty last chunk left out)."""
    error: str | None = None
    """``"<ExceptionName>: <detail>"`` when the SDK, the adapter or langchain-core (for a
    stream that yields nothing) raised after ``deltas``."""


def raised(deltas: Deltas, error: BaseException, name: str | None = None) -> StreamReading:
    """The reading that stopped at ``error``.

    ``name`` is the exception the library raises, where the parse raised a
    stand-in for it (``APIError`` for ``_StreamAPIError``).
    """
    return StreamReading(deltas, f"{name or type(error).__name__}: {error}")


def ended(deltas: Deltas) -> StreamReading:
    """The reading of a body read to its end; no delta at all is langchain-core's error."""
    return StreamReading(deltas) if deltas else StreamReading([], NO_GENERATION)
