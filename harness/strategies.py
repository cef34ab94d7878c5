"""Hypothesis strategies for plans, quirks and quirky tool-call streams.

House style follows Hypothesis: public functions returning strategies,
plural-noun names, keyword-only options. Every strategy shrinks toward the
simplest stream that still fails: fewer calls, smaller arguments, fewer quirks
and fewer, larger argument pieces (``SplitArgs(pieces=1)`` sends the arguments
whole).

Example::

    from hypothesis import given
    from tooltape.harness import reference_merge
    from tooltape.harness.strategies import planned_streams

    @given(planned_streams())
    def test_my_merger(stream):
        assert my_merge(stream.deltas()) == reference_merge(stream).calls()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st
from pydantic import JsonValue

from tooltape.harness._engine import stream_plan
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._models import Deltas, Plan, PlannedCall
from tooltape.harness._quirks import (
    AsciiEscapes,
    ChangingId,
    CumulativeArgs,
    DuplicateIds,
    EmptyArgs,
    EmptyStringContinuations,
    IdOnEveryChunk,
    IndexOffset,
    InterleaveCalls,
    LateId,
    LateName,
    MalformedArgs,
    MissingId,
    NoIndex,
    NonObjectArgs,
    PackFragments,
    Quirk,
    RepeatName,
    SharedIndex,
    SplitArgs,
    SplitInsideEscapes,
    SplitName,
    TruncateArgs,
    WholeArgs,
    WholeCall,
)

__all__ = [
    "argument_objects",
    "deltas",
    "histories",
    "planned_calls",
    "planned_streams",
    "plans",
    "quirk_sets",
    "quirks",
    "tool_names",
]

_NAMES = ("get_weather", "add", "multiply", "search", "read_file", "send_email", "lookup")
_TEXT = st.text(
    alphabet=st.sampled_from('abcXYZ 019_-"\\/\n\té北😀'),
    max_size=12,
)


def tool_names() -> st.SearchStrategy[str]:
    """Realistic tool names, shrinking toward ``get_weather``."""
    generated = st.from_regex(r"[a-z][a-z0-9_]{2,15}", fullmatch=True)
    return st.sampled_from(_NAMES) | generated


def argument_objects(*, max_leaves: int = 6) -> st.SearchStrategy[dict[str, JsonValue]]:
    """JSON objects as tool arguments: strings with escapes and non-ASCII, numbers, nesting."""
    scalars = st.none() | st.booleans() | st.integers(-1000, 10**6) | _TEXT
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
        max_leaves=max_leaves,
    )
    return st.dictionaries(
        st.sampled_from(["city", "a", "b", "query", "path", "n"]), values, max_size=3
    )


@st.composite
def _calls(draw: st.DrawFn, min_calls: int, max_calls: int) -> tuple[PlannedCall, ...]:
    count = draw(st.integers(min_calls, max_calls))
    return tuple(
        PlannedCall(name=draw(tool_names()), args=draw(argument_objects()), id=f"call_{n}")
        for n in range(count)
    )


def planned_calls() -> st.SearchStrategy[PlannedCall]:
    """One planned call with a realistic name and arguments."""
    return st.builds(PlannedCall, name=tool_names(), args=argument_objects(), id=st.just("call_0"))


def plans(*, min_calls: int = 1, max_calls: int = 3, text: bool = False) -> st.SearchStrategy[Plan]:
    """Plans of ``min_calls`` to ``max_calls`` calls, shrinking toward fewer calls.

    With ``text=True`` the plans may also carry text before and after the calls.
    """
    if not 0 <= min_calls <= max_calls:
        raise TooltapeUsageError(
            f"plans() needs 0 <= min_calls <= max_calls, got min_calls={min_calls}, "
            f"max_calls={max_calls}"
        )
    before = _TEXT if text else st.just("")
    return st.builds(
        lambda calls, b, a: Plan(calls=calls, text_before=b, text_after=a),
        _calls(min_calls, max_calls),
        before,
        before,
    )


def _splitters() -> st.SearchStrategy[Quirk]:
    return st.builds(SplitArgs, pieces=st.integers(1, 12)) | st.sampled_from(
        [WholeCall(), WholeArgs(), SplitInsideEscapes()]
    )


def _packings() -> st.SearchStrategy[Quirk | None]:
    # Grouping chunks into messages is an axis of its own, drawn as often as not:
    # langchain-core's first-message rule only shows when the first message holds
    # several chunks.
    return st.none() | st.builds(PackFragments, size=st.integers(2, 4))


def _id_placements() -> st.SearchStrategy[Quirk | None]:
    # Where ids travel differs between providers more than anything else, so it is
    # an axis of its own too, shrinking toward the OpenAI shape (id on the first chunk).
    return st.none() | st.sampled_from([IdOnEveryChunk(), LateId(), MissingId()])


def _index_behaviours() -> st.SearchStrategy[Quirk | None]:
    # Index handling is the other axis providers differ on most: none, offset, or
    # one index shared by every call. Shrinks toward plain 0, 1, 2...
    return st.none() | st.sampled_from(
        [NoIndex(), SharedIndex(), IndexOffset(by=1), IndexOffset(by=2)]
    )


def _quirk_options() -> list[tuple[type[Quirk], st.SearchStrategy[Quirk]]]:
    variants = st.sampled_from(["undefined", "extra_brace", "whitespace", "concatenated"])
    targets = st.sampled_from([0, -1])
    return [
        (AsciiEscapes, st.just(AsciiEscapes())),
        (EmptyArgs, st.just(EmptyArgs())),
        (NonObjectArgs, st.builds(NonObjectArgs, call=targets)),
        (MalformedArgs, st.builds(MalformedArgs, call=targets, variant=variants)),
        (TruncateArgs, st.builds(TruncateArgs, at=st.sampled_from(["string", "literal"]))),
        (CumulativeArgs, st.just(CumulativeArgs())),
        (SplitName, st.builds(SplitName, parts=st.integers(2, 3))),
        (RepeatName, st.just(RepeatName())),
        (LateName, st.just(LateName())),
        (ChangingId, st.just(ChangingId())),
        (DuplicateIds, st.just(DuplicateIds())),
        (InterleaveCalls, st.just(InterleaveCalls())),
        (EmptyStringContinuations, st.just(EmptyStringContinuations())),
    ]


def _compatible(quirks: Sequence[Quirk]) -> bool:
    kinds = {q.kind for q in quirks}
    return not {"truncate_args", "cumulative_args"} <= kinds


def quirk_sets(
    *,
    max_size: int = 4,
    lossless_only: bool = False,
    kinds: Sequence[str] | None = None,
) -> st.SearchStrategy[list[Quirk]]:
    """Lists of quirks that can be applied together, shrinking toward fewer quirks.

    Every list holds one splitter (how arguments are cut) first; it shrinks
    toward ``SplitArgs(pieces=1)``, the arguments in one piece. Packing chunks
    into shared messages (:class:`PackFragments`), where ids travel and how
    indexes are set are drawn as separate axes, each shrinking toward the
    OpenAI shape: one chunk per message, the id on the first chunk, index 0, 1, 2.

    Args:
        max_size: Most quirks besides the splitter.
        lossless_only: Only quirks after which a correct merger recovers the plan.
        kinds: Restrict the non-splitter quirks to these kinds.
    """
    options = _quirk_options()
    if kinds is not None:
        known = {cls.model_fields["kind"].default for cls, _ in options}
        unknown = sorted(set(kinds) - known)
        if unknown:
            raise TooltapeUsageError(
                f"quirk_sets(kinds=...) got unknown kinds {unknown}; choose from {sorted(known)}"
            )
        options = [(c, s) for c, s in options if c.model_fields["kind"].default in kinds]
    if lossless_only:
        options = [(c, s) for c, s in options if c.lossless]
    strategies = [strategy for _, strategy in options]

    @st.composite
    def sets(draw: st.DrawFn) -> list[Quirk]:
        # Draw positions first so every quirk kind is about as likely as any other
        # (one_of would favour the first options); shrinking removes positions.
        positions = draw(
            st.lists(st.sampled_from(range(len(strategies))), max_size=max_size, unique=True)
            if strategies
            else st.just([])
        )
        chosen = [draw(_splitters()), *(draw(strategies[n]) for n in sorted(positions))]
        for axis in (_id_placements(), _index_behaviours()):
            value = draw(axis)
            if value is not None and (value.lossless or not lossless_only):
                chosen.append(value)
        packing = draw(_packings()) if not lossless_only else None
        return chosen if packing is None else [*chosen, packing]

    return sets().filter(_compatible)


_default_plans = plans
_default_quirk_sets = quirk_sets


@st.composite
def planned_streams(
    draw: st.DrawFn,
    plans: st.SearchStrategy[Plan] | None = None,
    quirks: st.SearchStrategy[list[Quirk]] | None = None,
) -> PlannedStream:
    """Quirky streams: a plan, a quirk set and a seed, run through :func:`stream_plan`.

    Keep the result to see the plan and quirks behind a failing stream;
    ``.deltas()`` gives what a merger consumes.
    """
    plan = draw(plans if plans is not None else _default_plans())
    chosen = draw(quirks if quirks is not None else _default_quirk_sets())
    if not plan.calls:
        chosen = [q for q in chosen if "call" not in type(q).model_fields]
    seed = draw(st.integers(0, 2**16))
    return stream_plan(plan, chosen, seed=seed)


def deltas(
    plans: st.SearchStrategy[Plan] | None = None,
    quirks: st.SearchStrategy[list[Quirk]] | None = None,
) -> st.SearchStrategy[Deltas]:
    """Quirky streams as ``ToolCallChunk`` lists, one per message (what a merger consumes)."""
    return planned_streams(plans, quirks).map(lambda stream: stream.deltas())


quirks = quirk_sets
"""Alias of :func:`quirk_sets` under the name the plugin documentation uses."""


_SHAPES = ("langchain", "openai_chat", "openai_responses", "anthropic")
_FAULTS = ("drop_result", "orphan_result", "duplicate_result", "empty_id", "duplicate_call_id")


def histories(
    *,
    shapes: Sequence[str] = _SHAPES,
    faults: Sequence[str] = (),
    max_turns: int = 3,
) -> st.SearchStrategy[tuple[str, list[Any], list[str]]]:
    """Conversation histories in one of four shapes, with the pairing faults asked for.

    Draws ``(shape, history, faults_applied)``: turns of tool calls, each answered
    in the next messages; then each fault in ``faults`` is applied with
    probability one half. Shrinks toward one turn, one call and no fault.

    Args:
        shapes: Which of ``langchain``, ``openai_chat``, ``openai_responses``,
            ``anthropic`` to draw from.
        faults: Any of ``drop_result``, ``orphan_result``, ``duplicate_result``,
            ``empty_id``, ``duplicate_call_id``.
        max_turns: The most assistant turns with calls.
    """
    unknown = sorted(set(faults) - set(_FAULTS)) + sorted(set(shapes) - set(_SHAPES))
    if unknown or max_turns < 1:
        raise TooltapeUsageError(
            f"histories() got unknown shapes or faults {unknown} or max_turns={max_turns}; "
            f"shapes: {_SHAPES}, faults: {_FAULTS}"
        )
    return _histories(tuple(shapes), tuple(faults), max_turns)


@st.composite
def _histories(
    draw: st.DrawFn, shapes: tuple[str, ...], faults: tuple[str, ...], max_turns: int
) -> tuple[str, list[Any], list[str]]:
    from tooltape.harness._history_render import render_history

    shape = draw(st.sampled_from(shapes))
    turns: list[list[tuple[str, str]]] = []
    counter = 0
    for turn in range(draw(st.integers(1, max_turns))):
        size = draw(st.integers(3 if turn == 0 and faults else 1, 3))
        turns.append([(f"call_{counter + n}", draw(tool_names())) for n in range(size)])
        counter += size
    applied = [fault for fault in faults if draw(st.booleans())]
    return shape, render_history(shape, turns, applied), applied
