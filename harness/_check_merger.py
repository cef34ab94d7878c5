"""check_merger: fuzz a merge function against langchain-core with shrunk counterexamples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tooltape.harness._assertions import (
    _copy,
    describe_calls_diff,
    first_divergence,
    normalize_calls,
)
from tooltape.harness._errors import MergeMismatch
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._lanes import draw_lanes
from tooltape.harness._models import Plan, ToolCallDict
from tooltape.harness._quirks import Quirk
from tooltape.harness._reference import reference_merge
from tooltape.harness.strategies import planned_streams, plans, quirk_sets

__all__ = ["MergerFn", "check_merger", "check_rechunking", "describe_counterexample"]

MergerFn = Callable[[list[list[dict[str, Any]]]], Any]
"""A merge function: deltas (one ToolCallChunk list per message) -> ``[{name, args, id}]``."""


def describe_counterexample(
    fn: MergerFn, stream: PlannedStream, got: list[ToolCallDict] | BaseException
) -> str:
    """The failure text for one stream: what it was, the lanes, and the diff."""
    want = normalize_calls(reference_merge(stream))
    divergence = first_divergence(fn, stream)
    note = "subject and reference diverge here" if divergence is not None else ""
    quirks = ", ".join(map(str, stream.quirks)) or "none"
    lines = [
        f"the merger disagrees with langchain-core on a stream of {len(stream.messages)} "
        f"message(s) from {len(stream.plan.calls)} planned call(s)",
        f"quirks: {quirks}; seed: {stream.seed}",
        f"plan: {_plan_repr(stream.plan)}",
        "",
        draw_lanes(stream, mark=divergence, note=note),
        "",
    ]
    if isinstance(got, BaseException):
        lines.append(f"the merger raised {type(got).__name__}: {got}")
        lines.append("reference: " + "; ".join(map(str, want)))
    else:
        lines.append(describe_calls_diff(want, got).replace("+++ merged", "+++ subject"))
    lines.append("")
    lines.append(
        "reproduce: stream_plan(plan, quirks, seed=...).deltas() with the plan, quirks and "
        "seed above"
    )
    return "\n".join(lines)


def _plan_repr(plan: Plan) -> str:
    return repr([call.as_dict() for call in plan.calls])


def check_merger(
    fn: MergerFn,
    *,
    max_examples: int = 100,
    plans_strategy: st.SearchStrategy[Plan] | None = None,
    quirks_strategy: st.SearchStrategy[list[Quirk]] | None = None,
    ignore_ids: bool = False,
    derandomize: bool | None = None,
    on_counterexample: Callable[[PlannedStream], object] | None = None,
) -> None:
    """Fuzz ``fn`` against the reference merge over generated quirky streams.

    ``fn`` receives deltas (a list of ``ToolCallChunk`` dict lists, one per
    streamed message; a fresh copy each time) and returns the valid tool calls
    as ``{name, args, id}`` dicts (an ``AIMessage`` is accepted too). Hypothesis
    shrinks a failure to the smallest stream that still disagrees.

    Args:
        fn: The merge function under test.
        max_examples: How many streams to try.
        plans_strategy: Plans to draw (default: :func:`strategies.plans`).
        quirks_strategy: Quirk sets to draw (default: :func:`strategies.quirk_sets`).
        ignore_ids: Compare names and args only.
        derandomize: Force Hypothesis's derandomized mode (``None``: follow the
            loaded settings profile).
        on_counterexample: Called with the shrunk stream before the failure is
            raised; what it returns is named in the message.
            ``tooltape.cassettes.save_counterexample(path)`` writes it as a cassette.

    Raises:
        MergeMismatch: With the shrunk counterexample drawn as index lanes, the
            first message where subject and reference diverge, and a diff.
    """
    streams = planned_streams(
        plans_strategy if plans_strategy is not None else plans(),
        quirks_strategy if quirks_strategy is not None else quirk_sets(),
    )

    def expected(stream: PlannedStream) -> list[ToolCallDict]:
        return normalize_calls(reference_merge(stream), ignore_ids=ignore_ids)

    _fuzz(fn, streams, expected, max_examples, derandomize, ignore_ids, on_counterexample)


def check_rechunking(
    fn: MergerFn,
    *,
    max_examples: int = 100,
    plans_strategy: st.SearchStrategy[Plan] | None = None,
    derandomize: bool | None = None,
    on_counterexample: Callable[[PlannedStream], object] | None = None,
) -> None:
    """Fuzz the property "re-chunking never changes the merge" on ``fn``.

    Every stream drawn uses only lossless quirks (how arguments are cut, how
    chunks are packed, where ids and names travel, interleaving, index offsets),
    so ``fn`` must return exactly the plan's calls for all of them.

    Raises:
        MergeMismatch: With the shrunk stream drawn as lanes and the diff.
    """
    streams = planned_streams(
        plans_strategy if plans_strategy is not None else plans(),
        quirk_sets(lossless_only=True),
    )

    def expected(stream: PlannedStream) -> list[ToolCallDict]:
        return normalize_calls(stream.plan.expected_calls())

    _fuzz(fn, streams, expected, max_examples, derandomize, False, on_counterexample)


def _fuzz(
    fn: MergerFn,
    streams: st.SearchStrategy[PlannedStream],
    expected: Callable[[PlannedStream], list[ToolCallDict]],
    max_examples: int,
    derandomize: bool | None,
    ignore_ids: bool,
    on_counterexample: Callable[[PlannedStream], object] | None = None,
) -> None:
    overrides: dict[str, Any] = {
        "max_examples": max_examples,
        "deadline": None,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
        # The explain phase re-runs the failure under a line tracer for seconds; our
        # own message already says what the stream was and where it went wrong.
        "phases": [p for p in Phase if p is not Phase.explain],
    }
    if derandomize is not None:
        overrides["derandomize"] = derandomize
        if derandomize:
            overrides["database"] = None

    @settings(**overrides)
    @given(stream=streams)
    def agrees(stream: PlannedStream) -> None:
        want = expected(stream)
        try:
            got = normalize_calls(fn(_copy(stream.deltas())), ignore_ids=ignore_ids)
        except Exception as error:
            raise _Disagreement(stream, error) from error
        if got != want:
            raise _Disagreement(stream, got)

    try:
        agrees()
    except _Disagreement as found:
        raise _mismatch(fn, found, on_counterexample) from None
    except BaseExceptionGroup as group:  # Hypothesis found several distinct failures
        first = _first_disagreement(group)
        if first is None:
            raise
        raise _mismatch(fn, first, on_counterexample) from None


def _mismatch(
    fn: MergerFn,
    found: _Disagreement,
    on_counterexample: Callable[[PlannedStream], object] | None,
) -> MergeMismatch:
    text = describe_counterexample(fn, found.stream, found.got)
    if on_counterexample is not None:
        saved = on_counterexample(found.stream)
        if saved is not None:
            text += f"\nthe counterexample was saved: {saved}"
    return MergeMismatch(text)


class _Disagreement(Exception):
    """Raised inside the property; cheap, so shrinking does not draw lanes at every step."""

    def __init__(self, stream: PlannedStream, got: list[ToolCallDict] | BaseException) -> None:
        super().__init__("the merger disagrees with the reference")
        self.stream = stream
        self.got = got


def _first_disagreement(group: BaseExceptionGroup[BaseException]) -> _Disagreement | None:
    for error in group.exceptions:
        if isinstance(error, _Disagreement):
            return error
        if isinstance(error, BaseExceptionGroup):
            nested = _first_disagreement(error)
            if nested is not None:
                return nested
    return None
