"""langchain-core's merge, run lane by lane so a stream with many indexes stays linear.

``merge_lists`` looks for a chunk's partner by scanning every merged chunk, so a
stream of N parallel calls costs N² comparisons (100,000 calls: hours). But the
scan only ever picks a chunk with an *equal* ``index``; chunks of other indexes
are never touched. So the stream is cut into lanes (one per index value; chunks
without an index, which never merge, each get a lane of their own), and
langchain-core's own ``merge_lists`` runs on each lane, one chunk at a time.
A chunk that grows its lane made a new merged chunk, and the merged chunks are
put back in the order they were made: the order ``merge_lists`` itself keeps.
Nothing about *how* chunks merge is re-implemented; a test proves the result
equal to one n-ary ``add_ai_message_chunks`` call.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from langchain_core.messages import AIMessageChunk, ToolCallChunk
from langchain_core.utils._merge import merge_lists

__all__ = ["merge_by_lane", "validity"]


def _lane(index: Any) -> Hashable:
    """The lane key: the index itself (equal values share a lane), else a lane of its own."""
    if type(index) is int or (index is not None and isinstance(index, Hashable)):
        return index
    return object()


def merge_by_lane(rows: Sequence[Sequence[ToolCallChunk]]) -> list[ToolCallChunk]:
    """The merged ``tool_call_chunks`` of a stream, as one n-ary merge gives them.

    Args:
        rows: Each streamed message's validated ``tool_call_chunks``.

    The first message's chunks are taken as they are (langchain-core copies them
    without merging them with each other); every later chunk is merged into its lane.
    """
    lanes: dict[Hashable, list[Any]] = {}
    made: list[tuple[Hashable, int]] = []
    for number, row in enumerate(rows):
        for chunk in row:
            key = _lane(chunk.get("index"))
            lane = lanes.setdefault(key, [])
            if number == 0 or not lane:
                # The first message's chunks are copied as they are, and a chunk merged
                # into an empty lane is that chunk: merge_lists([], [c]) == [c].
                made.append((key, len(lane)))
                lane.append(chunk)
                continue
            grown = merge_lists(lane, [chunk]) or []
            if len(grown) > len(lane):
                made.append((key, len(lane)))
            lanes[key] = grown
    return [lanes[key][slot] for key, slot in made]


def validity(merged: AIMessageChunk) -> list[bool]:
    """Whether each merged chunk became a valid call, read off the merged message.

    langchain-core turns every chunk, in order, into exactly one entry of
    ``tool_calls`` or ``invalid_tool_calls``; an invalid entry keeps the chunk's
    name, args and id as they are. A chunk is invalid exactly when it is the next
    invalid entry: a valid chunk equal to a later invalid one cannot exist, since
    equal args parse alike.
    """
    invalid = merged.invalid_tool_calls
    result, position = [], 0
    for chunk in merged.tool_call_chunks:
        entry = invalid[position] if position < len(invalid) else None
        bad = entry is not None and (entry.get("name"), entry.get("args"), entry.get("id")) == (
            chunk.get("name"),
            chunk.get("args"),
            chunk.get("id"),
        )
        position += bad
        result.append(not bad)
    return result
