"""Streaming resolution: when each call became complete, for applications that run tools early.

An application that starts a tool before the stream ends must decide, chunk by
chunk, when a call is done. :func:`resolve_stream` replays the stream through
langchain-core's own ``merge_lists`` one message at a time (the same fold the
n-ary merge performs) and records, per call, the first message at which it
could be called complete: its arguments parse as complete JSON, another call
started, or the stream ended. It also flags calls that were still open at the
end and calls that received chunks after they had looked complete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.utils._merge import merge_lists

from tooltape.harness._reference import DeltasLike, to_message_chunks
from tooltape.harness.json_text import loads

__all__ = ["CallResolution", "StreamResolution", "resolve_stream"]

Reason = Literal["complete_json", "next_call", "stream_end"]


@dataclass
class CallResolution:
    """How one merged call resolved while the stream arrived."""

    position: int
    """Position among the merged calls (as in ``MergeResult.chunks``)."""
    index: Any
    id: str | None
    name: str | None
    args: str | None
    opened_at: int
    """The message where its first chunk arrived."""
    completed_at: int | None = None
    """The first message at which it could be called complete."""
    reason: Reason | None = None
    """Why it counted as complete there."""
    json_complete: bool = False
    """Whether its arguments ever parsed as a complete JSON object."""
    reopened_at: int | None = None
    """A message that added to it after it had counted as complete (early execution hazard)."""


@dataclass
class StreamResolution:
    """Per-call resolution of a stream."""

    calls: list[CallResolution] = field(default_factory=list)
    messages: int = 0

    @property
    def open_calls(self) -> list[CallResolution]:
        """Calls whose arguments were never complete JSON when the stream stopped."""
        return [c for c in self.calls if not c.json_complete and c.args]

    @property
    def reopened_calls(self) -> list[CallResolution]:
        """Calls that grew after they had counted as complete."""
        return [c for c in self.calls if c.reopened_at is not None]


def _complete_json(args: str | None) -> bool:
    if not args or not args.rstrip().endswith("}"):
        return False  # cheap guard: only a closing brace can end an object
    try:
        return isinstance(loads(args), dict)
    except json.JSONDecodeError:
        return False


def resolve_stream(deltas: DeltasLike) -> StreamResolution:
    """Say, per call, at which message it became complete and which were still open.

    Args:
        deltas: Anything :func:`reference_merge` takes.

    Returns:
        A :class:`StreamResolution`; ``open_calls`` lists the calls a truncated
        stream left incomplete, ``reopened_calls`` those that grew after
        looking complete (interleaved or reused indexes).
    """
    messages = to_message_chunks(deltas)
    resolution = StreamResolution(messages=len(messages))
    merged: list[dict[str, Any]] | None = None
    for number, message in enumerate(messages):
        chunks = [dict(c) for c in message.tool_call_chunks]
        before = list(merged) if merged is not None else []
        merged = merge_lists(merged, chunks) if merged is not None else chunks
        assert merged is not None
        touched = [
            p for p, element in enumerate(merged) if p >= len(before) or element is not before[p]
        ]
        _observe(resolution, merged, touched, number)
    for call in resolution.calls:
        if call.completed_at is None:
            call.completed_at, call.reason = resolution.messages - 1, "stream_end"
    return resolution


def _observe(
    resolution: StreamResolution, merged: list[dict[str, Any]], touched: list[int], number: int
) -> None:
    for position in touched:
        element = merged[position]
        if position == len(resolution.calls):
            resolution.calls.append(
                CallResolution(position, element.get("index"), None, None, None, opened_at=number)
            )
        call = resolution.calls[position]
        call.id, call.name, call.args = element.get("id"), element.get("name"), element.get("args")
        if (
            call.completed_at is not None
            and call.completed_at < number
            and call.reopened_at is None
        ):
            call.reopened_at = number
        if not call.json_complete and _complete_json(call.args):
            call.json_complete = True
            if call.completed_at is None:
                call.completed_at, call.reason = number, "complete_json"
    for call in resolution.calls:
        if call.completed_at is None and call.position not in touched and touched:
            call.completed_at, call.reason = number, "next_call"
