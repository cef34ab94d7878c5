"""What check_merger found: the stream, both results, the reference's hazards, and how to rerun it.

A disagreement on a stream whose reference merge has no hazard is the merger's
bug. One on a stream where langchain-core itself loses or invents data (a
hazard) is a different finding, labelled with those hazards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from tooltape.harness._assertions import (
    _copy,
    describe_calls_diff,
    first_divergence,
    normalize_calls,
)
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._hazards import _validity
from tooltape.harness._json_compare import (
    first_difference,
    first_leaf_difference,
    json_equal,
    json_type,
    type_differences,
    typed_repr,
)
from tooltape.harness._lanes import draw_lanes
from tooltape.harness._models import Hazard, HazardKind, ToolCallDict
from tooltape.harness._reference import reference_merge

__all__ = ["Counterexample", "HazardPolicy", "MergerFn", "describe_counterexample"]

MergerFn = Callable[[list[list[dict[str, Any]]]], Any]
"""A merge function: deltas (one ToolCallChunk list per message) -> ``[{name, args, id}]``."""

HazardPolicy = Literal["require", "ignore", "plan"]
"""What a merger must return on a stream where langchain-core's merge has a hazard."""

HAZARD_POLICIES: tuple[HazardPolicy, ...] = ("require", "ignore", "plan")

_DOES = {
    "args_repaired": "repairs incomplete argument JSON into a valid call",
    "repeated_name": "concatenates a name the provider repeated on every chunk",
    "id_changed": "splits a call whose id changed into two calls",
    "orphan_fragment": "turns an orphan fragment into a call of its own",
    "shared_index": "joins id-less chunks to the first of two calls sharing an index",
    "missing_id": "keeps a call that has no id",
    "duplicate_id": "keeps two calls that share an id",
    "invalid_call": "drops a call whose arguments are not a JSON object",
}
_MAX_ERROR = 200


@dataclass(frozen=True)
class Counterexample:
    """A stream on which a merger and langchain-core disagree, as check_merger reports it."""

    stream: PlannedStream
    """The stream: its plan, quirks and seed rebuild it with ``stream_plan``."""
    merger: MergerFn
    """The merge function under test."""
    expected: list[ToolCallDict]
    """The reference's calls, normalised as they were compared."""
    got: list[ToolCallDict] | BaseException
    """What the merger returned (normalised), or what it raised."""
    hazards: tuple[Hazard, ...]
    """The reference merge's hazards; empty when the disagreement is unambiguous."""
    found_by: str = "fuzzing"
    """``fuzzing`` (shrunk) or the library example that caught it."""
    ignore_ids: bool = False
    on_reference_hazard: HazardPolicy = "require"

    @property
    def unambiguous(self) -> bool:
        """True when langchain-core's merge of the stream has no hazard: the bug is the merger's."""
        return not self.hazards

    def outcome(self, deltas: list[Any]) -> tuple[list[ToolCallDict], object]:
        """The reference's calls and the merger's (or its exception type) on other deltas."""
        expected = normalize_calls(reference_merge(deltas), ignore_ids=self.ignore_ids)
        try:
            got: object = normalize_calls(self.merger(_copy(deltas)), ignore_ids=self.ignore_ids)
        except Exception as error:
            got = type(error)
        return expected, got

    def fails_the_same_way(self, deltas: list[Any]) -> bool:
        """Whether the merger disagrees with the reference on ``deltas`` exactly as here."""
        expected, got = self.outcome(deltas)
        if isinstance(self.got, BaseException):
            return got is type(self.got) and json_equal(expected, self.expected)
        return json_equal(expected, self.expected) and json_equal(got, self.got)

    def snippet(self) -> str:
        """Python code that rebuilds the stream and repeats the failing comparison."""
        return _snippet(self)


def _phrase(hazards: tuple[Hazard, ...]) -> str:
    kinds: list[HazardKind] = list(dict.fromkeys(h.kind for h in hazards))
    return " and ".join(_DOES[k] for k in kinds) + f" ({', '.join(kinds)})"


def _value(value: Any, other: Any) -> str:
    if json_type(value) != json_type(other) or (value == other and not json_equal(value, other)):
        return typed_repr(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _call_label(position: int, *calls: Any) -> str:
    ids = [call.get("id") for call in calls if isinstance(call, dict)]
    call_id = next((i for i in ids if i), None)
    return f"call {position} ({call_id})" if call_id else f"call {position}"


def _difference(found: Counterexample) -> tuple[int | None, str, str]:
    """The first difference as ``(position, field, sentence)``; position ``None`` for a raise."""
    if isinstance(found.got, BaseException):
        return None, "", f"the merger raised {type(found.got).__name__}"
    difference = first_difference(found.expected, found.got)
    if difference is None:  # cannot happen for a real counterexample; say so plainly
        return None, "", "the merger's calls differ from langchain-core's"
    position, field, want, got = difference
    if field == "call" and got is None:
        return (
            position,
            field,
            (
                f"{_call_label(position, want)} {want['name']!r} is missing from the merger's "
                f"calls ({len(found.got)} against langchain-core's {len(found.expected)})"
            ),
        )
    if field == "call":
        return (
            position,
            field,
            (
                f"the merger returns an extra {_call_label(position, got)} {got.get('name')!r} "
                f"({len(found.got)} calls against langchain-core's {len(found.expected)})"
            ),
        )
    label = _call_label(position, found.expected[position], found.got[position])
    where, want, got = first_leaf_difference(want, got, field)
    return (
        position,
        field,
        (
            f"{label} {where}: {_value(got, want)} from the merger, "
            f"{_value(want, got)} from langchain-core"
        ),
    )


def _concerned(found: Counterexample, position: int | None, field: str) -> tuple[Hazard, ...]:
    """The reference's hazards that concern the call where the merger differs."""
    if position is None:
        return found.hazards
    chunks = reference_merge(found.stream.deltas()).chunks
    valid = [n for n, ok in enumerate(_validity(chunks)) if ok]
    target = valid[position] if position < len(valid) else None
    ids = {
        call.get("id")
        for calls in (found.expected, found.got)
        if isinstance(calls, list) and position < len(calls)
        for call in [calls[position]]
    } - {None, ""}

    def concerns(hazard: Hazard) -> bool:
        if hazard.position is None or (hazard.call_id and hazard.call_id in ids):
            return True
        if field == "call":  # a call too many or too few: a dropped or split call may explain it
            return hazard.position not in valid or target is None or hazard.position >= target
        return hazard.position == target

    return tuple(h for h in found.hazards if concerns(h))


def _headline(found: Counterexample) -> str:
    stream = found.stream
    shape = (
        f"{len(stream.messages)} message(s) from {len(stream.plan.calls)} planned call(s)"
        f", found by {found.found_by}"
    )
    position, field, what = _difference(found)
    if found.unambiguous:
        return (
            f"the merger disagrees with langchain-core: {what}; on a stream of {shape}; "
            "langchain-core's merge of it has no hazard, so the difference is the merger's"
        )
    concerned = _concerned(found, position, field)
    if not concerned:
        kinds = ", ".join(dict.fromkeys(h.kind for h in found.hazards))
        where = (
            f"on a stream of {shape}; langchain-core's merge has hazards ({kinds}), "
            "but not on this call"
        )
    else:
        where = f"where langchain-core {_phrase(concerned)}; a stream of {shape}"
    if found.on_reference_hazard == "plan":
        return f"the merger returns neither langchain-core's calls nor the plan's: {what}; {where}"
    return (
        f"your merger differs from langchain-core: {what}; {where}. "
        "langchain-core may be the one losing data here: "
        "check_merger(on_reference_hazard='plan') also accepts the plan's calls on such "
        "streams, 'ignore' accepts anything"
    )


def describe_counterexample(found: Counterexample) -> str:
    """The failure text: verdict, hazards, stream, lanes, diff and a runnable reproduction."""
    stream = found.stream
    divergence = first_divergence(found.merger, stream, ignore_ids=found.ignore_ids)
    note = "subject and reference diverge here" if divergence is not None else ""
    quirks = ", ".join(map(str, stream.quirks)) or "none"
    hazards = [f"  {h}" for h in found.hazards] or ["  none"]
    lines = [
        _headline(found),
        "reference hazards:",
        *hazards,
        f"quirks: {quirks}; seed: {stream.seed}",
        f"plan: {[call.as_dict() for call in stream.plan.calls]!r}",
        "",
        draw_lanes(stream, mark=divergence, note=note),
        "",
    ]
    if isinstance(found.got, BaseException):
        message = str(found.got)
        message = message if len(message) <= _MAX_ERROR else message[:_MAX_ERROR] + "…"
        lines.append(f"the merger raised {type(found.got).__name__}: {message}")
        lines.append("reference: " + "; ".join(map(str, found.expected)))
    else:
        lines.append(
            describe_calls_diff(found.expected, found.got).replace("+++ merged", "+++ subject")
        )
        lines += type_differences(found.expected, found.got)
    lines += ["", "reproduce:", *("    " + line for line in found.snippet().splitlines())]
    return "\n".join(lines)


def _merger_import(fn: MergerFn) -> str:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", "")
    name = getattr(fn, "__name__", "my_merge")
    if module and module != "__main__" and qualname.isidentifier():
        return f"from {module} import {qualname} as merger"
    return f"merger = {name}  # your merge function (this snippet cannot import it)"


def _snippet(found: Counterexample) -> str:
    stream = found.stream
    plan = stream.plan.model_dump(mode="json", exclude_defaults=True)
    quirks = [q.model_dump(mode="json") for q in stream.quirks]
    ids = found.ignore_ids
    # JSON text, not ``==``: 1, 1.0 and true are different arguments
    compare = "assert dumps(got) == dumps(expected)"
    if found.hazards and found.on_reference_hazard == "plan":
        compare = (
            f"assert dumps(got) in (dumps(expected), dumps(normalize_calls(plan, "
            f"ignore_ids={ids})))"
        )
    return "\n".join(
        [
            "from tooltape.harness import Plan, normalize_calls, parse_quirk, reference_merge",
            "from tooltape.harness import stream_plan",
            "from functools import partial",
            "from json import dumps as _dumps",
            "dumps = partial(_dumps, sort_keys=True)",
            _merger_import(found.merger),
            f"plan = Plan.model_validate({plan!r})",
            f"quirks = [parse_quirk(q) for q in {quirks!r}]",
            f"deltas = stream_plan(plan, quirks, seed={stream.seed}).deltas()",
            f"expected = normalize_calls(reference_merge(deltas), ignore_ids={ids})",
            f"got = normalize_calls(merger(deltas), ignore_ids={ids})",
            compare,
        ]
    )
