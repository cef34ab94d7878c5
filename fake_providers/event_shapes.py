"""Check the shape of one streamed event: the fields that carry tool calls have the right types.

A dialect declares its ``event_shape``: a path per field (``choices[].delta.tool_calls``,
``[]`` meaning every element of a list) and the JSON types it may hold. A field
that is absent is fine (events differ); a field present with another type is a
problem the reference adapter would skip, swallow or raise on, and the caller
shows it instead of a silent "no tool calls". The walk reads only the declared
paths and every message is bounded, whatever the event holds.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["EventShape", "fields_of", "shape_problems"]

EventShape = Sequence[tuple[str, str]]
"""``(path, types)`` pairs; ``types`` is ``|``-separated: object, list, str, int, null."""


def fields_of(path: str, types: str = "object", **members: str) -> EventShape:
    """``(path, types)``, then ``(path.name, member types)`` for each member of the object there.

    ``fields_of("delta", type="str", partial_json="str")`` names the parent once.
    """
    return ((path, types), *((f"{path}.{name}", member) for name, member in members.items()))


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


_Node = dict[str, tuple[tuple[tuple[tuple[type, ...], bool], ...], "_Node"]]
"""Each step below a value: the type checks of the path ending there, and its own steps."""


@functools.cache
def _tree(shape: tuple[tuple[str, str], ...]) -> _Node:
    """The shape's paths as one tree, so a walk reads each value once, whatever the path count."""
    root: _Node = {}
    for path, types in shape:
        node, steps = root, _steps(path)
        for number, step in enumerate(steps):
            checks, children = node.setdefault(step, ((), {}))
            if number == len(steps) - 1:
                node[step] = (*checks, _accepted(types)), children
            node = children
    return root


def _tree_of(shape: EventShape) -> _Node:
    try:
        return _tree(shape)  # cached per shape: a dialect's is a tuple of pairs
    except TypeError:  # unhashable: lists
        return _tree(tuple((path, types) for path, types in shape))


def _compiled_of(shape: EventShape) -> Callable[[Any], bool]:
    """The compiled check of ``shape``, looked up by identity first: it runs once per event."""
    known = _COMPILED.get(id(shape))
    if known is not None and known[0] is shape:
        return known[1]
    fits = _compiled(_tree_of(shape))
    if len(_COMPILED) >= 256:  # shapes built per call (lists) must not pile up
        _COMPILED.clear()
    _COMPILED[id(shape)] = (shape, fits)  # keeps the shape alive, so its id stays its own
    return fits


_COMPILED: dict[int, tuple[EventShape, Callable[[Any], bool]]] = {}


def _tree_fits(value: Any, node: _Node) -> bool:
    """Whether every value under ``value`` at a path of ``node`` fits that path's types.

    The common case, walked without trails: it reads the values ``_values`` reads.
    """
    for step, (checks, children) in node.items():
        if step == "[]":
            if not isinstance(value, list):
                continue
            items = value[:_MAX_ELEMENTS]
        elif isinstance(value, dict) and step in value:
            items = [value[step]]
        else:
            continue
        for item in items:
            for accepted, ints in checks:
                if not (ints and type(item) is int) and not isinstance(item, accepted):
                    return False
            if children and not _tree_fits(item, children):
                return False
    return True


def _compiled(tree: _Node) -> Callable[[Any], bool]:
    """``_tree_fits`` for one tree, as straight-line code: 5x faster on every event.

    A recording of 100,000 calls has 200,000 events to check (issue #11); the
    generic walk spends most of its time on the walk, not on the checks. The
    source is made from the tree alone: keys enter it only through ``repr``, and
    the accepted types only as names bound in its namespace.
    """
    namespace: dict[str, Any] = {}
    lines = ["def fits(v0):"]
    _emit(tree, 0, "    ", lines, namespace)
    lines.append("    return True")
    try:
        exec("\n".join(lines), namespace)  # the source is ours, see above
    except (SyntaxError, RecursionError, MemoryError):  # nested past the compiler's limits
        return functools.partial(_tree_fits, node=tree)
    fits: Callable[[Any], bool] = namespace["fits"]
    return fits


def _emit(node: _Node, depth: int, pad: str, lines: list[str], namespace: dict[str, Any]) -> None:
    """The statements checking ``v{depth}`` against ``node``, as ``_tree_fits`` walks it."""
    here, item = f"v{depth}", f"v{depth + 1}"
    keys = [(step, branch) for step, branch in node.items() if step != "[]"]
    if "[]" in node:
        lines.append(f"{pad}if isinstance({here}, list):")
        lines.append(f"{pad}    for {item} in {here}[:{_MAX_ELEMENTS}]:")
        _emit_checks(node["[]"], item, depth + 1, pad + "        ", lines, namespace)
    if keys:
        lines.append(f"{pad}if isinstance({here}, dict):")
    for step, branch in keys:
        lines.append(f"{pad}    if {step!r} in {here}:")
        lines.append(f"{pad}        {item} = {here}[{step!r}]")
        _emit_checks(branch, item, depth + 1, pad + "        ", lines, namespace)


def _emit_checks(
    branch: tuple[tuple[tuple[tuple[type, ...], bool], ...], _Node],
    item: str,
    depth: int,
    pad: str,
    lines: list[str],
    namespace: dict[str, Any],
) -> None:
    checks, children = branch
    for accepted, ints in checks:
        name = f"t{len(namespace)}"
        namespace[name] = accepted
        test = f"isinstance({item}, {name})"
        lines.append(f"{pad}if not ({f'type({item}) is int or ' if ints else ''}{test}):")
        lines.append(f"{pad}    return False")
    if children:
        _emit(children, depth, pad, lines, namespace)
    if not checks and not children:
        lines.append(f"{pad}pass")


def shape_problems(payload: Any, shape: EventShape) -> list[str]:
    """What in ``payload`` does not fit ``shape`` (at most a few, each one short line)."""
    if not isinstance(payload, dict):
        return [f"the event is {_json_type(payload)}, expected a JSON object"]
    if _compiled_of(shape)(payload):
        return []
    problems = []
    for path, types in shape:
        if _tree_fits(payload, _tree(((path, types),))):
            continue
        for trail, value in _values(payload, _steps(path)):
            if not _fits(value, types):
                expected = " or ".join(types.split("|"))
                problems.append(f"{_location(trail)} is {_json_type(value)}, expected {expected}")
                if len(problems) >= _MAX_PROBLEMS:
                    return problems
    return problems
