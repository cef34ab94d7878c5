"""The reference oracle: langchain-core's own merge of a stream's messages.

Nothing here re-implements merging. What a chat model's consumer does is fold
every streamed ``AIMessageChunk``, then the ``chunk_position="last"`` chunk chat
models emit at the end, with langchain-core's ``add_ai_message_chunks``: its
tool-call chunks are merged by ``merge_lists``, and validating the merged
message parses each merged chunk into a valid or an invalid call.

:func:`reference_merge` runs exactly those two langchain-core steps, each in the
form that stays linear and builds nothing it does not read:

- ``merge_lists`` lane by lane (:mod:`tooltape.harness._lane_merge`): it only
  ever joins chunks of one index, so cutting the stream by index gives the same
  merged chunks in the same order, without its scan of every earlier chunk (N
  parallel calls: N² comparisons) and without a message per delta;
- the final message built as ``add_ai_message_chunks`` builds it, with
  langchain-core's public, validating ``AIMessageChunk`` constructor, once per
  stream: its own validators parse every merged chunk into a valid or an invalid
  call. The streamed messages are not built at all when their chunks already are
  what validation stores (:mod:`tooltape.harness.chunk_validation`); any other message goes
  through that constructor, so coercion and rejection stay langchain-core's.

Nothing here touches pydantic's internals or any other private module of
langchain-core than ``merge_lists``.
Property tests hold the result to one validated n-ary ``add_ai_message_chunks``
call on drawn streams, and that call to ``full = full + chunk``
(:func:`pairwise_merge`, quadratic, kept for comparisons).
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias, TypeVar

from langchain_core.messages import AIMessage, AIMessageChunk, InvalidToolCall, ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk
from pydantic import TypeAdapter, ValidationError

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._hazards import find_hazards
from tooltape.harness._lane_merge import merge_by_lane, validity
from tooltape.harness._models import MergeResult
from tooltape.harness.chunk_validation import stored_chunks

__all__ = [
    "DeltasLike",
    "merge_result_from_message",
    "pairwise_merge",
    "reference_merge",
    "to_message_chunks",
]

DeltasLike: TypeAlias = PlannedStream | Sequence[AIMessageChunk] | Sequence[Sequence[Any]]
"""Anything that describes a stream: a planned stream, message chunks, or chunk lists."""

_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})


def _chunk(value: Any, message: int, position: int) -> ToolCallChunk:
    if not isinstance(value, dict):
        raise TooltapeUsageError(
            f"delta {message}, chunk {position}: expected a ToolCallChunk dict with "
            f"name/args/id/index, got {type(value).__name__} {value!r}"
        )
    if not _CHUNK_KEYS.issuperset(value):
        unknown = set(value) - _CHUNK_KEYS
        raise TooltapeUsageError(
            f"delta {message}, chunk {position}: unknown key(s) {sorted(unknown)}; a "
            f"ToolCallChunk has name, args, id and index (got {value!r})"
        )
    # What AIMessageChunk's own "before" validator makes of a chunk dict.
    return tool_call_chunk(
        name=value.get("name"), args=value.get("args"), id=value.get("id"), index=value.get("index")
    )


def _validated(delta: list[Any], n: int) -> AIMessageChunk:
    chunks = [_chunk(value, n, m) for m, value in enumerate(delta)]
    try:
        return AIMessageChunk(content="", tool_call_chunks=chunks)
    except ValidationError as error:
        raise TooltapeUsageError(f"delta {n}: langchain-core rejects its chunks: {error}") from None


def _stored_row(delta: list[Any], n: int) -> list[ToolCallChunk] | AIMessageChunk:
    """``delta``'s chunks when validation would store them unchanged, else a validated message.

    Only the final message needs validating for its calls (:func:`_finished`); a message
    whose chunks validation would coerce or reject goes through langchain-core's
    constructor here, so its coercion and its errors stay langchain-core's.
    """
    stored = stored_chunks(delta)
    if stored is None:
        chunks = [_chunk(value, n, m) for m, value in enumerate(delta)]
        stored = stored_chunks(chunks)
        if stored is None:
            return _validated(chunks, n)  # langchain-core coerces or rejects them
    return stored


_Built = TypeVar("_Built")


def _messages(
    deltas: DeltasLike, build: Callable[[list[Any], int], _Built]
) -> list[_Built | AIMessageChunk]:
    if isinstance(deltas, PlannedStream):
        deltas = deltas.deltas()
    if isinstance(deltas, (str, bytes, dict)):
        raise TooltapeUsageError(
            "deltas must be a list of messages or of ToolCallChunk lists, "
            f"got {type(deltas).__name__}"
        )
    messages: list[_Built | AIMessageChunk] = []
    for n, delta in enumerate(deltas):
        if type(delta) is list:  # the common case first: the checks below cost per message
            messages.append(build(delta, n))
            continue
        if isinstance(delta, AIMessageChunk):
            messages.append(delta)
            continue
        if isinstance(delta, (str, bytes, dict)) or not isinstance(delta, Iterable):
            raise TooltapeUsageError(
                f"delta {n}: expected an AIMessageChunk or a list of ToolCallChunk dicts, "
                f"got {type(delta).__name__} {delta!r}"
            )
        messages.append(build(list(delta), n))
    return messages


def to_message_chunks(deltas: DeltasLike) -> list[AIMessageChunk]:
    """Turn any stream description into one ``AIMessageChunk`` per streamed message.

    The messages are built by langchain-core's validating constructor, so each
    carries the ``tool_calls`` it parses from its own fragments, as a chat model's.

    Raises:
        TooltapeUsageError: An element is neither a message chunk nor a list of
            ToolCallChunk dicts; the message names the delta and chunk.
    """
    return _messages(deltas, _validated)


def merge_result_from_message(message: AIMessage) -> MergeResult:
    """Describe an already merged message (the subject's output) as a :class:`MergeResult`."""
    chunks = list(message.tool_call_chunks) if isinstance(message, AIMessageChunk) else []
    valid: list[bool] | None = None
    if not chunks:
        valid = [True] * len(message.tool_calls) + [False] * len(message.invalid_tool_calls)
        chunks = [
            tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c.get("id"))
            for c in message.tool_calls
        ] + [
            tool_call_chunk(name=c.get("name"), args=c.get("args"), id=c.get("id"))
            for c in message.invalid_tool_calls
        ]
    return MergeResult(
        chunks=chunks,
        tool_calls=list(message.tool_calls),
        invalid_tool_calls=list(message.invalid_tool_calls),
        hazards=tuple(find_hazards(chunks, valid=valid)),
    )


def _finished(chunks: list[ToolCallChunk]) -> AIMessageChunk:
    """The message ``add_ai_message_chunks(..., last chunk)`` returns for merged ``chunks``.

    Built as langchain-core builds it, with the public, validating constructor and
    ``chunk_position="last"``, so its own validators parse each chunk's arguments into
    a valid or an invalid call. ``add_ai_message_chunks`` copies each merged chunk with
    ``tool_call_chunk(name, args, id, index)`` first; merging stored chunks gives dicts
    of exactly those keys, which validation copies alike.
    """
    return AIMessageChunk(content="", tool_call_chunks=chunks, chunk_position="last")


def reference_merge(deltas: DeltasLike) -> MergeResult:
    """Merge a stream exactly as langchain-core does and report what it made of it.

    Args:
        deltas: A :class:`PlannedStream`, a list of ``AIMessageChunk`` (as a chat
            model streams them), or a list of ``ToolCallChunk`` lists, one list
            per streamed message.

    Returns:
        The merged chunks, the valid and invalid tool calls, and the hazards.

    Linear in the stream's length: langchain-core's ``merge_lists`` run lane by lane,
    then the merged message's own validators (see the module docstring); the same
    result as one n-ary ``add_ai_message_chunks`` call.
    """
    built = _messages(deltas, _stored_row)
    if not built:
        return MergeResult(chunks=[], tool_calls=[], invalid_tool_calls=[])
    rows = [row.tool_call_chunks if isinstance(row, AIMessageChunk) else row for row in built]
    merged = _finished(merge_by_lane(rows))
    # langchain-core built these lists: validating them again cost a tenth of the merge
    # of 100,000 calls. The invalid calls (few) are, as that put their keys in the
    # order every MergeResult shows them.
    return MergeResult.model_construct(
        chunks=list(merged.tool_call_chunks),
        tool_calls=list(merged.tool_calls),
        invalid_tool_calls=_INVALID_CALLS.validate_python(merged.invalid_tool_calls),
        hazards=tuple(find_hazards(merged.tool_call_chunks, valid=validity(merged), stream=rows)),
    )


_INVALID_CALLS = TypeAdapter(list[InvalidToolCall])


def pairwise_merge(deltas: DeltasLike) -> AIMessageChunk | None:
    """Merge with ``full = full + chunk``, as many applications do. Quadratic; for comparisons."""
    messages = to_message_chunks(deltas)
    if not messages:
        return None
    merged: AIMessageChunk = functools.reduce(
        operator.add, [*messages, AIMessageChunk(content="", chunk_position="last")]
    )
    return merged
