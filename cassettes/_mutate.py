"""Derive quirk variants from a real recording, in the recording's own dialect.

``mutate(cassette, "split_name")`` reads each streamed body with its dialect,
recovers the plan behind it (:func:`plan_from_recording`: the calls with their
names, ids and arguments as langchain-core merges them, the text before and
after them, the reasoning and the finish) and renders that plan again with
the quirks. What is preserved: the calls, ids, arguments, text, the request,
the status and the recorded headers. What is regenerated: the envelope
(response and message ids, model, timestamps, usage, obfuscation, sequence
numbers) and the fragmenting of the arguments, which the dialect renders
afresh.

When every quirk is a wire (framing) quirk, nothing is re-rendered: the
recorded bytes are cut back into their events and re-framed, so the
variant keeps every recorded byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tooltape.cassettes._dialects import dialect_for
from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes._model import Cassette, Interaction, RecordedResponse
from tooltape.cassettes._plan_from import plan_from_recording
from tooltape.cassettes._recorded_merge import reference_of, searchable
from tooltape.cassettes._store import load_cassette
from tooltape.cassettes.body_events import read_events
from tooltape.cassettes.body_framing import framing_of, reframe
from tooltape.fake_providers import Wire
from tooltape.harness import Plan, Quirk, Stage, parse_quirk

__all__ = ["mutate", "quirk_spec"]


def quirk_spec(quirk: Quirk) -> str | dict[str, Any]:
    """How a quirk is written in a cassette: its kind, plus its parameters if any."""
    params = quirk.model_dump(mode="json", exclude_defaults=True)
    params.pop("kind", None)
    return {"kind": quirk.kind, **params} if params else quirk.kind


def _parse_quirks(specs: Sequence[Quirk | str | dict[str, Any]], label: str) -> list[Quirk]:
    quirks = []
    for spec in specs:
        try:
            quirks.append(parse_quirk(spec))
        except ValueError as error:
            raise CassetteError(f"{label}: quirk {spec!r}: {str(error).splitlines()[0]}") from None
    if not quirks:
        raise CassetteError(f"{label}: mutate() needs at least one quirk")
    return quirks


def _headers(recorded: RecordedResponse, wire: Wire) -> tuple[tuple[str, str], ...]:
    content_type = wire.content_type or recorded.content_type
    kept = tuple((k, v) for k, v in recorded.headers if k != "content-type")
    return (("content-type", content_type), *kept)


def _variant(
    cassette: Cassette, index: int, quirks: list[Quirk], seed: int, dialect: str | None
) -> tuple[RecordedResponse, Plan | None]:
    response = cassette.interactions[index].response
    here = where(cassette.path, index)
    chosen = dialect_for(cassette, index, dialect)
    try:
        if all(q.stage is Stage.WIRE for q in quirks):
            wire = reframe(response.body, response.headers, quirks, seed=seed)
            plan = None
        else:
            framing = framing_of(response.content_type) if response.content_type else "other"
            if framing in ("json", "other"):
                framing = chosen.framing
            aborted = response.aborted is not None
            events = read_events(
                response.body, framing, path=cassette.path, interaction=index, aborted=aborted
            )
            plan = plan_from_recording(
                chosen,
                chosen.parse(response.body),
                events,
                searchable(response.body, chosen.framing),
                aborted=aborted,
                path=cassette.path,
                interaction=index,
            )
            wire = chosen.render(plan, quirks, seed)
    except CassetteError:
        raise
    except ValueError as error:  # a quirk the dialect or the framing cannot express
        raise CassetteError(f"{here}: {str(error).splitlines()[0]}") from None
    variant = RecordedResponse.from_wire(wire, reason=response.reason)
    return RecordedResponse(
        status=response.status,
        reason=response.reason,
        headers=_headers(response, wire),
        body=variant.body,
        boundaries=variant.boundaries,
        aborted=variant.aborted or (response.aborted if plan is None else None),
    ), plan


def mutate(
    cassette: Cassette | str | Path,
    *quirks: Quirk | str | dict[str, Any],
    seed: int = 0,
    interaction: int | None = None,
    dialect: str | None = None,
) -> Cassette:
    """A variant of a recording with quirks applied, in the recording's dialect.

    Args:
        cassette: The recording (a path or a loaded cassette).
        quirks: Quirks of any stage (kind names, ``{"kind": ..., **params}``, or objects).
        seed: Fixes the quirks' random choices.
        interaction: Only this interaction (default: every interaction answered 200).
        dialect: Read the bodies in this dialect (default: the cassette's, or the URL's).

    Returns:
        A new, unsaved cassette (save it with :func:`save_cassette`).

    Raises:
        CassetteError: No quirk, an unknown quirk, one the dialect cannot express, a
            recording whose calls make no plan, or no such interaction.
    """
    source = cassette if isinstance(cassette, Cassette) else load_cassette(cassette)
    label = str(source.path) if source.path else "<cassette>"
    parsed = _parse_quirks(quirks, label)
    count = len(source.interactions)
    if interaction is not None and not 0 <= interaction < count:
        raise CassetteError(f"{label}: no interaction {interaction}; it holds {count}")
    targets = (
        [interaction]
        if interaction is not None
        else [i for i, x in enumerate(source.interactions) if x.response.status == 200]
    )
    if not targets:
        raise CassetteError(f"{label}: no interaction answered 200; nothing to mutate")
    interactions = list(source.interactions)
    plans = []
    for index in targets:
        response, plan = _variant(source, index, parsed, seed, dialect)
        interactions[index] = Interaction(interactions[index].request, response)
        plans.append(plan)
    first = targets[0]
    chosen = dialect_for(source, first, dialect)
    variant = Cassette(tuple(interactions), source.info, None)
    return variant.with_info(
        dialect=chosen.name,
        plan=plans[0] if plans[0] is not None else source.info.plan,
        quirks=[*source.info.quirks, *(quirk_spec(q) for q in parsed)],
        seed=seed,
        derived_from=f"{label}, interaction(s) {', '.join(map(str, targets))}",
        reference=reference_of(chosen, interactions[first].response.body),
    )
