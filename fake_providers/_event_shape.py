"""Check the shape of one streamed event: the fields that carry tool calls have the right types.

A dialect declares its ``event_shape``: a path per field (``choices[].delta.tool_calls``,
``[]`` meaning every element of a list) and the JSON types it may hold. A field
that is absent is fine (events differ); a field present with another type is a
problem the reference adapter would skip, swallow or raise on, and the caller
shows it instead of a silent "no tool calls". The walk reads only the declared
paths and every message is bounded, whatever the event holds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

__all__ = ["EventShape", "shape_problems"]

EventShape = Sequence[tuple[str, str]]
"""``(path, types)`` pairs; ``types`` is ``|``-separated: object, list, str, int, null."""

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "list": (list,),
    "str": (str,),
    "int": (int,),
    "null": (type(None),),
}
_JSON_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
_MAX_PROBLEMS = 3
_MAX_ELEMENTS = 10_000


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return _JSON_NAMES.get(type(value), "null" if value is None else type(value).__name__)


@functools.cache
def _accepted(types: str) -> tuple[tuple[type, ...], bool]:
    """The Python types ``types`` names, and whether ``int`` is among them (bool is not)."""
    names = types.split("|")
    accepted = tuple(t for name in names if name != "int" for t in _TYPES[name])
    return accepted, "int" in names


def _fits(value: Any, types: str) -> bool:
    accepted, ints = _accepted(types)
    if ints and type(value) is int:
        return True
    return isinstance(value, accepted)


@functools.cache
def _steps(path: str) -> tuple[str, ...]:
    steps: list[str] = []
    for part in path.split("."):
        name = part.replace("[]", "")
        if name:
            steps.append(name)
        steps.extend("[]" for _ in range(part.count("[]")))
    return tuple(steps)


def _values(value: Any, steps: tuple[str, ...]) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every value at ``steps`` under ``value``, with the keys and indexes that lead to it."""
    found: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    for step in steps:
        deeper: list[tuple[tuple[str | int, ...], Any]] = []
        for trail, item in found:
            if step == "[]":
                if isinstance(item, list):
                    deeper += [((*trail, n), x) for n, x in enumerate(item[:_MAX_ELEMENTS])]
            elif isinstance(item, dict) and step in item:
                deeper.append(((*trail, step), item[step]))
        if not deeper:
            return []
        found = deeper
    return found


def _location(trail: tuple[str | int, ...]) -> str:
    """``choices[0].delta.tool_calls[1]`` for ``("choices", 0, "delta", "tool_calls", 1)``."""
    text = ""
    for part in trail:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _all_fit(payload: Any, steps: tuple[str, ...], types: str) -> bool:
    """Whether every value at ``steps`` fits ``types``: the common case, walked without trails."""
    found = [payload]
    for step in steps:
        if step == "[]":
            found = [x for item in found if isinstance(item, list) for x in item[:_MAX_ELEMENTS]]
        else:
            found = [item[step] for item in found if isinstance(item, dict) and step in item]
        if not found:
            return True
    return all(_fits(value, types) for value in found)


def shape_problems(payload: Any, shape: EventShape) -> list[str]:
    """What in ``payload`` does not fit ``shape`` (at most a few, each one short line)."""
    if not isinstance(payload, dict):
        return [f"the event is {_json_type(payload)}, expected a JSON object"]
    problems = []
    for path, types in shape:
        steps = _steps(path)
        if _all_fit(payload, steps, types):
            continue
        for trail, value in _values(payload, steps):
            if not _fits(value, types):
                expected = " or ".join(types.split("|"))
                problems.append(f"{_location(trail)} is {_json_type(value)}, expected {expected}")
                if len(problems) >= _MAX_PROBLEMS:
                    return problems
    return problems
