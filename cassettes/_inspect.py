"""Inspect a recording: its events, the reference merge, the hazards and the index lanes.

:func:`inspect_cassette` reads a cassette file (or a raw SSE, NDJSON, AWS
event-stream or JSON body file, given its dialect), parses each body with its
dialect to the deltas the reference adapter yields, runs langchain-core's
merge on them and draws the lanes. The :class:`Inspection` it returns prints
as text (``tooltape inspect``) and converts to JSON (``--json``).
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooltape.cassettes._dialects import dialect_for
from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes._model import Cassette, Interaction, RecordedRequest, RecordedResponse
from tooltape.cassettes._store import parse_cassette
from tooltape.cassettes.body_events import BodyEvent, read_events
from tooltape.cassettes.body_framing import Framing, framing_of
from tooltape.fake_providers import get_dialect
from tooltape.fake_providers.event_shapes import EventShape, shape_problems
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Deltas, MergeResult, draw_lanes, reference_merge
from tooltape.harness.bounded_reprs import bounded_text, error_text
from tooltape.harness.user_files import read_regular_file

__all__ = ["Inspection", "InteractionInspection", "inspect_body", "inspect_cassette"]

_CASSETTE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class InteractionInspection:
    """What one recorded interaction holds."""

    index: int
    dialect: str
    status: int
    request: str
    events: tuple[BodyEvent, ...]
    deltas: Deltas
    merge: MergeResult | None
    aborted: str | None
    warnings: tuple[str, ...] = ()
    """Malformed events: a field that carries tool calls has the wrong type."""

    @property
    def lanes(self) -> str:
        """The stream drawn as index lanes (empty for a non-streamed answer)."""
        return draw_lanes(self.deltas) if self.merge is not None else ""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        merge = self.merge
        return {
            "index": self.index,
            "dialect": self.dialect,
            "status": self.status,
            "request": self.request,
            "aborted": self.aborted,
            "events": [e.as_dict() for e in self.events],
            "tool_calls": merge.calls() if merge else [],
            "invalid_tool_calls": [dict(c) for c in merge.invalid_tool_calls] if merge else [],
            "hazards": [str(h) for h in merge.hazards] if merge else [],
            "warnings": list(self.warnings),
            "lanes": self.lanes,
        }


@dataclass(frozen=True)
class Inspection:
    """The inspection of a cassette or body file: one entry per interaction looked at."""

    source: str
    interactions: tuple[InteractionInspection, ...]

    @property
    def dialect(self) -> str:
        """The dialect (several, comma-separated, if the interactions differ)."""
        return ", ".join(dict.fromkeys(i.dialect for i in self.interactions))

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every valid call the reference merge found, interaction by interaction."""
        return [c for i in self.interactions if i.merge for c in i.merge.calls()]

    @property
    def invalid_tool_calls(self) -> list[dict[str, Any]]:
        """Every invalid call the reference merge found."""
        return [dict(c) for i in self.interactions if i.merge for c in i.merge.invalid_tool_calls]

    @property
    def hazards(self) -> list[str]:
        """Every hazard, prefixed with its interaction when there are several."""
        prefix = len(self.interactions) > 1
        return [
            (f"interaction {i.index}: " if prefix else "") + str(h)
            for i in self.interactions
            if i.merge
            for h in i.merge.hazards
        ]

    @property
    def warnings(self) -> list[str]:
        """Every malformed event, prefixed with its interaction when there are several."""
        prefix = len(self.interactions) > 1
        return [
            (f"interaction {i.index}: " if prefix else "") + w
            for i in self.interactions
            for w in i.warnings
        ]

    @property
    def events(self) -> list[BodyEvent]:
        """Every event of every interaction looked at."""
        return [e for i in self.interactions for e in i.events]

    @property
    def lanes(self) -> str:
        """The lanes of each streamed interaction."""
        return "\n\n".join(
            f"interaction {i.index}:\n{i.lanes}" for i in self.interactions if i.merge
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form (what ``tooltape inspect --json`` prints)."""
        return {
            "source": self.source,
            "dialect": self.dialect,
            "tool_calls": self.tool_calls,
            "invalid_tool_calls": self.invalid_tool_calls,
            "hazards": self.hazards,
            "warnings": self.warnings,
            "interactions": [i.as_dict() for i in self.interactions],
        }

    def to_json(self) -> str:
        """The JSON text of :meth:`as_dict`."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False, default=str)

    def __str__(self) -> str:
        lines = [f"{self.source} ({self.dialect})"]
        for item in self.interactions:
            lines.append(
                f"\ninteraction {item.index}: {item.request} -> {item.status}, "
                f"{len(item.events)} event(s)" + (f", cut: {item.aborted}" if item.aborted else "")
            )
            lines.extend(f"  warning {w}" for w in item.warnings)
            if item.merge is None:
                continue
            for call in item.merge.calls():
                lines.append(f"  call {call['name']} {json.dumps(call['args'])} id={call['id']}")
            for bad in item.merge.invalid_tool_calls:
                lines.append(f"  invalid {bad.get('name')} {bad.get('args')!r} id={bad.get('id')}")
            lines.extend(f"  hazard {h}" for h in item.merge.hazards)
            lines.append(item.lanes)
        return "\n".join(lines)


def _inspect_one(cassette: Cassette, index: int, dialect: str | None) -> InteractionInspection:
    interaction = cassette.interactions[index]
    response = interaction.response
    chosen = dialect_for(cassette, index, dialect)
    framing = _framing(response, chosen.framing)
    events = read_events(
        response.body,
        framing,
        path=cassette.path,
        interaction=index,
        aborted=response.aborted is not None,
    )
    deltas: Deltas = []
    merge = None
    if response.status == 200:
        try:
            deltas = chosen.parse(response.body)
        except Exception as error:  # a dialect that cannot read the body: one paragraph
            raise CassetteError(
                f"{where(cassette.path, index)}: the {chosen.name} dialect cannot read the body "
                f"({error_text(error)})"
            ) from None
        merge = reference_merge(deltas)
    request = f"{interaction.request.method} {bounded_text(interaction.request.uri)}"
    streamed = response.status == 200 and framing != "json"
    warnings = _malformed(events, chosen.event_shape) if streamed else ()
    return InteractionInspection(
        index,
        chosen.name,
        response.status,
        request,
        tuple(events),
        deltas,
        merge,
        response.aborted,
        warnings,
    )


def _framing(response: RecordedResponse, default: Framing) -> Framing:
    """How to cut the body: its content type's framing, or the body's own evidence.

    A 200 body that is one JSON document is a non-streamed answer (or a Gemini
    stream recorded without ``alt=sse``, a JSON array) whatever the header
    says, except on an NDJSON dialect, where one line is the whole stream; a
    body file or a cassette without headers takes the dialect's framing.
    """
    framing = framing_of(response.content_type) if response.content_type else default
    if response.status != 200:
        return framing
    if default != "ndjson" and json_document(response.body) is not None:
        return "json"
    return default if framing in ("json", "other") else framing


def _malformed(events: list[BodyEvent], shape: EventShape) -> tuple[str, ...]:
    """One line per event whose tool-call fields have the wrong type (the first few)."""
    found = []
    for event in events:
        if not event.dispatched or event.kind == "[DONE]" or event.data is None:
            continue
        problems = shape_problems(event.data, shape)
        if problems:
            found.append(f"event {event.number}: {'; '.join(problems)}")
        if len(found) >= _MAX_WARNINGS:
            found.append("… (further malformed events not listed)")
            break
    return tuple(found)


_MAX_WARNINGS = 20


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a recording is read.

    Reading builds millions of small containers that make no cycles (decoded
    events, chunks); each automatic collection walks all of them again, which
    cost a third of ``tooltape inspect`` on 100,000 calls.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def inspect_body(
    body: bytes, dialect: str, *, source: str = "<body>", aborted: str | None = None
) -> Inspection:
    """Inspect a raw body in ``dialect``: a stream (SSE, NDJSON, AWS event stream) or JSON."""
    try:
        chosen = get_dialect(dialect)
    except ValueError as error:
        raise CassetteError(f"{source}: {error}") from None
    path = "/" + chosen.path.lstrip("/")
    interaction = Interaction(
        RecordedRequest("POST", f"https://body.invalid{path}"),
        RecordedResponse(
            headers=(("content-type", chosen.media_type),), body=body, aborted=aborted
        ),
    )
    cassette = Cassette((interaction,), path=Path(source))
    with _collector_paused():
        return Inspection(source, (_inspect_one(cassette, 0, dialect),))


def _looks_like_cassette(path: Path, raw: bytes) -> bool:
    head = raw.lstrip()[:200]
    return path.suffix.lower() in _CASSETTE_SUFFIXES or head.startswith(
        (b"interactions:", b"version:", b"tooltape:")
    )


def inspect_cassette(
    source: Cassette | str | Path, *, dialect: str | None = None, interaction: int | None = None
) -> Inspection:
    """Inspect a cassette, or a raw body file with an explicit ``dialect``.

    Args:
        source: A cassette, a cassette file (``.yaml``), or a body file (anything else).
        dialect: The dialect to read bodies in (required for a body file; default for a
            cassette: its metadata, else inferred from each request's URL).
        interaction: Only this interaction (default: all).

    Raises:
        CassetteError: An unreadable file, an unknown dialect, a body that is not in its
            framing, an event whose data is not JSON, or an interaction out of range.
    """
    with _collector_paused():
        return _inspect_source(source, dialect, interaction)


def _inspect_source(
    source: Cassette | str | Path, dialect: str | None, interaction: int | None
) -> Inspection:
    if isinstance(source, Cassette):
        cassette = source
    else:
        path = Path(source)
        try:
            raw = read_regular_file(path, error=CassetteError)
        except FileNotFoundError:
            raise CassetteError(f"{path}: cannot read the file (no such file)") from None
        if not _looks_like_cassette(path, raw):
            if dialect is None:
                raise CassetteError(
                    f"{path}: not a cassette (.yaml); to inspect a raw body, name its dialect"
                )
            return inspect_body(raw, dialect, source=str(path))
        cassette = parse_cassette(raw, path)
        del raw  # the cassette holds what is needed; a big file's text need not stay too
    count = len(cassette.interactions)
    if interaction is not None and not -count <= interaction < count:
        raise CassetteError(
            f"{where(cassette.path)}: no interaction {interaction}; it holds {count}"
        )
    indexes = range(count) if interaction is None else [interaction % count]
    label = str(cassette.path) if cassette.path else "<cassette>"
    return Inspection(label, tuple(_inspect_one(cassette, i, dialect) for i in indexes))
