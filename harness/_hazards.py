"""Hazards: what a merge hides when langchain-core calls it valid.

Kinds:

``args_repaired``
    The arguments are not complete JSON; ``parse_partial_json`` closed them (a
    truncated stream) or dropped trailing data, and the call still counts as valid.
``repeated_name``
    The name is a shorter name repeated (``get_weatherget_weather``): a provider
    sent the full name on every chunk.
``id_changed``
    A nameless chunk shares an index with a named call but carries another id:
    the id changed mid-call and langchain-core split one call in two.
``orphan_fragment``
    A chunk with no name became a call or an invalid call on its own: a
    continuation fragment that nothing could join (no index, or index reuse).
``missing_id``
    A valid call has no id (``None`` or ``""``): its result cannot be paired.
``duplicate_id``
    Two valid calls share an id: their results cannot be told apart.
``invalid_call``
    langchain-core put a call in ``invalid_tool_calls``; ToolNode ignores it and
    a turn with only invalid calls ends the graph silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from langchain_core.messages import AIMessageChunk, ToolCallChunk

from tooltape.harness._models import Hazard

__all__ = ["find_hazards", "is_repeated_name"]

_REPETITION = re.compile(r"^(.{3,}?)\1+$", re.DOTALL)


def is_repeated_name(name: str, known_names: Iterable[str] = ()) -> str | None:
    """Return the repeated base name when ``name`` is a shorter name said twice or more.

    With ``known_names``, a name that is itself known is never a repetition.
    """
    known = set(known_names)
    if name in known:
        return None
    match = _REPETITION.match(name)
    if match is None:
        return None
    base = match.group(1)
    if known and base not in known:
        return None
    return base


def _is_valid(chunk: ToolCallChunk) -> bool:
    """Ask langchain-core whether this merged chunk alone makes a valid call."""
    return bool(AIMessageChunk(content="", tool_call_chunks=[chunk]).tool_calls)


def _args_problem(args: str | None) -> str | None:
    if not args:
        return None
    try:
        json.loads(args)
    except json.JSONDecodeError as error:
        return f"{error.msg} at character {error.pos}"
    except RecursionError:
        return "nested too deep to read"
    except ValueError as error:  # an integer past Python's int-string conversion limit
        return str(error)[:120]
    return None


def find_hazards(
    chunks: Sequence[ToolCallChunk],
    *,
    known_names: Iterable[str] = (),
    valid: Sequence[bool] | None = None,
) -> list[Hazard]:
    """List the hazards in merged tool-call chunks (see the module docstring for the kinds).

    Args:
        chunks: The merged ``tool_call_chunks`` of a message, one per call.
        known_names: The tools that exist; with them, a repeated name is only
            reported when its base is a known tool.
        valid: Whether each chunk became a valid call, when an adapter already
            decided (a finished ``AIMessage``); by default langchain-core decides.
    """
    known = list(known_names)
    hazards: list[Hazard] = []
    seen_ids: set[str] = set()
    ids = _IdsByIndex(chunks)
    for position, chunk in enumerate(chunks):
        is_valid = valid[position] if valid is not None else _is_valid(chunk)
        hazards.extend(_chunk_hazards(position, chunk, ids, known, is_valid))
        call_id, name = chunk.get("id"), chunk.get("name")
        if not is_valid:
            hazards.append(
                Hazard(
                    kind="invalid_call",
                    position=position,
                    call_id=call_id,
                    detail=f"{name!r} has args {_tail(chunk.get('args'))} that are not a "
                    "JSON object; ToolNode will not run it",
                )
            )
        elif not call_id:
            hazards.append(
                Hazard(
                    kind="missing_id",
                    position=position,
                    call_id=call_id,
                    detail=f"{name or ''!r} has id {call_id!r}; its ToolMessage cannot be paired",
                )
            )
        elif call_id in seen_ids:
            hazards.append(
                Hazard(
                    kind="duplicate_id",
                    position=position,
                    call_id=call_id,
                    detail=f"two calls share the id {call_id!r}; their results cannot be told "
                    "apart",
                )
            )
        else:
            seen_ids.add(call_id)
    return hazards


def _chunk_hazards(
    position: int,
    chunk: ToolCallChunk,
    ids: _IdsByIndex,
    known: list[str],
    is_valid: bool,
) -> Iterable[Hazard]:
    name, call_id, args = chunk.get("name"), chunk.get("id"), chunk.get("args")
    problem = _args_problem(args)
    if problem and (args or "").strip() and is_valid:
        yield Hazard(
            kind="args_repaired",
            position=position,
            call_id=call_id,
            detail=f"args {_tail(args)} are not complete JSON ({problem}); "
            "parse_partial_json repaired them into a valid call",
        )
    if name:
        base = is_repeated_name(name, known)
        if base is not None:
            yield Hazard(
                kind="repeated_name",
                position=position,
                call_id=call_id,
                detail=f"name {name!r} is {base!r} repeated; the provider sent the name "
                "on every chunk",
            )
        return
    sibling = ids.earlier_other(position, chunk.get("index"), call_id)
    if sibling is not None and call_id:
        yield Hazard(
            kind="id_changed",
            position=position,
            call_id=call_id,
            detail=f"the call at index {chunk.get('index')} changed id from "
            f"{sibling!r} to {call_id!r}; langchain-core split it in two",
        )
    else:
        yield Hazard(
            kind="orphan_fragment",
            position=position,
            call_id=call_id,
            detail=f"a nameless fragment (index {chunk.get('index')!r}, args "
            f"{_tail(args)}) became a call of its own",
        )


class _IdsByIndex:
    """For each index, its first two distinct non-empty ids and where they appear.

    Answers "the first earlier chunk at this index whose id is another one" in
    constant time, where scanning the earlier chunks would make a stream of many
    nameless fragments quadratic.
    """

    def __init__(self, chunks: Sequence[ToolCallChunk]) -> None:
        self._firsts: dict[Any, list[tuple[int, str]]] = {}
        for position, chunk in enumerate(chunks):
            index, call_id = chunk.get("index"), chunk.get("id")
            if index is None or not call_id or not isinstance(index, Hashable):
                continue
            firsts = self._firsts.setdefault(index, [])
            if not firsts or (len(firsts) == 1 and firsts[0][1] != call_id):
                firsts.append((position, call_id))

    def earlier_other(self, position: int, index: Any, call_id: str | None) -> str | None:
        """The id of the first chunk before ``position`` at ``index`` with an id not ``call_id``."""
        if index is None or not isinstance(index, Hashable):
            return None
        for where, other in self._firsts.get(index, ()):
            if where >= position:
                return None
            if other != call_id:
                return other
        return None


def _tail(args: str | None, width: int = 24) -> str:
    if args is None:
        return "None"
    return repr(args if len(args) <= width else "…" + args[-width:])
