"""Equality of tool calls as JSON sees them: ``1``, ``1.0`` and ``true`` are three values.

Python's ``==`` says ``1 == 1.0 == True`` and ``0.0 == -0.0``. A tool on the
other side of a call does not: ``range(3.0)`` raises and a strict schema rejects
``1`` for a boolean. Every verdict on merged calls goes through :func:`json_equal`,
and failure messages name the JSON types with :func:`typed_repr` where they differ.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = [
    "first_difference",
    "first_leaf_difference",
    "json_equal",
    "json_type",
    "type_differences",
    "typed_repr",
]


_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),  # before int: a bool is an int
    (int, "integer"),
    (float, "float"),
    (str, "string"),
    (Mapping, "object"),
    (Sequence, "array"),
)


def json_type(value: Any) -> str:
    """The JSON type of a Python value as ``json.loads`` returns it (``integer`` apart)."""
    return next(
        (name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__
    )


_NUMBERS = {"boolean", "integer", "float"}
"""The JSON types Python's ``==`` mixes up (``True == 1 == 1.0``)."""


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def json_equal(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value, types included.

    Booleans, integers and floats never equal one another, ``-0.0`` differs
    from ``0.0``, object keys compare without order, arrays in order.
    """
    kind = json_type(a)
    if kind != json_type(b):
        return False
    if kind == "float":
        return _same_float(a, b)
    if kind == "object":
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if kind == "array":
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def typed_repr(value: Any) -> str:
    """``value`` with its JSON type, as failure messages show it: ``1.0 (float)``."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({json_type(value)})"


def _walk(want: Any, got: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """Every place where ``want`` and ``got`` differ, deepest first, as (path, want, got)."""
    kind = json_type(want)
    if kind == json_type(got) == "object":
        for key in [k for k in want if k in got]:  # in want's order: the same on every run
            yield from _walk(want[key], got[key], f"{path}[{key!r}]")
        return
    if kind == json_type(got) == "array" and len(want) == len(got):
        for n, (x, y) in enumerate(zip(want, got, strict=True)):
            yield from _walk(x, y, f"{path}[{n}]")
        return
    if not json_equal(want, got):
        yield path, want, got


def type_differences(
    want: Sequence[Mapping[str, Any]], got: Sequence[Mapping[str, Any]], *, limit: int = 5
) -> list[str]:
    """Lines naming where two call lists mix up booleans and numbers, or where ``==`` is fooled.

    One line a place: ``call 0 args['n']: expected 1 (integer), got 1.0 (float)``.
    """
    found = []
    for position, (a_call, b_call) in enumerate(zip(want, got, strict=False)):
        for field in ("name", "args", "id"):
            walked = _walk(a_call.get(field), b_call.get(field), f"call {position} {field}")
            for path, a, b in walked:
                numbers = {json_type(a), json_type(b)} <= _NUMBERS
                if (numbers and json_type(a) != json_type(b)) or a == b:
                    found.append(f"{path}: expected {typed_repr(a)}, got {typed_repr(b)}")
                if len(found) == limit:
                    return found
    return found


def first_difference(
    want: Sequence[Mapping[str, Any]], got: Sequence[Mapping[str, Any]]
) -> tuple[int, str, Any, Any] | None:
    """The first call and field where two call lists differ: ``(position, field, want, got)``.

    ``field`` is ``name``, ``args`` or ``id``, or ``call`` when one list has no
    call at ``position`` (the missing side is ``None``). ``None``: they are equal.
    """
    for position in range(max(len(want), len(got))):
        if position >= len(want) or position >= len(got):
            a = want[position] if position < len(want) else None
            b = got[position] if position < len(got) else None
            return position, "call", a, b
        for field in ("name", "args", "id"):
            a, b = want[position].get(field), got[position].get(field)
            if not json_equal(a, b):
                return position, field, a, b
    return None


def first_leaf_difference(want: Any, got: Any, path: str) -> tuple[str, Any, Any]:
    """The first place where two values differ, as deep as both go: ``(path, want, got)``."""
    return next(_walk(want, got, path), (path, want, got))
