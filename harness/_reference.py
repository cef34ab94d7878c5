"""The reference oracle: langchain-core's own merge, run message by message.

Nothing here re-implements merging. Each streamed message becomes an
``AIMessageChunk`` and langchain-core's n-ary ``add_ai_message_chunks`` folds
them in one call, followed by the ``chunk_position="last"`` chunk that chat
models emit at the end of a stream. The n-ary form matters: ``full = full +
chunk`` re-parses the accumulated arguments at every step and is quadratic,
while one n-ary call parses once. :func:`pairwise_merge` keeps the slow form
for comparisons; the test suite proves the two agree.
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias, cast

from langchain_core.messages import AIMessage, AIMessageChunk, ToolCallChunk
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.messages.tool import tool_call_chunk
from pydantic import ValidationError

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._hazards import find_hazards
from tooltape.harness._lane_merge import chunk_rows, lane_count, merge_by_lane, validity
from tooltape.harness._models import MergeResult

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
    unknown = set(value) - _CHUNK_KEYS
    if unknown:
        raise TooltapeUsageError(
            f"delta {message}, chunk {position}: unknown key(s) {sorted(unknown)}; a "
            f"ToolCallChunk has name, args, id and index (got {value!r})"
        )
    return cast(ToolCallChunk, {**value, "type": "tool_call_chunk"})


def to_message_chunks(deltas: DeltasLike) -> list[AIMessageChunk]:
    """Turn any stream description into one ``AIMessageChunk`` per streamed message.

    Raises:
        TooltapeUsageError: An element is neither a message chunk nor a list of
            ToolCallChunk dicts; the message names the delta and chunk.
    """
    if isinstance(deltas, PlannedStream):
        deltas = deltas.deltas()
    if isinstance(deltas, (str, bytes, dict)):
        raise TooltapeUsageError(
            "deltas must be a list of messages or of ToolCallChunk lists, "
            f"got {type(deltas).__name__}"
        )
    messages: list[AIMessageChunk] = []
    for n, delta in enumerate(deltas):
        if isinstance(delta, AIMessageChunk):
            messages.append(delta)
            continue
        if isinstance(delta, (str, bytes, dict)) or not isinstance(delta, Iterable):
            raise TooltapeUsageError(
                f"delta {n}: expected an AIMessageChunk or a list of ToolCallChunk dicts, "
                f"got {type(delta).__name__} {delta!r}"
            )
        chunks = [_chunk(value, n, m) for m, value in enumerate(delta)]
        try:
            messages.append(AIMessageChunk(content="", tool_call_chunks=chunks))
        except ValidationError as error:
            raise TooltapeUsageError(
                f"delta {n}: langchain-core rejects its chunks: {error}"
            ) from None
    return messages


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


def _last() -> AIMessageChunk:
    return AIMessageChunk(content="", chunk_position="last")


def reference_merge(deltas: DeltasLike) -> MergeResult:
    """Merge a stream exactly as langchain-core does and report what it made of it.

    Args:
        deltas: A :class:`PlannedStream`, a list of ``AIMessageChunk`` (as a chat
            model streams them), or a list of ``ToolCallChunk`` lists, one list
            per streamed message.

    Returns:
        The merged chunks, the valid and invalid tool calls, and the hazards.

    Linear in the stream's length: one n-ary ``add_ai_message_chunks`` call, or, for
    a stream with many indexes, langchain-core's merge run lane by lane
    (:mod:`tooltape.harness._lane_merge`), which gives the same chunks.
    """
    rows, messages = chunk_rows(deltas), None
    if rows is None:
        messages = to_message_chunks(deltas)
        rows = [list(message.tool_call_chunks) for message in messages]
    if not rows:
        return MergeResult(chunks=[], tool_calls=[], invalid_tool_calls=[])
    if lane_count(rows) > _LANES_MERGED_WHOLE:
        whole = AIMessageChunk(content="", tool_call_chunks=merge_by_lane(rows))
        merged = add_ai_message_chunks(whole, _last())
    else:
        messages = messages or to_message_chunks(deltas)
        merged = add_ai_message_chunks(messages[0], *messages[1:], _last())
    return MergeResult(
        chunks=list(merged.tool_call_chunks),
        tool_calls=list(merged.tool_calls),
        invalid_tool_calls=list(merged.invalid_tool_calls),
        hazards=tuple(find_hazards(merged.tool_call_chunks, valid=validity(merged))),
    )


_LANES_MERGED_WHOLE = 32
"""Up to this many indexes, one n-ary call; beyond, lane by lane (its scan is quadratic)."""


def pairwise_merge(deltas: DeltasLike) -> AIMessageChunk | None:
    """Merge with ``full = full + chunk``, as many applications do. Quadratic; for comparisons."""
    messages = to_message_chunks(deltas)
    if not messages:
        return None
    merged: AIMessageChunk = functools.reduce(operator.add, [*messages, _last()])
    return merged
