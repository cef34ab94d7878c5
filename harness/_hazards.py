"""Hazards: what a merge hides when langchain-core calls it valid.

Kinds:

``args_repaired``
    The arguments are not complete JSON; ``parse_partial_json`` closed them (a
    truncated stream) or dropped trailing data, and the call still counts as valid.
``repeated_name``
    The name is a shorter name repeated (``get_weatherget_weather``): a provider
    sent the full name on every chunk.
``id_changed``
    A nameless chunk shares an index with a named call but carries another id,
    or a chunk repeats the name of a call on its index that has no arguments yet
    under another id: the id changed mid-call and langchain-core split one call
    in two (the first part a valid call with ``{}``).
``orphan_fragment``
    A chunk with no name became a call or an invalid call on its own: a
    continuation fragment that nothing could join (no index, or index reuse).
``shared_index``
    Several calls share an index, and langchain-core had to guess where a chunk
    went. Its ``merge_lists`` joins each chunk to the *first* earlier chunk on the
    same index whose id does not conflict (the same id, or either id missing); a
    chunk without its call's id, on an index that holds two calls, so joins the
    first call that can take it, whichever call it belonged to: arguments glue on,
    or names and ids land on the wrong call (``whole_call`` + ``late_name`` +
    ``shared_index`` + ``pack_fragments`` swaps the names of two calls). Only found
    when the stream is known (:func:`reference_merge` passes it); calls that share
    an index but carry their ids on every chunk merge unambiguously and are not
    reported. Also reported when chunks with *different* ids on one index ended
    in one merged call (langchain-core releases before 1.3 merged by index alone:
    two calls on index 0 became ``get_weatherget_weather``); the glued name is
    then not a ``repeated_name``, since the provider did not repeat it.
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
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import AIMessageChunk, ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.harness._index_routing import Guess, glued_ids, guessed_joins, shares_an_index
from tooltape.harness._models import Hazard, HazardKind
from tooltape.harness.json_text import loads

__all__ = ["find_hazards", "is_repeated_name"]

_REPETITION = re.compile(r"^(.{3,}?)\1+$", re.DOTALL)


def is_repeated_name(name: str, known_names: Iterable[str] = ()) -> str | None:
    """Return the repeated base name when ``name`` is a shorter name said twice or more.

    With ``known_names``, a name that is itself known is never a repetition.
    """
    return _repeated(name, set(known_names))


def _repeated(name: str, known: set[str]) -> str | None:
    if name in known:
        return None
    match = _REPETITION.match(name)
    if match is None:
        return None
    base = match.group(1)
    if known and base not in known:
        return None
    return base


def _validity(chunks: Sequence[ToolCallChunk]) -> list[bool]:
    """Ask langchain-core which merged chunks make a valid call, in one message.

    Each chunk becomes one valid or one invalid call; the ids are swapped for the
    chunks' positions to tell them apart (parsing the arguments never reads the id).
    """
    marked = [
        tool_call_chunk(
            name=chunk.get("name"), args=chunk.get("args"), id=str(n), index=chunk.get("index")
        )
        for n, chunk in enumerate(chunks)
    ]
    message = AIMessageChunk(content="", tool_call_chunks=marked)
    valid = {int(str(call["id"])) for call in message.tool_calls}
    return [position in valid for position in range(len(chunks))]


def _args_problem(args: str | None) -> str | None:
    if not args:
        return None
    try:
        loads(args)
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
    stream: Sequence[Iterable[ToolCallChunk]] | None = None,
) -> list[Hazard]:
    """List the hazards in merged tool-call chunks (see the module docstring for the kinds).

    Args:
        chunks: The merged ``tool_call_chunks`` of a message, one per call.
        known_names: The tools that exist; with them, a repeated name is only
            reported when its base is a known tool.
        valid: Whether each chunk became a valid call, when an adapter already
            decided (a finished ``AIMessage``); by default langchain-core decides.
        stream: The ``tool_call_chunks`` of each streamed message ``chunks`` were
            merged from, when known: ``shared_index`` is found from them.
    """
    known = set(known_names)
    hazards: list[Hazard] = []
    seen_ids: set[str] = set()
    lanes = _Lanes()
    if valid is None:
        valid = _validity(chunks)
    guesses = guessed_joins(stream) if stream is not None and shares_an_index(chunks) else {}
    glued = glued_ids(chunks, stream) if stream is not None else {}
    for position, chunk in enumerate(chunks):
        is_valid = valid[position]
        found = _chunk_hazards(position, chunk, lanes, known, is_valid)
        if found and glued and position in glued:
            found = [h for h in found if h.kind != "repeated_name"]
        if found:
            hazards.extend(found)
        if guesses and position in guesses:
            hazards.append(_shared_index(guesses[position], chunk))
        elif glued and position in glued:
            hazards.append(_glued(position, chunk, glued[position]))
        lanes.add(chunk)
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


class _Lanes:
    """The ids seen so far on each index: enough to find a chunk's first earlier sibling.

    The first earlier chunk on the same index with an id other than ``call_id``
    carries one of the first two distinct ids seen there, so two are kept per index.
    """

    def __init__(self) -> None:
        self.ids: dict[Any, list[Any]] = {}
        self.unhashable: list[tuple[Any, Any]] = []
        self.bare: dict[tuple[Any, Any], Any] = {}
        """The id of the first named call with no arguments, by index and name."""

    def add(self, chunk: ToolCallChunk) -> None:
        index, call_id = chunk.get("index"), chunk.get("id")
        if index is None or not call_id:
            return
        name = chunk.get("name")
        if name and not (chunk.get("args") or "").strip():
            # Not contextlib.suppress: it builds an object per call, and this runs per chunk.
            try:  # noqa: SIM105
                self.bare.setdefault((index, name), call_id)
            except TypeError:  # unhashable: no merge would reach it
                pass
        try:
            ids = self.ids.setdefault(index, [])
        except TypeError:
            self.unhashable.append((index, call_id))
            return
        if len(ids) < 2 and call_id not in ids:
            ids.append(call_id)

    def bare_id(self, index: Any, name: Any, call_id: Any) -> Any:
        """The id of an earlier argument-less call ``name`` on ``index``, unless ``call_id``."""
        try:
            other = self.bare.get((index, name))
        except TypeError:
            return None
        return other if other != call_id else None

    def sibling_id(self, index: Any, call_id: Any) -> Any:
        """The id of the first earlier chunk on ``index`` whose id is set and not ``call_id``."""
        if index is None:
            return None
        try:
            ids = self.ids.get(index, [])
        except TypeError:
            ids = [other for at, other in self.unhashable if at == index]
        return next((other for other in ids if other != call_id), None)


def _chunk_hazards(
    position: int,
    chunk: ToolCallChunk,
    lanes: _Lanes,
    known: set[str],
    is_valid: bool,
) -> list[Hazard] | None:
    """The hazards of one merged chunk, or ``None`` (most chunks: nothing is built)."""
    name, call_id, args = chunk.get("name"), chunk.get("id"), chunk.get("args")
    found: list[Hazard] = []

    def add(kind: HazardKind, detail: str) -> None:
        found.append(Hazard(kind=kind, position=position, call_id=call_id, detail=detail))

    problem = _args_problem(args) if is_valid else None
    if problem and (args or "").strip():
        add(
            "args_repaired",
            f"args {_tail(args)} are not complete JSON ({problem}); "
            "parse_partial_json repaired them into a valid call",
        )
    if name:
        base = _repeated(name, known)
        if base is not None:
            add(
                "repeated_name",
                f"name {name!r} is {base!r} repeated; the provider sent the name on every chunk",
            )
        known_bare = call_id and lanes.bare
        bare_id = lanes.bare_id(chunk.get("index"), name, call_id) if known_bare else None
        if bare_id is not None:
            add(
                "id_changed",
                f"{name!r} at index {chunk.get('index')} came again under id "
                f"{call_id!r} before call {bare_id!r} had arguments; langchain-core split "
                "it in two",
            )
        return found or None
    sibling_id = lanes.sibling_id(chunk.get("index"), call_id)
    if sibling_id is not None and call_id:
        add(
            "id_changed",
            f"the call at index {chunk.get('index')} changed id from "
            f"{sibling_id!r} to {call_id!r}; langchain-core split it in two",
        )
    else:
        add(
            "orphan_fragment",
            f"a nameless fragment (index {chunk.get('index')!r}, args "
            f"{_tail(args)}) became a call of its own",
        )
    return found


def _shared_index(guess: Guess, chunk: ToolCallChunk) -> Hazard:
    return Hazard(
        kind="shared_index",
        position=guess.position,
        call_id=chunk.get("id"),
        detail=f"index {guess.index!r} held {guess.calls} calls when message {guess.message} "
        f"sent a chunk its id could not place; langchain-core joined it to the first call "
        f"there that could take it ({chunk.get('name')!r}), whichever call it belonged to",
    )


def _glued(position: int, chunk: ToolCallChunk, ids: list[Any]) -> Hazard:
    shown = ", ".join(map(repr, ids[:4])) + (", ..." if len(ids) > 4 else "")
    return Hazard(
        kind="shared_index",
        position=position,
        call_id=chunk.get("id"),
        detail=f"calls with different ids ({shown}) shared index {chunk.get('index')!r} and "
        f"langchain-core merged them into one call {chunk.get('name')!r}",
    )


def _tail(args: str | None, width: int = 24) -> str:
    if args is None:
        return "None"
    return repr(args if len(args) <= width else "…" + args[-width:])
