"""Shared helpers for the per-dialect tests that stream through a real LangChain adapter.

``collect`` and ``acollect`` read a chat model's stream until it ends or raises and
return what arrived with the error, so a test can pin both; ``adapter_messages``
drops the empty closing chunk that langchain-core (not the adapter) appends, so the
rest lines up one-to-one with a dialect's parsed deltas; ``by_position`` names the
ids adapters mint at random by their order, so they compare with parse's stand-ins.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langchain_core.messages import AIMessageChunk

Caught = type[BaseException] | tuple[type[BaseException], ...]


def collect(
    open_stream: Callable[[], Iterator[AIMessageChunk]], raises: Caught = Exception
) -> tuple[list[AIMessageChunk], BaseException | None]:
    """The chunks ``open_stream()`` yields, and the ``raises`` error that ended it, if any."""
    chunks: list[AIMessageChunk] = []
    try:
        chunks.extend(open_stream())
    except raises as error:  # the caller pins what was raised
        return chunks, error
    return chunks, None


async def acollect(
    open_stream: Callable[[], AsyncIterator[AIMessageChunk]], raises: Caught = Exception
) -> tuple[list[AIMessageChunk], BaseException | None]:
    """:func:`collect` for ``astream``."""
    chunks: list[AIMessageChunk] = []
    try:
        async for chunk in open_stream():
            chunks.append(chunk)
    except raises as error:
        return chunks, error
    return chunks, None


def adapter_messages(chunks: list[AIMessageChunk]) -> list[AIMessageChunk]:
    """``chunks`` without the empty ``chunk_position="last"`` chunk langchain-core appends."""
    if chunks and _appended_by_langchain_core(chunks[-1]):
        return chunks[:-1]
    return chunks


def _appended_by_langchain_core(chunk: AIMessageChunk) -> bool:
    return (
        chunk.chunk_position == "last"
        and not chunk.content
        and not chunk.tool_call_chunks
        and not chunk.response_metadata
    )


MINTED_ID = re.compile(
    r"[0-9a-f]{8}(-?)[0-9a-f]{4}(?:\1)4[0-9a-f]{3}\1[89ab][0-9a-f]{3}\1[0-9a-f]{12}$"
)
"""An id an adapter mints: a uuid4, dashed (ChatOllama, ChatCohere) or ``.hex`` (ChatMistralAI)."""


def quirk_id(quirks: list[Any]) -> str:
    """A parametrize id for a quirk list: the kinds joined by ``+`` (``none`` when empty)."""
    return "+".join(q if isinstance(q, str) else q["kind"] for q in quirks) or "none"


def by_position(items: Any) -> Any:
    """``items`` with every minted id (:data:`MINTED_ID`) named by its order of first appearance.

    Adapters mint random ids where the wire has none and a dialect's parse mints
    deterministic stand-ins; compared by position, the two agree.
    """
    names: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, str) and MINTED_ID.match(value):
            return names.setdefault(value, f"<minted {len(names)}>")
        return value

    return walk(items)


def without_ids(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls' names and arguments only."""
    return [{"name": c["name"], "args": c["args"]} for c in calls]
