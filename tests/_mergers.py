"""Hand-written merge functions: one correct, and realistic buggy variants of it.

Each buggy merger has one bug seen in agent frameworks and provider clients. The
tests prove check_merger catches every one on every run, and never flags the
correct ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.utils.json import parse_partial_json

from tooltape.harness import reference_merge
from tooltape.harness._reference import pairwise_merge

Merger = Callable[[list[list[dict[str, Any]]]], list[dict[str, Any]]]


def _finish(merged: list[dict[str, Any]], *, strict: bool = False) -> list[dict[str, Any]]:
    """Parse each merged call's arguments; keep the calls whose args are a JSON object."""
    calls = []
    for chunk in merged:
        text = chunk["args"] or ""
        try:
            args = (json.loads(text) if strict else parse_partial_json(text)) if text else {}
        except ValueError:
            continue
        if isinstance(args, dict):
            calls.append({"name": chunk["name"] or "", "args": args, "id": chunk["id"]})
    return calls


def _same_call(candidate: dict[str, Any], chunk: dict[str, Any]) -> bool:
    ids = (candidate["id"], chunk.get("id"))
    return None in ids or "" in ids or ids[0] == ids[1]


def _join(merged: list[dict[str, Any]], deltas: Any, **bug: Any) -> list[dict[str, Any]]:
    """langchain-core's rule, by hand: join by index (ids permitting), never inside message 0."""
    for number, delta in enumerate(deltas):
        for chunk in delta:
            index, target = chunk.get("index"), None
            if (number > 0 or bug.get("flatten_first")) and isinstance(index, int):
                target = next(
                    (
                        c
                        for c in merged
                        if c["index"] == index and (bug.get("index_only") or _same_call(c, chunk))
                    ),
                    None,
                )
            if target is None:
                merged.append({k: chunk.get(k) for k in ("name", "args", "id", "index")})
                continue
            for key in ("name", "args", "id"):
                value = chunk.get(key)
                if value is None:
                    continue
                if target[key] is None:
                    target[key] = value
                elif key == "id" and target[key] == value and not bug.get("concat_ids"):
                    continue
                elif key == "args" and bug.get("overwrite_args"):
                    target[key] = value
                elif key == "name" and bug.get("name") == "first" and target[key]:
                    continue
                elif key == "name" and bug.get("name") == "last" and value:
                    target[key] = value
                else:
                    target[key] += value
    return merged


def correct(deltas):
    """A correct hand-written merger: langchain-core's rule, written out."""
    return _finish(_join([], deltas))


def via_reference(deltas):
    """langchain-core itself: the reference is never flagged."""
    return reference_merge(deltas).calls()


def via_pairwise_addition(deltas):
    """``full = full + chunk``, as many applications merge."""
    merged = pairwise_merge(deltas)
    return [] if merged is None else [dict(c) for c in merged.tool_calls]


def _map_chunks(deltas, change):
    return [[change(dict(chunk)) for chunk in delta] for delta in deltas]


def strips_whitespace(deltas):
    """Strips every argument fragment, as if it were a line of text."""

    def strip(chunk):
        if chunk.get("args"):
            chunk["args"] = chunk["args"].strip()
        return chunk

    return correct(_map_chunks(deltas, strip))


def first_name_wins(deltas):
    """Keeps the first name fragment of a call and ignores the rest."""
    return _finish(_join([], deltas, name="first"))


def last_name_wins(deltas):
    """Overwrites the name with every name fragment that arrives."""
    return _finish(_join([], deltas, name="last"))


def keyed_by_index_only(deltas):
    """Joins every chunk of an index into one call, whatever its id."""
    return _finish(_join([], deltas, index_only=True))


def keyed_by_id_only(deltas):
    """Keys calls by id; an id-less chunk continues the last call seen."""
    calls, last = {}, None
    for delta in deltas:
        for chunk in delta:
            last = chunk.get("id") or last
            call = calls.setdefault(last, {"name": "", "args": "", "id": last, "index": None})
            call["name"] += chunk.get("name") or ""
            call["args"] += chunk.get("args") or ""
    return _finish(list(calls.values()))


def drops_idless_chunks(deltas):
    """Ignores chunks without an id, as if they were keep-alives."""
    return correct([[c for c in delta if c.get("id")] for delta in deltas])


def strict_json_loads(deltas):
    """Parses arguments with ``json.loads`` and drops what does not parse."""
    return _finish(_join([], deltas), strict=True)


def ascii_only(deltas):
    """Drops non-ASCII characters from argument fragments (a bytes/str mix-up)."""

    def ascii(chunk):
        if chunk.get("args"):
            chunk["args"] = chunk["args"].encode("ascii", "ignore").decode()
        return chunk

    return correct(_map_chunks(deltas, ascii))


def drops_last_delta(deltas):
    """Stops one message early (an off-by-one on the stream's end)."""
    return correct(deltas[:-1])


def concatenates_ids(deltas):
    """Concatenates the id like any other string field."""
    return _finish(_join([], deltas, concat_ids=True))


def ignores_message_boundaries(deltas):
    """Joins chunks of one index inside the first message too."""
    return _finish(_join([], deltas, flatten_first=True))


def sorts_calls(deltas):
    """Returns the calls sorted by name."""
    return sorted(correct(deltas), key=lambda call: call["name"])


def dedups_identical_calls(deltas):
    """Drops a call whose name and arguments repeat an earlier one."""
    seen, kept = set(), []
    for call in correct(deltas):
        key = (call["name"], json.dumps(call["args"], sort_keys=True))
        if key not in seen:
            seen.add(key)
            kept.append(call)
    return kept


def overwrites_args(deltas):
    """Keeps only the last argument fragment of each call."""
    return _finish(_join([], deltas, overwrite_args=True))


def empty_id_is_an_id(deltas):
    """Treats ``id: ""`` on a continuation chunk as a new call's id."""

    def mark(chunk):
        if chunk.get("id") == "":
            chunk["id"] = "<empty>"
        return chunk

    return [
        {**c, "id": None if c["id"] == "<empty>" else c["id"]}
        for c in correct(_map_chunks(deltas, mark))
    ]


def raises_on_malformed_args(deltas):
    """Raises on arguments that are not JSON instead of leaving the call out."""
    merged = _join([], deltas)
    for chunk in merged:
        if chunk["args"]:
            json.loads(chunk["args"])
    return _finish(merged)


def keeps_non_object_args(deltas):
    """Returns calls whose arguments are JSON but not an object."""
    calls = []
    for chunk in _join([], deltas):
        try:
            args = parse_partial_json(chunk["args"]) if chunk["args"] else {}
        except ValueError:
            continue
        calls.append({"name": chunk["name"] or "", "args": args, "id": chunk["id"]})
    return calls


def index_as_position(deltas):
    """Stores calls at ``calls[index]``, as if indexes always started at 0."""
    calls: list[Any] = []
    for call in _join([], deltas):
        index = call["index"] if isinstance(call["index"], int) else len(calls)
        while len(calls) <= index:
            calls.append(None)
        calls[index] = call
    return _finish([c or {"name": "", "args": "", "id": None} for c in calls])


def ignores_header_args(deltas):
    """Ignores argument text on a call's first chunk (where the name is)."""

    def drop(chunk):
        if chunk.get("name"):
            chunk["args"] = ""
        return chunk

    return correct(_map_chunks(deltas, drop))


def missing_index_is_zero(deltas):
    """Treats a chunk without an index as index 0."""

    def zero(chunk):
        if chunk.get("index") is None:
            chunk["index"] = 0
        return chunk

    return correct(_map_chunks(deltas, zero))


def empty_args_are_none(deltas):
    """Returns ``args: None`` for a call that streamed no argument text."""
    return [
        {"name": c["name"] or "", "args": None if not c["args"] else c_args, "id": c["id"]}
        for c, c_args in (
            (c, parse_partial_json(c["args"]) if c["args"] else {}) for c in _join([], deltas)
        )
        if isinstance(c_args, dict)
    ]


CORRECT = [correct, via_reference, via_pairwise_addition]
BUGGY = [
    strips_whitespace,
    first_name_wins,
    last_name_wins,
    keyed_by_index_only,
    keyed_by_id_only,
    drops_idless_chunks,
    strict_json_loads,
    ascii_only,
    drops_last_delta,
    concatenates_ids,
    ignores_message_boundaries,
    sorts_calls,
    dedups_identical_calls,
    overwrites_args,
    empty_id_is_an_id,
    raises_on_malformed_args,
    keeps_non_object_args,
    index_as_position,
    ignores_header_args,
    missing_index_is_zero,
    empty_args_are_none,
]


# --- What real tool calls carry (issue 22): values, sizes, stream shapes ------------------


def _map_args(change):
    """A correct merge whose parsed arguments then go through ``change`` (value by value)."""

    def walk(value):
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return change(value)

    def merger(deltas):
        return [{**call, "args": walk(call["args"])} for call in correct(deltas)]

    return merger


def _with_args_text(change):
    """A merge whose joined argument text goes through ``change`` before it is parsed."""

    def merger(deltas):
        merged = _join([], deltas)
        for chunk in merged:
            if chunk["args"]:
                chunk["args"] = change(chunk["args"])
        return _finish(merged)

    return merger


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


caps_argument_buffer = _named(
    _with_args_text(lambda text: text[:8192]),
    "caps_argument_buffer",
    "Keeps at most 8 KiB of a call's argument text (a fixed-size buffer).",
)

floats_rounded = _named(
    _map_args(lambda v: float(f"{v:.6g}") if isinstance(v, float) else v),
    "floats_rounded",
    "Rounds floats to 6 significant digits (a '%g' format on the way through).",
)

ints_as_floats = _named(
    _map_args(lambda v: float(v) if type(v) is int else v),
    "ints_as_floats",
    "Reads every integer as a float (a JavaScript-style number parser).",
)

big_ints_lose_precision = _named(
    _map_args(lambda v: int(float(v)) if type(v) is int and abs(v) > 2**53 else v),
    "big_ints_lose_precision",
    "Passes integers through a double: past 2**53 they lose their last digits.",
)

booleans_as_ints = _named(
    _map_args(lambda v: int(v) if isinstance(v, bool) else v),
    "booleans_as_ints",
    "Turns true and false into 1 and 0 (a C-style truth value).",
)

whole_floats_as_ints = _named(
    _map_args(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v),
    "whole_floats_as_ints",
    "Writes 2.0 as 2 and -0.0 as 0 (JavaScript's JSON.stringify on the way through).",
)

cuts_long_strings = _named(
    _map_args(lambda v: v[:10_000] if isinstance(v, str) else v),
    "cuts_long_strings",
    "Cuts string values at 10,000 characters (a column or log-line limit).",
)

drops_astral_characters = _named(
    _map_args(lambda v: "".join(c for c in v if ord(c) < 0x10000) if isinstance(v, str) else v),
    "drops_astral_characters",
    "Drops characters outside the Basic Multilingual Plane (a UCS-2 assumption).",
)

drops_control_characters = _named(
    _map_args(lambda v: "".join(c for c in v if c >= " ") if isinstance(v, str) else v),
    "drops_control_characters",
    "Drops control characters from strings (\\n, \\t, \\u0000...) as if sanitising logs.",
)


def drops_null_values(deltas):
    """Leaves out arguments whose value is null (an exclude_none serialiser)."""
    return [
        {**c, "args": {k: v for k, v in c["args"].items() if v is not None}}
        for c in correct(deltas)
    ]


def fixed_parallel_slots(deltas):
    """Keeps calls in 16 slots by index; a 17th parallel call is dropped."""
    calls = correct(deltas)
    return calls[:16]


def fixed_fragment_count(deltas):
    """Joins at most 128 argument fragments of one call; later ones are ignored."""
    seen = {}

    def keep(chunk):
        key = (chunk.get("index"), chunk.get("id") or None)
        if chunk.get("args"):
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 128:
                chunk["args"] = ""
        return chunk

    return correct(_map_chunks(deltas, keep))


def resets_on_idle_message(deltas):
    """Forgets its open calls when a message carries no tool-call chunk (text, keep-alive)."""
    done, run = [], []
    for delta in deltas:
        if not delta and run:
            done += correct(run)
            run = []
        elif delta:
            run.append(delta)
    return done + correct(run)


def first_duplicate_key_wins(deltas):
    """Parses arguments keeping the first of two equal keys (most JSON parsers keep the last)."""
    merged = _join([], deltas)
    calls = []
    for chunk in merged:
        try:
            args = json.loads(chunk["args"] or "{}", object_pairs_hook=_first_wins)
        except ValueError:
            args = parse_partial_json(chunk["args"])
        if isinstance(args, dict):
            calls.append({"name": chunk["name"] or "", "args": args, "id": chunk["id"]})
    return calls


def _first_wins(pairs):
    kept = {}
    for key, value in pairs:
        kept.setdefault(key, value)
    return kept


def limits_nesting(deltas):
    """Refuses arguments nested deeper than 32 levels (a parser depth limit) and drops them."""

    def depth(value):
        if isinstance(value, dict):
            return 1 + max(map(depth, value.values()), default=0)
        if isinstance(value, list):
            return 1 + max(map(depth, value), default=0)
        return 0

    return [c for c in correct(deltas) if depth(c["args"]) <= 32]


def caps_keys(deltas):
    """Keeps the first 64 keys of an argument object (a fixed-size table)."""
    return [{**c, "args": dict(list(c["args"].items())[:64])} for c in correct(deltas)]


VALUE_AND_SHAPE_BUGGY = [
    caps_argument_buffer,
    fixed_parallel_slots,
    fixed_fragment_count,
    floats_rounded,
    ints_as_floats,
    big_ints_lose_precision,
    booleans_as_ints,
    whole_floats_as_ints,
    cuts_long_strings,
    resets_on_idle_message,
    drops_astral_characters,
    drops_control_characters,
    drops_null_values,
    first_duplicate_key_wins,
    limits_nesting,
    caps_keys,
]
BUGGY += VALUE_AND_SHAPE_BUGGY
