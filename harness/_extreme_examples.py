"""Extreme streams check_merger runs beside the library scenarios, the same on every run.

Each holds what real tool calls carry at its edge: floats in every range and
spelling, integers past 2**53 and 64 bits, booleans, ``null`` and empty strings,
every JSON escape split anywhere, astral characters, strings of 12,000 and
110,000 characters, deep nesting, many keys, 20 parallel calls, 150 fragments
for one call, and idle messages between fragments. A merger that breaks on one
of them fails on every run, not only when fuzzing happens to draw it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from tooltape.harness._engine import stream_plan
from tooltape.harness._merger_examples import Example
from tooltape.harness._models import Plan, PlannedCall
from tooltape.harness._reference import reference_merge

__all__ = ["extreme_examples"]

_FLOATS: dict[str, JsonValue] = {
    "lat": 48.85661400000001,
    "step": 1e-07,
    "pi": 3.141592653589793,
    "zero": -0.0,
    "huge": 1.5e300,
    "tiny": 5e-324,
    "max": 1.7976931348623157e308,
    "whole": 2.0,
    "price": 19.99,
}
_INTEGERS: dict[str, JsonValue] = {
    "count": 3,
    "past_2_53": 2**53 + 1,
    "u64_max": 2**64 - 1,
    "past_64_bits": 2**70 + 3,
    "negative": -(2**63) - 1,
}
_SCALARS: dict[str, JsonValue] = {
    "flag": True,
    "off": False,
    "none": None,
    "empty": "",
    "zero": 0,
    "one": 1,
}
_ESCAPED = 'quote " backslash \\ slash / \b\f\n\r\t \x00\x1f\x7f \u2028\u2029\ufeff é 😀𝄞'


def _nest(depth: int) -> JsonValue:
    value: JsonValue = {"leaf": 1}
    for level in range(depth):
        value = [value] if level % 2 else {"level": value}
    return value


def _long(length: int) -> str:
    unit = 'def f(x):\n    return "é" * x  # {}\n'
    return (unit * (length // len(unit) + 1))[:length]


_PIECES_9 = {"kind": "split_args", "pieces": 9}


@dataclass(frozen=True)
class _Extreme:
    name: str
    value_kinds: frozenset[str]
    calls: tuple[dict[str, JsonValue], ...]
    quirks: tuple[Any, ...] = ()


def _table() -> list[_Extreme]:
    many: tuple[dict[str, JsonValue], ...] = tuple({"n": n} for n in range(20))
    return [
        _Extreme("floats", frozenset({"floats"}), (_FLOATS,), (_PIECES_9,)),
        _Extreme(
            "floats spelled with exponents",
            frozenset({"floats"}),
            (_FLOATS,),
            ({"kind": "respell_args", "style": "exponents"},),
        ),
        _Extreme("big integers", frozenset({"big_integers"}), (_INTEGERS,)),
        _Extreme(
            "booleans, null, empty", frozenset({"booleans", "nulls", "empty_strings"}), (_SCALARS,)
        ),
        _Extreme(
            "every escape, split inside escapes",
            frozenset({"escapes", "astral_strings"}),
            ({"text": _ESCAPED, 'key "quoted" \n': "😀"},),
            ("ascii_escapes", "split_inside_escapes"),
        ),
        _Extreme(
            "a 12,000-character string",
            frozenset({"long_strings"}),
            ({"path": "main.py", "content": _long(12_000)},),
            ({"kind": "split_args", "pieces": 40},),
        ),
        _Extreme(
            "a 110,000-character string",
            frozenset({"long_strings"}),
            ({"content": _long(110_000)},),
            # Two pieces: a merger that adds chunks pairwise re-reads the text at each one.
            ({"kind": "split_args", "pieces": 2},),
        ),
        _Extreme("48 levels of nesting", frozenset({"deep_nesting"}), ({"tree": _nest(48)},)),
        _Extreme(
            "80 keys",
            frozenset({"many_keys"}),
            ({f"key_{n}": n for n in range(80)},),
            (_PIECES_9,),
        ),
        _Extreme("20 parallel calls", frozenset({"plain"}), many),
        _Extreme(
            "20 parallel calls, interleaved",
            frozenset({"plain"}),
            many,
            ("interleave_calls",),
        ),
        _Extreme(
            "150 fragments for one call",
            frozenset({"plain"}),
            ({"query": "weather in Paris, Lyon and Nice tomorrow, hour by hour " * 6, "n": 12},),
            ({"kind": "split_args", "pieces": 150},),
        ),
        _Extreme(
            "idle messages between fragments",
            frozenset({"plain"}),
            ({"city": "Paris"}, {"city": "Lyon"}),
            ("interleave_calls", {"kind": "idle_messages", "count": 8}),
        ),
        _Extreme(
            "a key twice",
            frozenset({"plain"}),
            ({"city": "Paris", "unit": "celsius"},),
            ({"kind": "respell_args", "style": "duplicate_key"},),
        ),
        _Extreme(
            "compact JSON across lines",
            frozenset({"plain"}),
            ({"a": [1, 2], "b": {"c": "d"}},),
            ({"kind": "respell_args", "style": "newlines"},),
        ),
    ]


@functools.cache
def _examples() -> tuple[tuple[Example, frozenset[str], frozenset[str]], ...]:
    built = []
    for extreme in _table():
        calls = tuple(
            PlannedCall(name="get_weather" if n == 0 else f"tool_{n}", args=args)
            for n, args in enumerate(extreme.calls)
        )
        stream = stream_plan(Plan(calls=calls), extreme.quirks)
        deltas = stream.deltas()
        example = Example(
            f"extreme example: {extreme.name}", stream, deltas, reference_merge(deltas)
        )
        kinds = frozenset(q.kind for q in stream.quirks)
        built.append((example, extreme.value_kinds, kinds))
    return tuple(built)


def extreme_examples(
    allowed_kinds: frozenset[str], allowed_value_kinds: Sequence[str]
) -> tuple[Example, ...]:
    """The extreme examples whose quirk kinds and value kinds are all allowed."""
    values = set(allowed_value_kinds)
    return tuple(
        example
        for example, value_kinds, kinds in _examples()
        if value_kinds <= values and kinds <= allowed_kinds
    )
