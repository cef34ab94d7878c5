"""Where langchain-core guessed: chunks joined to one of several calls sharing an index.

``merge_lists`` keeps the first message's chunks as they are, then joins each later
chunk with an index to the first earlier chunk on that index whose id does not
conflict (the same id, or either id empty), or appends it. With one call per
index that is never a choice. On an index holding two or more calls, a chunk
without an id, or one that can join an id-less chunk, goes to the first candidate
whichever call it came from. This module follows those joins in one pass
(constant work per chunk, so 8,000 calls on one index stay linear) and reports
the merged positions that took such a chunk. It reads the merge; it does not
replace it: the merged chunks are langchain-core's own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Guess", "glued_ids", "guessed_joins", "shares_an_index"]


@dataclass(frozen=True)
class Guess:
    """A merged chunk that took a chunk langchain-core could have joined elsewhere."""

    position: int
    """The merged chunk's position (one per merged call)."""
    index: Any
    """The shared index."""
    calls: int
    """How many calls held that index when the chunk arrived."""
    message: int
    """The streamed message the chunk came in (0-based)."""


@dataclass
class _Index:
    """The merged chunks on one index: how many, the first, and where ids are missing."""

    count: int = 0
    first: int = -1
    idless: deque[int] = field(default_factory=deque)
    """Positions of chunks with no id yet, ascending (only the first is ever joined)."""
    by_id: dict[Any, int] = field(default_factory=dict)
    """The first position holding each id."""

    def add(self, position: int, call_id: Any) -> None:
        if self.count == 0:
            self.first = position
        self.count += 1
        if call_id:
            self.by_id.setdefault(call_id, position)
        else:
            self.idless.append(position)


def _merges_on(index: Any) -> bool:
    """Whether ``merge_lists`` joins chunks on ``index`` (an int, or a string ``lc_...``)."""
    return isinstance(index, int) or (isinstance(index, str) and index.startswith("lc_"))


def shares_an_index(merged: Iterable[Any]) -> bool:
    """Whether two merged chunks hold one index: without that, no join was ever a guess.

    A merge only appends chunks and never changes an index, so an index that holds
    one merged chunk at the end held at most one all along.
    """
    seen: set[Any] = set()
    for chunk in merged:
        index = chunk.get("index")
        if _merges_on(index):
            if index in seen:
                return True
            seen.add(index)
    return False


def guessed_joins(messages: Sequence[Iterable[Any]]) -> dict[int, Guess]:
    """The merged positions that took a chunk by guess (first guess per position).

    Args:
        messages: The ``tool_call_chunks`` of each streamed message, in order.
    """
    lanes: dict[Any, _Index] = {}
    guesses: dict[int, Guess] = {}
    size = 0
    for number, message in enumerate(messages):
        for chunk in message:
            index, call_id = chunk.get("index"), chunk.get("id")
            try:
                lane = lanes.setdefault(index, _Index()) if _merges_on(index) else None
                target = None if lane is None or number == 0 else _target(lane, call_id)
            except TypeError:  # an unhashable id: langchain-core would fail on it too
                lane = target = None
            if target is None:
                if lane is not None:
                    lane.add(size, call_id)
                size += 1
                continue
            assert lane is not None
            if lane.count > 1 and (not call_id or (lane.idless and lane.idless[0] == target)):
                guesses.setdefault(target, Guess(target, index, lane.count, number))
            if call_id and lane.idless and lane.idless[0] == target:
                lane.idless.popleft()
                lane.by_id.setdefault(call_id, target)
    return guesses


def _target(lane: _Index, call_id: Any) -> int | None:
    """The position langchain-core joins a chunk with ``call_id`` to, or ``None``."""
    if lane.count == 0:
        return None
    if not call_id:
        return lane.first
    same = lane.by_id.get(call_id)
    idless = lane.idless[0] if lane.idless else None
    candidates = [p for p in (same, idless) if p is not None]
    return min(candidates) if candidates else None


def glued_ids(merged: Sequence[Any], messages: Sequence[Iterable[Any]]) -> dict[int, list[Any]]:
    """Merged positions that took chunks of several ids: calls langchain-core glued together.

    Each distinct id streamed on an index is a call of its own; when an index holds
    fewer merged chunks than it carried ids, chunks with conflicting ids were merged
    (langchain-core releases that merged by index alone did). The merged chunks on
    such an index whose id is not one streamed id (the ids were concatenated), or
    else the first one there, are reported with the index's ids in stream order.

    Args:
        merged: The merged chunks, one per call.
        messages: The ``tool_call_chunks`` of each streamed message, in order.
    """
    streamed: dict[Any, dict[Any, None]] = {}
    for message in messages:
        for chunk in message:
            index, call_id = chunk.get("index"), chunk.get("id")
            if call_id and _merges_on(index):
                try:
                    streamed.setdefault(index, {})[call_id] = None
                except TypeError:  # an unhashable id: langchain-core would fail on it too
                    continue
    several = {index: ids for index, ids in streamed.items() if len(ids) > 1}
    if not several:
        return {}
    on_index: dict[Any, list[int]] = {}
    for position, chunk in enumerate(merged):
        index = chunk.get("index")
        if _merges_on(index) and index in several:
            on_index.setdefault(index, []).append(position)
    glued: dict[int, list[Any]] = {}
    for index, positions in on_index.items():
        ids = several[index]
        if len(positions) >= len(ids):
            continue
        foreign = [p for p in positions if merged[p].get("id") not in ids]
        for position in foreign or positions[:1]:
            glued[position] = list(ids)
    return glued
