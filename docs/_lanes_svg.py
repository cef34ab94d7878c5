"""Draw streams as index lanes in SVG, for the docs: ``python docs/_lanes_svg.py``.

Each picture is a real stream (``stream_plan``) and langchain-core's real merge of it
(``reference_merge``): one column per tool-call index, one row per streamed message,
each chunk coloured by the call that sent it, and the calls the merge made at the
bottom. ``tests/test_docs_site.py`` checks that the files in ``docs/img/`` are what
this script draws.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from tooltape.harness import Plan, PlannedCall, reference_merge, stream_plan

IMG = Path(__file__).parent / "img"

PLAN = Plan(
    calls=(
        PlannedCall("get_weather", {"city": "Paris"}),
        PlannedCall("get_time", {"tz": "CET"}),
    )
)


@dataclass(frozen=True)
class Picture:
    """One drawing: a file name, a title, the quirks that shape the plan's stream."""

    file: str
    title: str
    quirks: tuple[str, ...]
    caption: str


PICTURES = (
    Picture(
        "lanes-interleaved.svg",
        "interleave_calls: two calls stream at once, one index lane each",
        ("interleave_calls",),
        "the merge joins each lane's fragments: two calls, as planned",
    ),
    Picture(
        "lanes-shared-index.svg",
        "shared_index: both calls stream on index 0",
        ("shared_index",),
        "langchain-core joins index 0's fragments to its first call",
    ),
)

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
FILLS = ("#e8f1fa", "#fbe9e9", "#eaf6ea", "#f1ecf7")
LANE, GUTTER, ROW, TOP, CHAR = 300, 56, 30, 74, 7.8


def _fragment_text(chunk: Mapping[str, Any]) -> str:
    """A chunk as the lanes show it: id and name when it carries them, then its text."""
    head = " ".join(str(chunk[k]) for k in ("id", "name") if chunk.get(k))
    args = repr(chunk.get("args") or "")  # as draw_lanes shows it
    return f"{head} {args}" if head else args


def _call_text(call: Any, joined: str) -> str:
    """A merged call: id, name, its lane's joined argument text, and what it parsed to."""
    args = call.get("args")
    parsed = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    shown = f"{call.get('id')} {call.get('name')}  args {joined!r}"
    return shown if joined == parsed else f"{shown} -> {parsed}"


def _text(x: float, y: float, text: str, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<text x="{x:.0f}" y="{y:.0f}"{extra}>{escape(text)}</text>'


def draw(picture: Picture) -> str:
    """The SVG document for one picture."""
    stream = stream_plan(PLAN, list(picture.quirks), seed=1)
    messages = stream.deltas()
    lanes = sorted(
        {chunk.get("index") for message in messages for chunk in message},
        key=lambda index: -1 if index is None else index,  # no index: a lane of its own, first
    )
    merged = reference_merge(stream)
    calls = [*merged.tool_calls, *merged.invalid_tool_calls]
    texts = {str(chunk.get("id")): chunk.get("args") or "" for chunk in merged.chunks}
    lines = [_call_text(call, texts.get(str(call.get("id")), "")) for call in calls]
    longest = max(len(line) for line in [*lines, picture.caption, picture.title]) * CHAR
    width = int(max(GUTTER + LANE * len(lanes), GUTTER + longest + 60)) + 20
    bottom = TOP + ROW * len(messages) + 30
    height = bottom + 44 * len(calls) + (80 if merged.hazards else 40)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="ui-monospace, Menlo, Consolas, monospace" '
        'font-size="13">',
        f"<title>{escape(picture.title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        _text(12, 24, picture.title, font_size="15", font_weight="bold", fill="#222"),
    ]
    for n, lane in enumerate(lanes):
        x = GUTTER + LANE * n
        out.append(f'<rect x="{x}" y="36" width="{LANE - 10}" height="{bottom - 36}" '
                   'fill="#f6f7f9" stroke="#d0d4da" rx="6"/>')  # fmt: skip
        name = "no index" if lane is None else f"index {lane}"
        out.append(_text(x + 10, 58, name, font_weight="bold", fill="#444"))
    owner: dict[int | None, str] = {}  # index -> id of the last chunk there that carried one
    colour_of: dict[str, int] = {}
    for row, message in enumerate(messages):
        y = TOP + ROW * row
        out.append(_text(12, y + 19, f"msg {row}", fill="#888"))
        for chunk in message:
            index = chunk.get("index")
            if chunk.get("id"):
                owner[index] = str(chunk.get("id"))
            who = owner.get(index, "")
            colour = colour_of.setdefault(who, len(colour_of)) % len(COLOURS)
            x = GUTTER + LANE * lanes.index(index) + 8
            text = _fragment_text(chunk)
            box = min(LANE - 26, len(text) * CHAR + 16)
            out.append(f'<rect x="{x}" y="{y + 3}" width="{box:.0f}" height="{ROW - 6}" rx="4" '
                       f'fill="{FILLS[colour]}" stroke="{COLOURS[colour]}"/>')  # fmt: skip
            out.append(_text(x + 8, y + 19, text, fill="#222"))
    y = bottom + 22
    out.append(_text(12, y, f"reference_merge: {picture.caption}", fill="#444", font_weight="bold"))
    for call, text in zip(calls, lines, strict=True):
        y += 44
        colour = colour_of.get(str(call.get("id")), 0) % len(COLOURS)
        out.append(f'<rect x="{GUTTER}" y="{y - 22}" width="{len(text) * CHAR + 20:.0f}" '
                   f'height="32" rx="6" fill="{FILLS[colour]}" stroke="{COLOURS[colour]}" '
                   'stroke-width="2"/>')  # fmt: skip
        out.append(_text(GUTTER + 10, y - 1, text, fill="#222", font_weight="bold"))
    if merged.hazards:
        kinds = ", ".join(sorted({hazard.kind for hazard in merged.hazards}))
        out.append(_text(12, y + 38, f"hazards: {kinds}", fill="#b35900"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    """Write every picture into ``docs/img/``."""
    IMG.mkdir(exist_ok=True)
    for picture in PICTURES:
        (IMG / picture.file).write_text(draw(picture), encoding="utf-8")
        print(f"wrote {IMG / picture.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
