"""A syrupy extension that snapshots merged tool calls and streams readably.

Calls, invalid calls, hazards and the lane drawing are written as plain text.
Call ids are replaced by ``<id 1>``, ``<id 2>`` in order of first appearance,
so a re-recorded stream with fresh provider ids does not churn the snapshot.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AIMessage
from syrupy.extensions.amber import AmberSnapshotExtension

from tooltape.harness import (
    MergeResult,
    PlannedStream,
    draw_lanes,
    merge_result_from_message,
    reference_merge,
)

__all__ = ["TooltapeSnapshotExtension", "describe_for_snapshot"]


class _Ids:
    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, value: Any) -> str:
        if value is None or value == "":
            return repr(value)
        key = str(value)
        if key not in self.seen:
            self.seen[key] = f"<id {len(self.seen) + 1}>"
        return self.seen[key]

    def scrub(self, text: str) -> str:
        for raw, stable in sorted(self.seen.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(raw, stable)
        return text


def _args(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def describe_for_snapshot(data: Any) -> str:
    """The snapshot text of a merge result, a message, a planned stream or deltas."""
    stream = None
    if isinstance(data, MergeResult):
        result = data
    elif isinstance(data, AIMessage):
        result = merge_result_from_message(data)
    else:
        stream = data
        result = reference_merge(data)
    ids = _Ids()
    lines = ["tool_calls:"]
    lines += [
        f"  - {c['name']}({_args(c['args'])}) id={ids(c.get('id'))}" for c in result.tool_calls
    ]
    lines.append("invalid_tool_calls:")
    lines += [
        f"  - {c.get('name')!r} args={c.get('args')!r} id={ids(c.get('id'))}"
        for c in result.invalid_tool_calls
    ]
    lines.append("hazards:")
    lines += [f"  - {h.kind} at call {h.position}: {ids.scrub(h.detail)}" for h in result.hazards]
    if stream is not None:
        lines.append("lanes:")
        lanes = draw_lanes(stream.deltas() if isinstance(stream, PlannedStream) else stream)
        lines += ["  " + line for line in ids.scrub(lanes).splitlines()]
    return re.sub(r"[ \t]+$", "", "\n".join(lines), flags=re.MULTILINE) + "\n"


class TooltapeSnapshotExtension(AmberSnapshotExtension):
    """Snapshots of merged tool calls: ``snapshot.use_extension(TooltapeSnapshotExtension)``."""

    def serialize(self, data: Any, **kwargs: Any) -> str:
        """Describe tooltape data as stable text; anything else as amber does."""
        if isinstance(data, (MergeResult, AIMessage, PlannedStream)) or (
            isinstance(data, list) and all(isinstance(d, list) for d in data)
        ):
            return super().serialize(describe_for_snapshot(data), **kwargs)
        return super().serialize(data, **kwargs)
