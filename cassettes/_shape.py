"""A stream's shape, and the drift report when a re-recording changes it.

Real providers change their streams without notice: an id moves from the
first chunk to every chunk, text starts to precede the calls and shifts the
indexes, an event type appears. A re-recording that silently replaces the old
cassette hides that; :func:`drift` compares the shapes of the old and new
recordings and says what moved. The shape ignores what varies from run to run
anyway (how many argument fragments, the text, the ids' values) and keeps:

- the event types in order, repeats collapsed;
- how many tool calls the reference merge finds;
- where ids and names appear in each index lane (first chunk, every chunk, late, none);
- the index pattern (which lanes, in order of first appearance);
- the status and whether the connection dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from tooltape.cassettes._dialects import dialect_for
from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import Cassette, Interaction
from tooltape.cassettes.body_events import read_events
from tooltape.cassettes.body_framing import framing_of
from tooltape.harness import Deltas, reference_merge

__all__ = ["StreamShape", "drift", "drift_report", "stream_shape"]


@dataclass(frozen=True)
class StreamShape:
    """What a re-recording should keep the same."""

    status: int
    events: tuple[str, ...]
    calls: int | None
    ids: tuple[str, ...]
    names: tuple[str, ...]
    indexes: tuple[str, ...]
    dropped: bool


_LABELS = {
    "status": "status",
    "events": "event types",
    "calls": "tool calls",
    "ids": "where ids appear (per index lane)",
    "names": "where names appear (per index lane)",
    "indexes": "index pattern",
    "dropped": "connection dropped",
}


def _collapse(kinds: Sequence[str]) -> tuple[str, ...]:
    out: list[str] = []
    for kind in kinds:
        if not out or out[-1] != kind:
            out.append(kind)
    return tuple(out)


def _placement(present: list[bool]) -> str:
    if not any(present):
        return "none"
    if all(present):
        return "every" if len(present) > 1 else "first"
    if present[0] and not any(present[1:]):
        return "first"
    return "late" if not present[0] else "some"


def _lanes(deltas: Deltas) -> dict[str, list[dict[str, object]]]:
    lanes: dict[str, list[dict[str, object]]] = {}
    for message in deltas:
        for chunk in message:
            index = chunk.get("index")
            lanes.setdefault("none" if index is None else str(index), []).append(dict(chunk))
    return lanes


def stream_shape(
    interaction: Interaction, *, cassette: Cassette | None = None, number: int = 0
) -> StreamShape:
    """The shape of one recorded interaction (tool-call parts need a known dialect)."""
    response = interaction.response
    framing = framing_of(response.content_type)
    try:
        events = read_events(response.body, framing, aborted=response.aborted is not None)
        kinds = _collapse([e.kind for e in events if e.dispatched])
    except CassetteError:
        kinds = ("<unreadable>",)
    calls: int | None = None
    ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()
    holder = cassette or Cassette(interactions=(interaction,))
    if response.status == 200:
        try:
            deltas = dialect_for(holder, number).parse(response.body)
        except Exception:  # no dialect, or one that cannot read it: events only
            deltas = None
        if deltas is not None:
            merged = reference_merge(deltas)
            calls = len(merged.tool_calls) + len(merged.invalid_tool_calls)
            lanes = _lanes(deltas)
            ids = tuple(_placement([bool(c.get("id")) for c in lane]) for lane in lanes.values())
            names = tuple(
                _placement([bool(c.get("name")) for c in lane]) for lane in lanes.values()
            )
            indexes = tuple(lanes)
    return StreamShape(
        response.status, kinds, calls, ids, names, indexes, response.aborted is not None
    )


def _as_cassette(value: Cassette | Interaction | str | Path) -> Cassette:
    if isinstance(value, Cassette):
        return value
    if isinstance(value, Interaction):
        return Cassette(interactions=(value,))
    from tooltape.cassettes._store import load_cassette

    return load_cassette(value)


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def drift(
    old: Cassette | Interaction | str | Path, new: Cassette | Interaction | str | Path
) -> list[str]:
    """What changed in the stream's shape from ``old`` to ``new``, one line per change.

    Interactions are compared in order; an empty list means the shapes agree.
    """
    before, after = _as_cassette(old), _as_cassette(new)
    lines = []
    if len(before.interactions) != len(after.interactions):
        lines.append(f"interactions: {len(before.interactions)} -> {len(after.interactions)}")
    pairs = zip(before.interactions, after.interactions, strict=False)
    for number, (was, now) in enumerate(pairs):
        shape_was = stream_shape(was, cassette=before, number=number)
        shape_now = stream_shape(now, cassette=after, number=number)
        for field in fields(StreamShape):
            a, b = getattr(shape_was, field.name), getattr(shape_now, field.name)
            if a != b:
                lines.append(
                    f"interaction {number}: {_LABELS[field.name]}: {_show(a)} -> {_show(b)}"
                )
    return lines


def drift_report(lines: Sequence[str], path: str | Path | None) -> str:
    """The text printed when a re-recording changed the stream's shape."""
    if not lines:
        return ""
    body = "\n".join(f"  - {line}" for line in lines)
    return (
        f"tooltape: re-recording {path or 'the cassette'} changed the stream's shape "
        f"({len(lines)} change(s)); check the code that reads it still copes:\n{body}\n"
    )
