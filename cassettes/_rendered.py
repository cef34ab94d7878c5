"""Write a rendered stream as a cassette: for ``tooltape render --cassette`` and counterexamples."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tooltape.cassettes._library_requests import request_for
from tooltape.cassettes._model import (
    Cassette,
    CassetteInfo,
    Interaction,
    RecordedRequest,
    RecordedResponse,
)
from tooltape.cassettes._store import save_cassette
from tooltape.fake_providers import Dialect, FakeProvider, Wire, dialect_names, get_dialect
from tooltape.harness import Counterexample, Scenario, TooltapeUsageError, reference_merge

__all__ = ["save_counterexample", "save_rendered"]


def _origin(dialect: Dialect) -> str:
    try:
        return FakeProvider(dialect).base_url.split("/v1")[0]
    except TooltapeUsageError:
        return f"https://{dialect.name.replace('_', '-')}.tooltape.invalid"


def save_rendered(
    path: str | Path,
    scenario: Scenario,
    dialect: Dialect,
    wire: Wire,
    quirks: Sequence[Any] = (),
    *,
    overwrite: bool = False,
) -> Path:
    """Save one rendered turn of ``scenario`` as a one-interaction cassette.

    The request is the one the bundled library records with (the provider's public
    URL and a body that offers the plan's tools); the cassette carries the plan,
    quirks, seed and the reference result. Never overwrites unless asked.
    """
    route, query, body = request_for(dialect, scenario)
    suffix = ("?" + "&".join(f"{k}={v}" for k, v in query.items())) if query else ""
    request = RecordedRequest(
        "POST",
        _origin(dialect).rstrip("/") + route + suffix,
        (("content-type", "application/json"),),
        json.dumps(body, indent=2).encode(),
    )
    merged = reference_merge(dialect.parse(wire.body))
    info = CassetteInfo(
        dialect=dialect.name,
        scenario=scenario.name,
        description=scenario.description,
        plan=scenario.plan,
        quirks=tuple(quirks),
        seed=scenario.seed,
        reference={
            "tool_calls": merged.calls(),
            "invalid_tool_calls": [dict(c) for c in merged.invalid_tool_calls],
            "hazards": [str(h) for h in merged.hazards],
        },
    )
    cassette = Cassette((Interaction(request, RecordedResponse.from_wire(wire)),), info)
    save_cassette(cassette, Path(path), overwrite=overwrite)
    return Path(path)


def save_counterexample(
    path: str | Path, *, dialect: str = "openai_chat", overwrite: bool = False
) -> Callable[[Counterexample], str]:
    """A callback for ``check_merger(on_counterexample=...)`` that saves the counterexample.

    The stream is rendered in ``dialect``, parsed back as the dialect's adapter
    reads it, and written as a cassette only when the merger fails the same way
    on those deltas (same reference calls, same result or exception type), so
    the cassette is a regression test that replays the exact bytes. A dialect
    may frame messages differently from the harness stream (OpenAI Chat sends a
    role chunk first, so packing in the first message no longer matters there);
    then nothing is written and the message names the dialects that do reproduce it.

    Example:
        >>> check_merger(my_merge, on_counterexample=save_counterexample("regress.yaml"))
    """
    chosen = get_dialect(dialect)

    def save(found: Counterexample) -> str:
        stream = found.stream
        wire = _reproducing_wire(found, chosen)
        if wire is None:
            others = [
                name
                for name in dialect_names()
                if name != chosen.name and _reproducing_wire(found, get_dialect(name))
            ]
            return (
                f"not saved to {path}: rendered as {chosen.name}, the stream no longer fails "
                f"the same way; dialects that reproduce it: {', '.join(others) or 'none'}"
            )
        quirks = [q.model_dump() for q in stream.quirks]
        scenario = Scenario(
            name="counterexample",
            description="A stream check_merger found where the merger disagreed.",
            plan=stream.plan,
            quirks=tuple(quirks),
            seed=stream.seed,
        )
        written = save_rendered(path, scenario, chosen, wire, quirks, overwrite=overwrite)
        return f"saved to {written}"

    return save


def _reproducing_wire(found: Counterexample, dialect: Dialect) -> Wire | None:
    try:
        wire = dialect.render(found.stream)
    except TooltapeUsageError:
        return None
    return wire if found.fails_the_same_way(dialect.parse(wire.body)) else None
