"""The explicit examples check_merger runs before it fuzzes: every library scenario, packed.

The scenario library lives in ``tooltape.cassettes``, which depends on this
package, so the harness never imports it. Libraries are found instead through
the ``tooltape.scenario_libraries`` entry-point group: each entry names a
function that returns scenarios (tooltape registers
``tooltape.cassettes:bundled_scenarios`` there; another package may add its
own). They load on the first check, once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points

from tooltape.harness._engine import stream_plan
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._models import Deltas, MergeResult
from tooltape.harness._quirks import PackFragments, Quirk
from tooltape.harness._reference import reference_merge
from tooltape.harness._scenarios import Scenario

__all__ = ["ENTRY_POINT_GROUP", "Example", "library_examples", "registered_scenarios"]

ENTRY_POINT_GROUP = "tooltape.scenario_libraries"
"""The entry-point group whose functions return the scenarios check_merger runs first."""

_PACKINGS = (2, 3)
"""Message sizes each scenario is also packed into, besides one chunk per message and one
message holding every chunk: packing is where langchain-core's first-message rule shows."""


@dataclass(frozen=True)
class Example:
    """One stream check_merger runs as an explicit example, with its reference merge."""

    label: str
    """Where it comes from: ``scenario parallel_interleaved, packed 2 chunks a message``."""
    stream: PlannedStream
    deltas: Deltas
    reference: MergeResult


@functools.cache
def registered_scenarios() -> tuple[Scenario, ...]:
    """Every scenario the installed ``tooltape.scenario_libraries`` entry points return."""
    found: list[Scenario] = []
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        found.extend(entry.load()())
    return tuple(found)


def library_examples(
    scenarios: Sequence[Scenario] | None, allowed: frozenset[str]
) -> tuple[Example, ...]:
    """The examples of ``scenarios`` (``None``: every registered one) whose quirks are allowed.

    Each scenario's tool-chunk stream is taken as it is and packed 2 and 3 chunks
    a message and all in one; identical streams are run once.
    """
    if scenarios is None:
        return _registered_examples(allowed)
    return _examples(scenarios, allowed)


@functools.cache
def _registered_examples(allowed: frozenset[str]) -> tuple[Example, ...]:
    return _examples(registered_scenarios(), allowed)


def _examples(scenarios: Sequence[Scenario], allowed: frozenset[str]) -> tuple[Example, ...]:
    examples: list[Example] = []
    seen: set[str] = set()
    # Every scenario as it is first, then the packed variants: a hazard found on the
    # scenario that names it is a clearer report than one packing adds.
    variants = [list(_variants(s, allowed)) for s in scenarios]
    for label, scenario, quirks in [v[0] for v in variants if v] + [
        variant for found in variants for variant in found[1:]
    ]:
        try:
            stream = stream_plan(scenario.plan, quirks, seed=scenario.seed)
        except TooltapeUsageError:
            continue
        deltas = stream.deltas()
        key = repr(deltas)
        if not stream.fragments or key in seen:
            continue
        seen.add(key)
        examples.append(Example(label, stream, deltas, reference_merge(deltas)))
    return tuple(examples)


def _variants(
    scenario: Scenario, allowed: frozenset[str]
) -> Iterable[tuple[str, Scenario, list[Quirk]]]:
    quirks = scenario.tool_chunk_quirks()
    if any(q.kind not in allowed for q in quirks):
        return
    name = f"scenario {scenario.name}"
    yield name, scenario, quirks
    if "pack_fragments" not in allowed or any(q.kind == "pack_fragments" for q in quirks):
        return
    try:
        count = len(stream_plan(scenario.plan, quirks, seed=scenario.seed).fragments)
    except TooltapeUsageError:
        return
    for size in sorted({*_PACKINGS, count}):
        if 2 <= size <= count:
            packed = [*quirks, PackFragments(size=size)]
            yield f"{name}, packed {size} chunks a message", scenario, packed
