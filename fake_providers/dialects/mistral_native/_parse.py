"""What ``ChatMistralAI`` (langchain-mistralai 1.1) yields from a chat completions SSE body.

Mirrored without importing it: httpx-sse 0.4 dispatches an event at each blank
line after any field, ``retry:`` and a sticky ``id:`` included, so a retry-only
block is an event with empty data (an event not closed by a blank line is
dropped); ``[DONE]`` ends the stream, every
other event is ``json.loads``-ed, chunks with no ``choices`` are skipped and
each remaining chunk becomes one ``AIMessageChunk``. Its ``tool_call_chunks``
come from ``_convert_chunk_to_message_chunk``: for each ``delta.tool_calls``
entry, name and arguments text from ``function``, ``index`` as sent, and the
wire's id, except that an entry with neither a truthy index nor an id gets a
fresh ``uuid4().hex`` (so an index-0 continuation gets a foreign id). An entry
without ``function`` raises ``KeyError``, which the adapter swallows, keeping the
entries before it. parse mints deterministic uuid4-shaped 32-hex stand-ins for those uuids,
so compare minted ids by position, never by value. langchain-core's empty
``chunk_position="last"`` chunk is left out. ``.astream()`` yields the same.

A non-streamed ``chat.completion`` body is what ``ChatMistralAI.invoke()`` reads:
one message of whole calls, a call without an id given a minted one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._stand_in_ids import StandInUuids
from tooltape.fake_providers._stream_reading import StreamReading, ended, raised
from tooltape.fake_providers.non_streaming import call_deltas, json_document
from tooltape.harness import Delta, Deltas
from tooltape.harness.json_text import loads

__all__ = ["parse_mistral", "read_mistral_stream"]


def parse_mistral(body: bytes) -> Deltas:
    """The deltas ``ChatMistralAI.stream()`` yields from ``body`` (up to any exception).

    Ids ChatMistralAI mints (``uuid4().hex``, for entries with neither id nor a
    truthy index) are deterministic stand-ins here; use :func:`read_mistral_stream`
    to learn whether, and how, the stream raised.
    """
    return read_mistral_stream(body).deltas


def read_mistral_stream(body: bytes) -> StreamReading:
    """Read a Mistral SSE ``body`` the way httpx-sse and ``ChatMistralAI`` do."""
    deltas: Deltas = []
    stand_ins = StandInUuids(body)

    def minted() -> str:  # ChatMistralAI's uuid4().hex
        return stand_ins().hex

    if isinstance(document := json_document(body), dict):
        return StreamReading(_completion_deltas(document, minted))
    try:
        for data in _httpx_sse_data(body.decode("utf-8", errors="replace")):
            if data == "[DONE]":
                break
            chunk = loads(data)
            if not chunk.get("choices"):
                continue
            deltas.append(_adapter_delta(chunk["choices"][0]["delta"], minted))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        return raised(deltas, error)
    return ended(deltas)  # langchain-core refuses an empty generation


def _httpx_sse_data(text: str) -> list[str]:
    """The ``data`` of each event httpx-sse's ``SSEDecoder`` dispatches from ``text``."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]
    out: list[str] = []
    data: list[str] = []
    pending, last_id = False, False  # a field since the last dispatch; an id ever seen
    for line in lines:
        if not line:
            if pending or data or last_id:
                out.append("\n".join(data))
            data, pending = [], False
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            pending = pending or bool(value)
        elif name == "id" and "\0" not in value:
            last_id = last_id or bool(value)
        elif name == "retry" and value.isdigit():
            pending = True
    return out


def _completion_deltas(body: dict[str, Any], minted: Callable[[], str]) -> Deltas:
    """The tool-call chunks ``ChatMistralAI.invoke()`` builds from a chat completion."""
    choice = (body.get("choices") or [{}])[0]
    message = (choice if isinstance(choice, dict) else {}).get("message") or {}
    calls = [c for c in message.get("tool_calls") or () if isinstance(c, dict)]
    return call_deltas(
        (
            (c.get("function") or {}).get("name"),
            (c.get("function") or {}).get("arguments") or "",
            c.get("id") or minted(),
        )
        for c in calls
    )


def _adapter_delta(delta: dict[str, Any], minted: Callable[[], str]) -> Delta:
    """The ``tool_call_chunks`` of ChatMistralAI's chunk for one ``delta``."""
    chunks: Delta = []
    for raw in delta.get("tool_calls") or ():
        call_id = raw.get("id")
        if not raw.get("index") and not call_id:
            call_id = minted()
        if "function" not in raw:
            break  # the adapter's ``except KeyError: pass`` keeps what came before
        function = raw["function"]
        chunks.append(
            tool_call_chunk(
                name=function.get("name"),
                args=function.get("arguments"),
                id=call_id,
                index=raw.get("index"),
            )
        )
    return chunks
