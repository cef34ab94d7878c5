"""Fragments: tool-call chunks that remember which planned call they came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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

    def __repr__(self) -> str:
        """The plan (long strings elided with their length), the quirks and the seed.

        The messages are left out, counted: ``stream_plan(plan, quirks, seed=seed)``
        makes them again. A 110,000-character argument stays one line of a report.
        """
        calls = ", ".join(
            f"PlannedCall(name={_brief(c.name)}, args={_brief(c.args)}, id={c.id!r})"
            for c in self.plan.calls
        )
        plan = [f"calls=({calls}{',' if len(self.plan.calls) == 1 else ''})"]
        plan += [
            f"{name}={_brief(getattr(self.plan, name))}"
            for name in ("text_before", "text_after", "reasoning", "finish")
            if getattr(self.plan, name)
        ]
        fields = [
            f"plan=Plan({', '.join(plan)})",
            f"quirks={self.quirks!r}",
            f"seed={self.seed}",
            f"messages=<{len(self.messages)} messages, {len(self.fragments)} fragments>",
            f"finish={self.finish!r}",
        ]
        if self.truncated_call is not None:
            fields.append(f"truncated_call={self.truncated_call}")
        if self.dropped_calls:
            fields.append(f"dropped_calls={self.dropped_calls!r}")
        return f"PlannedStream({', '.join(fields)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """What Hypothesis and IPython print for a falsifying stream: the bounded repr."""
        printer.text(repr(self))


_SHOWN = 60
"""Characters of a long string a repr keeps from each end."""


def _brief(value: object) -> str:
    """``repr(value)`` with strings longer than ``2 * _SHOWN`` cut, their length named."""
    if isinstance(value, str):
        if len(value) <= 2 * _SHOWN:
            return repr(value)
        return f"{value[:_SHOWN]!r}...<{len(value):,} characters>...{value[-_SHOWN:]!r}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_brief(k)}: {_brief(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_brief(v) for v in value) + "]"
    return repr(value)
