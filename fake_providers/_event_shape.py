"""Check the shape of one streamed event: the fields that carry tool calls have the right types.

A dialect declares its ``event_shape``: a path per field (``choices[].delta.tool_calls``,
``[]`` meaning every element of a list) and the JSON types it may hold. A field
that is absent is fine (events differ); a field present with another type is a
problem the reference adapter would skip, swallow or raise on, and the caller
shows it instead of a silent "no tool calls". The walk reads only the declared
paths and every message is bounded, whatever the event holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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


def _fits(value: Any, types: str) -> bool:
    for name in types.split("|"):
        if name == "int" and isinstance(value, int) and not isinstance(value, bool):
            return True
        if name != "int" and isinstance(value, _TYPES[name]):
            return True
    return False


def _steps(path: str) -> list[str]:
    steps: list[str] = []
    for part in path.split("."):
        name = part.replace("[]", "")
        if name:
            steps.append(name)
        steps.extend("[]" for _ in range(part.count("[]")))
    return steps


def _values(value: Any, steps: list[str], where: str) -> Iterator[tuple[str, Any]]:
    """Every value at ``steps`` under ``value``, with its printed location."""
    if not steps:
        yield where, value
        return
    step, rest = steps[0], steps[1:]
    if step == "[]":
        if isinstance(value, list):
            for n, item in enumerate(value[:_MAX_ELEMENTS]):
                yield from _values(item, rest, f"{where}[{n}]")
        return
    if isinstance(value, dict) and step in value:
        yield from _values(value[step], rest, f"{where}.{step}" if where else step)


def shape_problems(payload: Any, shape: EventShape) -> list[str]:
    """What in ``payload`` does not fit ``shape`` (at most a few, each one short line)."""
    if not isinstance(payload, dict):
        return [f"the event is {_json_type(payload)}, expected a JSON object"]
    problems = []
    for path, types in shape:
        for where, value in _values(payload, _steps(path), ""):
            if not _fits(value, types):
                expected = " or ".join(types.split("|"))
                problems.append(f"{where} is {_json_type(value)}, expected {expected}")
                if len(problems) >= _MAX_PROBLEMS:
                    return problems
    return problems
