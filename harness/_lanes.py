"""Draw a stream as lanes: one column per index, one row per streamed message.

The drawing is what failure messages, ``tooltape inspect`` and snapshots show::

    msg │ index 0                      │ index 1
      0 │ call_0 get_weather ''        │
      1 │ '{"city": "Pa'               │
    > 2 │                              │ call_1 add '{"a": 1}'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import ToolCallChunk

from tooltape.harness._fragments import PlannedStream
from tooltape.harness._reference import DeltasLike, to_message_chunks

__all__ = ["draw_lanes"]

_NO_INDEX = "no index"


def _lane_key(index: Any) -> tuple[int, str]:
    if isinstance(index, int):
        return (0, f"{index:09d}")
    return (1, repr(index))


def _lane_name(index: Any) -> str:
    return _NO_INDEX if index is None else f"index {index}"


def _cell(chunk: ToolCallChunk, width: int) -> str:
    parts = []
    if chunk.get("id") is not None:
        parts.append(f"id={chunk['id']!r}" if not chunk["id"] else str(chunk["id"]))
    if chunk.get("name") is not None:
        parts.append(f"name={chunk['name']!r}" if not chunk["name"] else str(chunk["name"]))
    parts.append(repr(chunk.get("args")))
    text = " ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "…"


def draw_lanes(
    deltas: DeltasLike,
    *,
    mark: int | None = None,
    note: str = "",
    width: int = 30,
    max_rows: int = 60,
    max_lanes: int = 12,
) -> str:
    """Draw the stream as text lanes, one per index.

    Args:
        deltas: The stream (anything :func:`reference_merge` takes).
        mark: A message number to flag with ``>`` (e.g. where subject and
            reference first diverge).
        note: Text printed after the marked row.
        width: Characters per lane cell.
        max_rows: Rows shown around the mark (or from the start); the rest is elided
            (and only the shown rows are read, so a huge stream draws quickly).
        max_lanes: Lanes shown; the rest are counted in the header.

    Returns:
        The drawing, without a trailing newline.
    """
    rows, count = _shown_rows(deltas, mark, max_rows)
    every = sorted({chunk.get("index") for row in rows.values() for chunk in row}, key=_lane_key)
    lanes = every[:max_lanes] or [None]
    header = "msg │ " + " │ ".join(_lane_name(lane).ljust(width) for lane in lanes)
    if len(every) > len(lanes):
        header += f" │ … {len(every) - len(lanes)} more lane(s) not shown"
    lines = [header.rstrip(), "────┼─" + "─┼─".join("─" * width for _ in lanes)]
    previous = -1
    for number, row in rows.items():
        if number != previous + 1:
            lines.append(f"    │ … {number - previous - 1} message(s) not shown")
        previous = number
        lines.append(_row(number, row, lanes, width, mark, note))
    if count and previous != count - 1:
        lines.append(f"    │ … {count - 1 - previous} message(s) not shown")
    return "\n".join(lines)


def _shown_rows(
    deltas: DeltasLike, mark: int | None, max_rows: int
) -> tuple[dict[int, list[ToolCallChunk]], int]:
    """The chunks of the rows to draw, by message number, and the number of messages."""
    if isinstance(deltas, PlannedStream):
        deltas = deltas.deltas()
    big = isinstance(deltas, Sequence) and not isinstance(deltas, str | bytes)
    if big and len(deltas) > max_rows:
        shown = _visible_rows(len(deltas), mark, max_rows)
        picked: list[Any] = [deltas[n] for n in shown]
        messages = to_message_chunks(picked)
        return {n: list(m.tool_call_chunks) for n, m in zip(shown, messages, strict=True)}, len(
            deltas
        )
    every = [list(message.tool_call_chunks) for message in to_message_chunks(deltas)]
    return dict(enumerate(every)), len(every)


def _visible_rows(count: int, mark: int | None, max_rows: int) -> list[int]:
    if count <= max_rows:
        return list(range(count))
    centre = mark if mark is not None else 0
    start = max(0, min(centre - max_rows // 2, count - max_rows))
    return list(range(start, start + max_rows))


def _row(
    number: int,
    chunks: Sequence[ToolCallChunk],
    lanes: list[Any],
    width: int,
    mark: int | None,
    note: str,
) -> str:
    cells = []
    for lane in lanes:
        here = [c for c in chunks if c.get("index") == lane]
        cells.append(" + ".join(_cell(c, width) for c in here)[:width].ljust(width))
    prefix = f"> {number:>2}" if number == mark else f"{number:>4}"
    line = f"{prefix}│ " + " │ ".join(cells)
    line = line.rstrip()
    if number == mark and note:
        line += f"   ← {note}"
    return line
