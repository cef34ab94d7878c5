"""Shared helpers for the per-dialect tests that stream through a real LangChain adapter.

``collect`` and ``acollect`` read a chat model's stream until it ends or raises and
return what arrived with the error, so a test can pin both; ``adapter_messages``
drops the empty closing chunk that langchain-core (not the adapter) appends, so the
rest lines up one-to-one with a dialect's parsed deltas.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

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
