"""Fragments: tool-call chunks that remember which planned call they came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langchain_core.messages import ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.harness._models import Deltas, Finish, Plan

if TYPE_CHECKING:
    from tooltape.harness._quirks import Quirk

__all__ = ["Fragment", "PlannedStream"]


@dataclass(frozen=True, slots=True)
class Fragment:
    """One tool-call chunk on its way to the wire, tagged with the planned call it carries.

    Dialects render fragments to their own events; ``call`` tells them which
    content block or output item a fragment belongs to even when the quirks have
    removed the index or the id.
    """

    call: int
    """Position of the planned call in :attr:`Plan.calls`."""
    index: int | None
    """The index put on the wire (``None``: no index)."""
    id: str | None
    """The id put on the wire on this chunk (``None``: absent, ``""``: empty string)."""
    name: str | None
    """The name (or part of it) put on the wire on this chunk."""
    args: str | None
    """The argument text carried by this chunk."""

    def as_chunk(self) -> ToolCallChunk:
        """The langchain-core ``ToolCallChunk`` a reference adapter builds from this fragment."""
        return tool_call_chunk(name=self.name, args=self.args, id=self.id, index=self.index)


@dataclass(frozen=True)
class PlannedStream:
    """A plan after the quirks: fragments grouped into streamed messages."""

    plan: Plan
    """The ground truth the stream was made from."""
    quirks: tuple[Quirk, ...]
    """The quirks applied, in the order given."""
    seed: int
    """The seed that fixed every random choice."""
    messages: tuple[tuple[Fragment, ...], ...]
    """One tuple of fragments per streamed message."""
    finish: Finish
    """How the stream ends on the wire."""
    truncated_call: int | None = None
    """The planned call whose arguments were cut off, if the stream was truncated."""
    dropped_calls: tuple[int, ...] = field(default=())
    """Planned calls that never reached the wire because the stream ended first."""

    @property
    def lossless(self) -> bool:
        """True when a correct merger must reproduce the plan exactly."""
        return all(getattr(q, "lossless", False) for q in self.quirks)

    @property
    def fragments(self) -> list[Fragment]:
        """All fragments in wire order."""
        return [fragment for message in self.messages for fragment in message]

    def deltas(self) -> Deltas:
        """The stream as ``ToolCallChunk`` lists, one per message, ready for ``reference_merge``."""
        return [[fragment.as_chunk() for fragment in message] for message in self.messages]
