"""check_merger and merger_property: a merge function against langchain-core, every bug class.

check_merger first runs every library scenario (as it is, and packed several
chunks a message) as explicit examples, so each bug class the library names is
caught on every run; then it fuzzes. A disagreement where langchain-core's own
merge has a hazard is kept apart from an unambiguous one and reported only when
no unambiguous one exists. merger_property is the fuzzing half as a plain
Hypothesis test, for pytest, pytest-xdist and HypoFuzz.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import Phase, given, settings, target
from hypothesis import strategies as st

from tooltape.harness._assertions import _copy, normalize_calls
from tooltape.harness._counterexample import (
    HAZARD_POLICIES,
    Counterexample,
    HazardPolicy,
    MergerFn,
    describe_counterexample,
)
from tooltape.harness._errors import MergeMismatch
from tooltape.harness._extreme_examples import extreme_examples
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._json_compare import json_equal
from tooltape.harness._merger_examples import library_examples
from tooltape.harness._models import MergeResult, Plan, ToolCallDict
from tooltape.harness._quirks import Quirk
from tooltape.harness._reference import reference_merge
from tooltape.harness._scenarios import Scenario
from tooltape.harness.name_checks import unknown_name
from tooltape.harness.strategies import (
    _allowed_kinds,
    _allowed_value_kinds,
    planned_streams,
    plans,
    quirk_sets,
)

__all__ = ["check_merger", "check_rechunking", "merger_property"]

OnCounterexample = Callable[[Counterexample], object]


class _Judge:
    """Compares one merger with the reference on one stream, by the hazard policy."""

    def __init__(self, fn: MergerFn, ignore_ids: bool, policy: HazardPolicy) -> None:
        self.fn, self.ignore_ids, self.policy = fn, ignore_ids, policy

    def __call__(
        self, stream: PlannedStream, deltas: Any, reference: MergeResult, found_by: str
    ) -> Counterexample | None:
        if reference.hazards and self.policy == "ignore":
            return None
        want = normalize_calls(reference, ignore_ids=self.ignore_ids)
        got: list[ToolCallDict] | BaseException
        try:
            got = normalize_calls(self.fn(_copy(deltas)), ignore_ids=self.ignore_ids)
        except Exception as error:
            got = error
        if not isinstance(got, BaseException) and json_equal(got, want):
            return None
        plan = reference.hazards and self.policy == "plan"
        if (
            plan
            and not isinstance(got, BaseException)
            and json_equal(got, normalize_calls(stream.plan, ignore_ids=self.ignore_ids))
        ):
            return None
        return Counterexample(
            stream, self.fn, want, got, reference.hazards, found_by, self.ignore_ids, self.policy
        )


class _Unambiguous(Exception):
    """Raised inside the property for a stream whose reference merge has no hazard."""

    def __init__(self, found: Counterexample) -> None:
        super().__init__("the merger disagrees with langchain-core")
        self.found = found


class _OnHazard(Exception):
    """Raised (from another line, so Hypothesis shrinks it apart) on a hazard stream."""

    def __init__(self, found: Counterexample) -> None:
        super().__init__("the merger differs from langchain-core on a hazard stream")
        self.found = found


def _check_policy(policy: str) -> HazardPolicy:
    for known in HAZARD_POLICIES:
        if policy == known:
            return known
    raise unknown_name(
        "on_reference_hazard policy",
        policy,
        HAZARD_POLICIES,
        plural="on_reference_hazard policies",
    )


def _streams(
    plans_strategy: st.SearchStrategy[Plan] | None,
    quirks_strategy: st.SearchStrategy[list[Quirk]] | None,
    kinds: Sequence[str] | None,
    exclude_kinds: Sequence[str],
    values: tuple[str, ...] | None = None,
) -> st.SearchStrategy[PlannedStream]:
    quirks = quirks_strategy
    if quirks is None:
        quirks = quirk_sets(kinds=kinds, exclude_kinds=exclude_kinds)
    if plans_strategy is None:
        plans_strategy = plans(value_kinds=values)
    return planned_streams(plans_strategy, quirks)


def _aim(stream: PlannedStream) -> None:
    """Steer Hypothesis toward long arguments, many calls and many fragments of one call."""
    text: dict[int, int] = {}
    pieces: dict[int, int] = {}
    for fragment in stream.fragments:
        text[fragment.call] = text.get(fragment.call, 0) + len(fragment.args or "")
        pieces[fragment.call] = pieces.get(fragment.call, 0) + 1
    target(float(max(text.values(), default=0)), label="longest argument text")
    target(float(len(stream.plan.calls)), label="calls")
    target(float(max(pieces.values(), default=0)), label="fragments of one call")


def _agrees(judge: _Judge, key: str) -> Callable[[PlannedStream], None]:
    def agrees(stream: PlannedStream) -> None:
        _aim(stream)
        deltas = stream.deltas()
        found = judge(stream, deltas, reference_merge(deltas), "fuzzing")
        if found is None:
            return
        if found.unambiguous:
            raise _Unambiguous(found)
        raise _OnHazard(found)

    # One database key per merger (Hypothesis's own hook for parametrised tests), so a
    # counterexample saved for one merger is never replayed against the next.
    agrees._hypothesis_internal_add_digest = key.encode()  # type: ignore[attr-defined]
    return agrees


def _key(kind: str, fn: MergerFn, judge: _Judge) -> str:
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
    return f"tooltape.{kind}:{name}:{judge.policy}:{judge.ignore_ids}"


def merger_property(
    fn: MergerFn,
    *,
    kinds: Sequence[str] | None = None,
    exclude_kinds: Sequence[str] = (),
    on_reference_hazard: HazardPolicy = "require",
    plans_strategy: st.SearchStrategy[Plan] | None = None,
    quirks_strategy: st.SearchStrategy[list[Quirk]] | None = None,
    ignore_ids: bool = False,
    max_examples: int | None = None,
    value_kinds: Sequence[str] | None = None,
    exclude_value_kinds: Sequence[str] = (),
) -> Callable[..., None]:
    """``fn`` against langchain-core as a plain Hypothesis test, for a test module.

    ``test_my_merger = merger_property(my_merge)`` is collected and run by pytest,
    pytest-xdist and HypoFuzz like any ``@given`` test; the loaded settings
    profile governs its budget, database and derandomisation. A failure raises
    :class:`MergeMismatch` with the shrunk stream, the reference's hazards and
    a runnable reproduction. The library examples are check_merger's; fuzzing
    campaigns rarely need them, so they are left out here, and so are the
    extreme examples (a 110,000-character argument...): drawn strings stay
    under 12,000 characters, and every example in milliseconds.

    Args:
        fn: The merge function under test (see :func:`check_merger`).
        kinds: Draw only these quirk kinds (:func:`strategies.quirk_sets`).
        exclude_kinds: Never draw these quirk kinds.
        on_reference_hazard: See :func:`check_merger`.
        plans_strategy: Plans to draw (default: :func:`strategies.plans`).
        quirks_strategy: Quirk sets to draw; overrides ``kinds``.
        ignore_ids: Compare names and args only.
        max_examples: Override the profile's ``max_examples`` (``None``: keep it).
        value_kinds: Argument value kinds to draw (see :func:`check_merger`).
        exclude_value_kinds: Argument value kinds never drawn.
    """
    judge = _Judge(fn, ignore_ids, _check_policy(on_reference_hazard))
    values = _allowed_value_kinds(value_kinds, exclude_value_kinds)
    streams = _streams(plans_strategy, quirks_strategy, kinds, exclude_kinds, values)
    agrees = _agrees(judge, _key("merger_property", fn, judge))

    def test_merger(stream: PlannedStream) -> None:
        try:
            agrees(stream)
        except (_Unambiguous, _OnHazard) as error:
            raise MergeMismatch(describe_counterexample(error.found)) from None

    name = re.sub(r"\W", "_", getattr(fn, "__name__", "merger"))
    test_merger.__name__ = test_merger.__qualname__ = f"merger_property_{name}"
    test_merger._hypothesis_internal_add_digest = agrees._hypothesis_internal_add_digest  # type: ignore[attr-defined]
    test = given(stream=streams)(test_merger)
    if max_examples is not None:
        test = settings(max_examples=max_examples)(test)
    return test


def check_merger(
    fn: MergerFn,
    *,
    max_examples: int | None = None,
    kinds: Sequence[str] | None = None,
    exclude_kinds: Sequence[str] = (),
    on_reference_hazard: HazardPolicy = "require",
    scenarios: Sequence[Scenario] | None = None,
    plans_strategy: st.SearchStrategy[Plan] | None = None,
    quirks_strategy: st.SearchStrategy[list[Quirk]] | None = None,
    ignore_ids: bool = False,
    derandomize: bool | None = None,
    on_counterexample: OnCounterexample | None = None,
    value_kinds: Sequence[str] | None = None,
    exclude_value_kinds: Sequence[str] = (),
) -> None:
    """Check ``fn`` against langchain-core: every library scenario first, then fuzzing.

    ``fn`` receives deltas (a list of ``ToolCallChunk`` dict lists, one per
    streamed message; a fresh copy each time) and returns the valid tool calls
    as ``{name, args, id}`` dicts (an ``AIMessage`` is accepted too).

    1. Every scenario of the library, as it is and packed 2, 3 and all chunks a
       message, runs as an explicit example: the same streams on every run.
    2. So does each extreme example: floats in every range, integers past 2**53
       and 64 bits, every escape, strings of 110,000 characters, deep nesting,
       20 parallel calls, 150 fragments of one call, idle messages.
    3. Hypothesis fuzzes, with one database key per merger, and shrinks; each
       stream draws from a few value kinds and quirk kinds (swarm testing) and
       the search is steered toward long arguments, many calls and fragments.

    A disagreement on a stream whose reference merge has no hazard is reported
    first; one where langchain-core itself loses or invents data (a hazard) is
    reported, labelled with those hazards, only when there is no other.

    Args:
        fn: The merge function under test.
        max_examples: How many streams to draw (``None``: the settings profile's).
        kinds: Quirk kinds streams may hold, in the library examples and the
            drawn streams (``None``: all; see :func:`strategies.quirk_sets`).
        exclude_kinds: Quirk kinds streams never hold (``["pack_fragments"]``:
            never two chunks in one message).
        on_reference_hazard: On streams where the reference merge has a hazard:
            ``"require"`` agreement with langchain-core, ``"ignore"`` them, or
            accept langchain-core's calls or the ``"plan"``'s.
        scenarios: The explicit examples (``None``: every scenario registered in
            the ``tooltape.scenario_libraries`` entry points, tooltape's
            bundled library included; ``[]``: none). Given scenarios or a
            ``plans_strategy``, the extreme examples are left out too.
        plans_strategy: Plans to draw (default: :func:`strategies.plans`).
        quirks_strategy: Quirk sets to draw; overrides ``kinds`` for drawn streams.
        ignore_ids: Compare names and args only.
        derandomize: Force Hypothesis's derandomized mode (``None``: the profile's).
        on_counterexample: Called with the :class:`Counterexample` before the
            failure is raised; what it returns is named in the message.
            ``tooltape.cassettes.save_counterexample(path)`` writes it as a cassette.
        value_kinds: Argument value kinds the extreme examples and drawn plans
            hold (``None``: all; ``strategies.value_kinds()`` lists them).
        exclude_value_kinds: Argument value kinds never used
            (``["long_strings"]``: no string of 10,000+ characters).

    Raises:
        MergeMismatch: With the counterexample drawn as index lanes, the
            reference's hazards, a diff and a runnable reproduction.
        TooltapeUsageError: An unknown quirk kind or hazard policy.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    judge = _Judge(fn, ignore_ids, _check_policy(on_reference_hazard))
    allowed = _allowed_kinds(kinds, exclude_kinds)
    values = _allowed_value_kinds(value_kinds, exclude_value_kinds)
    on_hazard: Counterexample | None = None
    explicit = library_examples(scenarios, allowed)
    if scenarios is None and plans_strategy is None:  # narrowed inputs: only the user's
        explicit += extreme_examples(allowed, values)
    for example in explicit:
        found = judge(example.stream, example.deltas, example.reference, example.label)
        if found is not None and found.unambiguous:
            raise _mismatch(found, on_counterexample)
        on_hazard = on_hazard or found
    streams = _streams(plans_strategy, quirks_strategy, kinds, exclude_kinds, values)
    # Once the library holds a hazard disagreement, fuzzing only looks for unambiguous ones.
    fuzz_judge = _Judge(fn, ignore_ids, "ignore") if on_hazard is not None else judge
    found = _fuzz(fuzz_judge, streams, _key("check_merger", fn, judge), max_examples, derandomize)
    if found is not None and not found.unambiguous and on_hazard is None:
        # A hazard disagreement ends Hypothesis's search: search on for an unambiguous one.
        on_hazard, fuzz_judge = found, _Judge(fn, ignore_ids, "ignore")
        key = _key("check_merger", fn, fuzz_judge)
        found = _fuzz(fuzz_judge, streams, key, max_examples, derandomize)
    if found is not None and found.unambiguous:
        raise _mismatch(found, on_counterexample)
    if on_hazard is not None:
        raise _mismatch(on_hazard, on_counterexample)


def check_rechunking(
    fn: MergerFn,
    *,
    max_examples: int | None = None,
    plans_strategy: st.SearchStrategy[Plan] | None = None,
    derandomize: bool | None = None,
    on_counterexample: OnCounterexample | None = None,
) -> None:
    """Fuzz the property "re-chunking never changes the merge" on ``fn``.

    Every stream drawn uses only lossless quirks (how arguments are cut, where
    ids and names travel, interleaving, index offsets), so langchain-core merges
    each back to the plan and ``fn`` must too.

    Raises:
        MergeMismatch: With the shrunk stream drawn as lanes and the diff.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    streams = _streams(plans_strategy, quirk_sets(lossless_only=True), None, ())
    judge = _Judge(fn, False, "require")
    found = _fuzz(judge, streams, _key("check_rechunking", fn, judge), max_examples, derandomize)
    if found is not None:
        raise _mismatch(found, on_counterexample)


def _fuzz(
    judge: _Judge,
    streams: st.SearchStrategy[PlannedStream],
    key: str,
    max_examples: int | None,
    derandomize: bool | None,
) -> Counterexample | None:
    overrides: dict[str, Any] = {
        "deadline": None,
        # Both kinds of disagreement are shrunk, each among its own kind.
        "report_multiple_bugs": True,
        # The explain phase re-runs the failure under a line tracer for seconds; our
        # own message already says what the stream was and where it went wrong.
        "phases": [p for p in settings().phases if p is not Phase.explain],
    }
    if max_examples is not None:
        overrides["max_examples"] = max_examples
    if derandomize is not None:
        overrides["derandomize"] = derandomize
        if derandomize:
            overrides["database"] = None
    test = settings(**overrides)(given(stream=streams)(_agrees(judge, key)))
    try:
        test()
    except (_Unambiguous, _OnHazard) as error:
        return error.found
    except BaseExceptionGroup as group:  # Hypothesis found both kinds
        return _pick(group)
    return None


def _pick(group: BaseExceptionGroup[BaseException]) -> Counterexample:
    unambiguous = group.subgroup(_Unambiguous)
    chosen = unambiguous if unambiguous is not None else group.subgroup(_OnHazard)
    if chosen is None:
        raise group
    first: BaseException = chosen
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    assert isinstance(first, _Unambiguous | _OnHazard)
    return first.found


def _mismatch(found: Counterexample, on_counterexample: OnCounterexample | None) -> MergeMismatch:
    text = describe_counterexample(found)
    if on_counterexample is not None:
        saved = on_counterexample(found)
        if saved is not None:
            text += f"\non_counterexample: {saved}"
    return MergeMismatch(text)
