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

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from hypothesis import strategies as st
from pydantic import JsonValue

from tooltape.harness._engine import stream_plan
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._models import Deltas, Plan, PlannedCall
from tooltape.harness._names import check_names
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
    parse_quirk,
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
# Strategies are immutable and cheap to share; building them once matters because
# ``from_regex`` and ``recursive`` are costly to construct and were rebuilt per draw.
_TOOL_NAMES = st.sampled_from(_NAMES) | st.from_regex(r"[a-z][a-z0-9_]{2,15}", fullmatch=True)
_SCALARS = st.none() | st.booleans() | st.integers(-1000, 10**6) | _TEXT
_KEYS = st.sampled_from(["city", "a", "b", "query", "path", "n"])


def tool_names() -> st.SearchStrategy[str]:
    """Realistic tool names, shrinking toward ``get_weather``."""
    return _TOOL_NAMES


@functools.cache
def argument_objects(*, max_leaves: int = 6) -> st.SearchStrategy[dict[str, JsonValue]]:
    """JSON objects as tool arguments: strings with escapes and non-ASCII, numbers, nesting."""
    values = st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
        max_leaves=max_leaves,
    )
    return st.dictionaries(_KEYS, values, max_size=3)


@st.composite
def _calls(draw: st.DrawFn, min_calls: int, max_calls: int) -> tuple[PlannedCall, ...]:
    count = draw(st.integers(min_calls, max_calls))
    arguments = argument_objects()
    return tuple(
        PlannedCall(name=draw(_TOOL_NAMES), args=draw(arguments), id=f"call_{n}")
        for n in range(count)
    )


def planned_calls() -> st.SearchStrategy[PlannedCall]:
    """One planned call with a realistic name and arguments."""
    return st.builds(PlannedCall, name=_TOOL_NAMES, args=argument_objects(), id=st.just("call_0"))


@functools.cache
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


# Every kind quirk_sets can draw, by axis. The splitter comes first in every set
# and shrinks toward SplitArgs(pieces=1), the arguments in one piece.
_SPLITTERS: dict[str, st.SearchStrategy[Quirk]] = {
    "split_args": st.builds(SplitArgs, pieces=st.integers(1, 12)),
    "whole_call": st.just(WholeCall()),
    "whole_args": st.just(WholeArgs()),
    "split_inside_escapes": st.just(SplitInsideEscapes()),
}
# Where ids travel differs between providers more than anything else, so it is an
# axis of its own, shrinking toward the OpenAI shape (id on the first chunk).
_ID_PLACEMENTS: dict[str, st.SearchStrategy[Quirk]] = {
    "id_on_every_chunk": st.just(IdOnEveryChunk()),
    "late_id": st.just(LateId()),
    "missing_id": st.just(MissingId()),
}
# Index handling is the other axis providers differ on most; shrinks toward 0, 1, 2...
_INDEX_BEHAVIOURS: dict[str, st.SearchStrategy[Quirk]] = {
    "no_index": st.just(NoIndex()),
    "shared_index": st.just(SharedIndex()),
    "index_offset": st.sampled_from([IndexOffset(by=1), IndexOffset(by=2)]),
}
# Grouping chunks into messages is an axis too, drawn as often as not: langchain-core's
# first-message rule only shows when the first message holds several chunks.
_PACKINGS: dict[str, st.SearchStrategy[Quirk]] = {
    "pack_fragments": st.builds(PackFragments, size=st.integers(2, 4)),
}
_TARGETS = st.sampled_from([0, -1])
_OTHERS: dict[str, st.SearchStrategy[Quirk]] = {
    "ascii_escapes": st.just(AsciiEscapes()),
    "empty_args": st.just(EmptyArgs()),
    "non_object_args": st.builds(NonObjectArgs, call=_TARGETS),
    "malformed_args": st.builds(
        MalformedArgs,
        call=_TARGETS,
        variant=st.sampled_from(["undefined", "extra_brace", "whitespace", "concatenated"]),
    ),
    "truncate_args": st.builds(TruncateArgs, at=st.sampled_from(["string", "literal"])),
    "cumulative_args": st.just(CumulativeArgs()),
    "split_name": st.builds(SplitName, parts=st.integers(2, 3)),
    "repeat_name": st.just(RepeatName()),
    "late_name": st.just(LateName()),
    "changing_id": st.just(ChangingId()),
    "duplicate_ids": st.just(DuplicateIds()),
    "interleave_calls": st.just(InterleaveCalls()),
    "empty_string_continuations": st.just(EmptyStringContinuations()),
}
_AXES = (_ID_PLACEMENTS, _INDEX_BEHAVIOURS, _PACKINGS)


def _drawable_kinds() -> list[str]:
    """Every quirk kind :func:`quirk_sets` draws, sorted: the names ``kinds=`` accepts."""
    return sorted({kind for table in (_SPLITTERS, _OTHERS, *_AXES) for kind in table})


def _check_kinds(kinds: Iterable[str], where: str) -> None:
    """Raise for kinds :func:`quirk_sets` cannot draw, naming the closest known ones."""
    check_names("quirk kind", kinds, _drawable_kinds(), prefix=f"{where}: ")


def _allowed_kinds(kinds: Sequence[str] | None, exclude_kinds: Sequence[str]) -> frozenset[str]:
    """The kinds left by ``kinds`` (``None``: all) minus ``exclude_kinds``; ``split_args`` stays."""
    _check_kinds(kinds or (), "kinds=")
    _check_kinds(exclude_kinds, "exclude_kinds=")
    chosen = set(_drawable_kinds() if kinds is None else kinds) - set(exclude_kinds)
    return frozenset(chosen | {"split_args"})


def _pick(
    table: dict[str, st.SearchStrategy[Quirk]], allowed: frozenset[str], lossless: bool
) -> list[st.SearchStrategy[Quirk]]:
    return [
        strategy
        for kind, strategy in table.items()
        if kind in allowed and (not lossless or parse_quirk(kind).lossless)
    ]


def quirk_sets(
    *,
    max_size: int = 4,
    lossless_only: bool = False,
    kinds: Sequence[str] | None = None,
    exclude_kinds: Sequence[str] = (),
) -> st.SearchStrategy[list[Quirk]]:
    """Lists of quirks that can be applied together, shrinking toward fewer quirks.

    Every list holds one splitter (how arguments are cut) first; it shrinks
    toward ``SplitArgs(pieces=1)``, the arguments in one piece. Packing chunks
    into shared messages (:class:`PackFragments`), where ids travel and how
    indexes are set are drawn as separate axes, each shrinking toward the
    OpenAI shape: one chunk per message, the id on the first chunk, index 0, 1, 2.

    Args:
        max_size: Most quirks besides the splitter and the three axes.
        lossless_only: Only quirks after which a correct merger recovers the plan.
        kinds: Draw only these kinds (every axis included: leave out
            ``pack_fragments`` and no message holds two chunks). ``split_args``
            is always allowed: it is how every stream is cut.
        exclude_kinds: Never draw these kinds.

    Raises:
        TooltapeUsageError: A kind is not one :func:`quirk_sets` draws; the
            message names the closest ones.
    """
    allowed = _allowed_kinds(kinds, exclude_kinds)
    return _quirk_sets(max_size, lossless_only, allowed)


@functools.cache
def _quirk_sets(
    max_size: int, lossless_only: bool, allowed: frozenset[str]
) -> st.SearchStrategy[list[Quirk]]:
    splitters = st.one_of(_pick(_SPLITTERS, allowed, lossless_only))
    others = _pick(_OTHERS, allowed, lossless_only)
    axes = [
        st.none() | st.one_of(found) for t in _AXES if (found := _pick(t, allowed, lossless_only))
    ]
    # Draw positions first so every quirk kind is about as likely as any other
    # (one_of would favour the first options); shrinking removes positions.
    positions = (
        st.lists(st.sampled_from(range(len(others))), max_size=max_size, unique=True)
        if others
        else st.just([])
    )

    @st.composite
    def sets(draw: st.DrawFn) -> list[Quirk]:
        chosen = [draw(splitters), *(draw(others[n]) for n in sorted(draw(positions)))]
        chosen += [value for axis in axes if (value := draw(axis)) is not None]
        kinds = {q.kind for q in chosen}
        if {"truncate_args", "cumulative_args"} <= kinds:
            # The engine refuses the pair (no provider sends it); drop one rather than
            # filter, so no draw is ever rejected.
            chosen = [q for q in chosen if q.kind != "cumulative_args"]
        return chosen

    return sets()


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
    check_names("shape", shapes, _SHAPES, prefix="histories(): ")
    check_names("fault", faults, _FAULTS, prefix="histories(): ")
    if max_turns < 1:
        raise TooltapeUsageError(f"histories() got max_turns={max_turns}; it must be at least 1")
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
