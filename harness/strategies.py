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
from tooltape.harness._quirks import _REGISTRY, Quirk, SplitArgs, Stage, parse_quirk
from tooltape.harness._stream_shapes import SPELLINGS
from tooltape.harness.name_checks import check_names

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
    "value_kinds",
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
_PLAIN = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)

# Values real tool arguments carry, by kind (docs/fuzzing.md). Each is built once; sizes
# are drawn as integers, so Hypothesis shrinks a 100,000-character string by its length.
_FLOAT_EXTREMES = (
    -0.0,
    1e-07,
    3.141592653589793,
    0.1 + 0.2,
    1.5e300,
    -2.5e-300,
    5e-324,
    1.7976931348623157e308,
    2.0,
    1e16,
    123456789.12345679,
)
_ESCAPES = '"\\/\b\f\n\r\t\x00\x1f\x7f\u2028\u2029\ufeffé😀'
_ASTRAL = st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, categories=["L", "S"])


def _long_string(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _nested(leaf: JsonValue, depth: int, arrays: bool) -> JsonValue:
    value = leaf
    for level in range(depth):
        value = [value] if arrays and level % 2 else {"level": value}
    return value


_VALUE_KINDS: dict[str, st.SearchStrategy[JsonValue]] = {
    "plain": _PLAIN,
    "floats": st.sampled_from(_FLOAT_EXTREMES) | st.floats(allow_nan=False, allow_infinity=False),
    "big_integers": st.sampled_from([2**53 + 1, -(2**53) - 1, 2**63, 2**64 + 1, -(2**64) - 3])
    | st.integers(2**53, 2**90)
    | st.integers(-(2**90), -(2**53)),
    "booleans": st.booleans(),
    "nulls": st.none(),
    "empty_strings": st.just(""),
    "astral_strings": st.text(_ASTRAL, min_size=1, max_size=6),
    "escapes": st.text(st.sampled_from(_ESCAPES), min_size=1, max_size=12),
    # 10,000 to 12,000 characters: each example stays in milliseconds. ASCII only, since
    # split_inside_escapes cuts inside every \\u escape (one fragment each); the extreme
    # examples hold long non-ASCII text and a 110,000-character string.
    "long_strings": st.builds(
        _long_string,
        st.text(st.sampled_from('abc xyz_{}();\n"\\'), min_size=1, max_size=6),
        st.integers(10_000, 12_000),
    ),
    "deep_nesting": st.builds(_nested, _SCALARS, st.integers(8, 48), st.booleans()),
    "many_keys": st.builds(
        lambda n, v: {f"key_{k}": v for k in range(n)}, st.integers(20, 80), _SCALARS
    ),
}
"""Every value kind, simplest first: a stream draws values from a subset of them."""
_HEAVY = frozenset({"long_strings", "many_keys", "deep_nesting"})
"""Kinds drawn at most once a stream: they set its size, not its variety."""


def value_kinds() -> list[str]:
    """Every kind of argument value the strategies draw: the names ``value_kinds=`` accepts."""
    return list(_VALUE_KINDS)


def _allowed_value_kinds(
    value_kinds: Sequence[str] | None, exclude_value_kinds: Sequence[str]
) -> tuple[str, ...]:
    """The value kinds left, in the table's order; ``plain`` when nothing else is."""
    check_names("value kind", value_kinds or (), _VALUE_KINDS, prefix="value_kinds=: ")
    check_names("value kind", exclude_value_kinds, _VALUE_KINDS, prefix="exclude_value_kinds=: ")
    chosen = set(_VALUE_KINDS if value_kinds is None else value_kinds) - set(exclude_value_kinds)
    return tuple(kind for kind in _VALUE_KINDS if kind in chosen) or ("plain",)


def tool_names() -> st.SearchStrategy[str]:
    """Realistic tool names, shrinking toward ``get_weather``."""
    return _TOOL_NAMES


@functools.cache
def _kind_of(kinds: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(kinds)


def _draw_object(
    draw: st.DrawFn, kinds: tuple[str, ...], heavy_left: set[str]
) -> dict[str, JsonValue]:
    """One argument object; a heavy kind is drawn once, then removed from ``heavy_left``."""
    obj: dict[str, JsonValue] = {}
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(_kind_of(kinds))
        if kind in _HEAVY:
            if kind not in heavy_left:
                continue
            heavy_left.discard(kind)
        obj[draw(_KEYS)] = draw(_VALUE_KINDS[kind])
    return obj


@st.composite
def _objects(draw: st.DrawFn, kinds: tuple[str, ...]) -> dict[str, JsonValue]:
    return _draw_object(draw, kinds, set(_HEAVY))


@functools.cache
def argument_objects(
    *,
    max_leaves: int = 6,
    value_kinds: tuple[str, ...] | None = None,
    exclude_value_kinds: tuple[str, ...] = (),
) -> st.SearchStrategy[dict[str, JsonValue]]:
    """JSON objects as tool arguments, of the value kinds asked for (default: every kind).

    With ``value_kinds=("plain",)`` (or ``max_leaves`` given alone) the values
    are short strings with escapes and non-ASCII, small numbers, booleans,
    ``null`` and small nesting; :func:`value_kinds` lists the others (floats in
    every range, integers past 2**53 and 64 bits, long strings, deep nesting...).
    """
    kinds = _allowed_value_kinds(value_kinds, exclude_value_kinds)
    if kinds == ("plain",) and max_leaves != 6:
        values = st.recursive(
            _SCALARS,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
            max_leaves=max_leaves,
        )
        return st.dictionaries(_KEYS, values, max_size=3)
    return _objects(kinds)


@st.composite
def _swarm(draw: st.DrawFn, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """Swarm testing: each stream draws its values from a subset of the kinds allowed."""
    if len(kinds) == 1:
        return kinds
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4, unique=True))
    return tuple(kind for kind in kinds if kind in chosen)


@st.composite
def _calls(
    draw: st.DrawFn, min_calls: int, max_calls: int, kinds: tuple[str, ...]
) -> tuple[PlannedCall, ...]:
    # Mostly a few calls; one stream in eight may hold up to max_calls (16+ parallel calls).
    few = min(max_calls, max(min_calls, 3))
    many = draw(st.integers(0, 7)) == 0
    count = draw(st.integers(min_calls, max_calls if many else few))
    chosen = draw(_swarm(kinds))
    heavy_left = set(_HEAVY)
    return tuple(
        PlannedCall(
            name=draw(_TOOL_NAMES), args=_draw_object(draw, chosen, heavy_left), id=f"call_{n}"
        )
        for n in range(count)
    )


def planned_calls() -> st.SearchStrategy[PlannedCall]:
    """One planned call with a realistic name and arguments."""
    return st.builds(PlannedCall, name=_TOOL_NAMES, args=argument_objects(), id=st.just("call_0"))


def plans(
    *,
    min_calls: int = 1,
    max_calls: int = 20,
    text: bool = False,
    value_kinds: Sequence[str] | None = None,
    exclude_value_kinds: Sequence[str] = (),
) -> st.SearchStrategy[Plan]:
    """Plans of ``min_calls`` to ``max_calls`` calls, shrinking toward fewer calls.

    Most plans hold up to three calls; one in eight may hold up to ``max_calls``.
    Each plan draws its argument values from a few of the allowed value kinds
    (swarm testing: a bug one kind hides is found where another is absent).

    Args:
        min_calls: Fewest calls.
        max_calls: Most calls.
        text: The plans may also carry text before and after the calls.
        value_kinds: Draw only these value kinds (``None``: all; see :func:`value_kinds`).
        exclude_value_kinds: Never draw these value kinds.

    Raises:
        TooltapeUsageError: Bad call counts, or a value kind that does not exist.
    """
    if not 0 <= min_calls <= max_calls:
        raise TooltapeUsageError(
            f"plans() needs 0 <= min_calls <= max_calls, got min_calls={min_calls}, "
            f"max_calls={max_calls}"
        )
    kinds = _allowed_value_kinds(value_kinds, exclude_value_kinds)
    return _plans(min_calls, max_calls, text, kinds)


@functools.cache
def _plans(
    min_calls: int, max_calls: int, text: bool, kinds: tuple[str, ...]
) -> st.SearchStrategy[Plan]:
    before = _TEXT if text else st.just("")
    return st.builds(
        lambda calls, b, a: Plan(calls=calls, text_before=b, text_after=a),
        _calls(min_calls, max_calls, kinds),
        before,
        before,
    )


def _just(kind: str) -> st.SearchStrategy[Quirk]:
    return st.just(parse_quirk(kind))


def _builds(kind: str, **params: st.SearchStrategy[Any]) -> st.SearchStrategy[Quirk]:
    return st.builds(_REGISTRY[kind], **params)


# The kinds quirk_sets draws in a place of their own, by axis. The splitter comes first in
# every set and shrinks toward SplitArgs(pieces=1), the arguments in one piece.
_SPLITTERS: dict[str, st.SearchStrategy[Quirk]] = {
    # Mostly up to 12 pieces a call; sometimes 100+ fragments for one call.
    "split_args": st.builds(SplitArgs, pieces=st.integers(1, 12) | st.integers(100, 160)),
    "whole_call": _just("whole_call"),
    "whole_args": _just("whole_args"),
    "split_inside_escapes": _just("split_inside_escapes"),
}
# Where ids travel differs between providers more than anything else, so it is an
# axis of its own, shrinking toward the OpenAI shape (id on the first chunk).
_ID_PLACEMENTS: dict[str, st.SearchStrategy[Quirk]] = {
    "id_on_every_chunk": _just("id_on_every_chunk"),
    "late_id": _just("late_id"),
    "missing_id": _just("missing_id"),
}
# Index handling is the other axis providers differ on most; shrinks toward 0, 1, 2...
_INDEX_BEHAVIOURS: dict[str, st.SearchStrategy[Quirk]] = {
    "no_index": _just("no_index"),
    "shared_index": _just("shared_index"),
    "index_offset": st.sampled_from(
        [parse_quirk({"kind": "index_offset", "by": n}) for n in (1, 2)]
    ),
}
# Grouping chunks into messages is an axis too, drawn as often as not: langchain-core's
# first-message rule only shows when the first message holds several chunks.
_PACKINGS: dict[str, st.SearchStrategy[Quirk]] = {
    "pack_fragments": _builds("pack_fragments", size=st.integers(2, 4)),
}
_AXES = (_ID_PLACEMENTS, _INDEX_BEHAVIOURS, _PACKINGS)
_TARGETS = st.sampled_from([0, -1])
_PARAMETERS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "non_object_args": {"call": _TARGETS},
    "malformed_args": {
        "call": _TARGETS,
        "variant": st.sampled_from(["undefined", "extra_brace", "whitespace", "concatenated"]),
    },
    "truncate_args": {"at": st.sampled_from(["string", "literal"])},
    "split_name": {"parts": st.integers(2, 3)},
    "idle_messages": {"count": st.integers(1, 6)},
    "respell_args": {"style": st.sampled_from(SPELLINGS)},
}
"""How the other kinds draw their parameters; a kind not listed is drawn with its defaults."""
_OTHERS: dict[str, st.SearchStrategy[Quirk]] = {
    kind: _builds(kind, **_PARAMETERS[kind]) if kind in _PARAMETERS else _just(kind)
    for kind, cls in _REGISTRY.items()
    if cls.stage < Stage.EVENTS
    and cls.__module__.startswith("tooltape.harness.")
    and not any(kind in table for table in (_SPLITTERS, *_AXES))
}
"""Every other tool-chunk quirk of the harness, in the order the registry defines them."""


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
    ``.deltas()`` gives what a merger consumes. A stream of more than 400
    fragments, or whose chunks would repeat more than 60,000 argument characters
    (a long argument with ``cumulative_args``, or in 160 pieces), is made without
    ``cumulative_args``, then with its text cut into fewer pieces.
    """
    plan = draw(plans if plans is not None else _default_plans())
    chosen = draw(quirks if quirks is not None else _default_quirk_sets())
    if not plan.calls:
        chosen = [q for q in chosen if "call" not in type(q).model_fields]
    seed = draw(st.integers(0, 2**16))
    return _within_budget(plan, [parse_quirk(q) for q in chosen], seed)


_TEXT_BUDGET = 60_000
"""Most argument characters a stream may carry counted as ``full = full + chunk`` reads
them: each chunk's call text so far. langchain-core reads a text that is not (yet) JSON
one character at a time in Python (``parse_partial_json``, about a microsecond each) at
every ``+`` and at the end."""
_FRAGMENT_BUDGET = 400
"""Most fragments a stream may carry: adding chunks pairwise costs the square of their
number where no index joins them (thousands of fragments take a minute)."""


def _within_budget(plan: Plan, quirks: list[Quirk], seed: int) -> PlannedStream:
    """The stream; over budget, one without ``cumulative_args``, then cut in fewer pieces.

    The budgets keep an example in tens of milliseconds, for the reference and for a
    merger that adds chunks pairwise. Never a rejection: a long argument with
    ``cumulative_args``, or token by token, is still drawn, in fewer pieces.
    """
    stream = stream_plan(plan, quirks, seed=seed)
    if _affordable(stream):
        return stream
    quirks = [q for q in quirks if q.kind != "cumulative_args"]
    stream = stream_plan(plan, quirks, seed=seed)
    pieces = max(len(stream.fragments) // max(len(plan.calls), 1), 2)
    splits = bool(quirks) and quirks[0].stage is Stage.SPLIT
    while splits and pieces > 1 and not _affordable(stream):
        pieces //= 2
        quirks[0] = SplitArgs(pieces=pieces)
        stream = stream_plan(plan, quirks, seed=seed)
    return stream


def _affordable(stream: PlannedStream) -> bool:
    return len(stream.fragments) <= _FRAGMENT_BUDGET and _repeated_text(stream) <= _TEXT_BUDGET


def _repeated_text(stream: PlannedStream) -> int:
    """The sum, over ``stream``'s fragments, of their call's argument text so far."""
    so_far: dict[int, int] = {}
    total = 0
    for fragment in stream.fragments:
        so_far[fragment.call] = so_far.get(fragment.call, 0) + len(fragment.args or "")
        total += so_far[fragment.call]
    return total


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
