"""Chat Completions stream bytes -> the tool-call chunks ``ChatOpenAI.stream()`` yields.

Parsing mirrors ``ChatOpenAI.stream()`` (langchain-openai 1.7) without importing
it: the openai SDK builds chunks with ``construct`` (declared fields absent from
the JSON read as ``None``: an index-less call gets ``index=None``) and the adapter
makes one ``AIMessageChunk`` of each chunk's ``choices[0]``. The SDK's SSE decoder
is not WHATWG's (:func:`~tooltape.fake_providers.decode_sse`); parse follows the SDK:
a block with only ``event:``/``id:``/``retry:`` dispatches empty data, and as the
last event id is never reset every blank line after an ``id:`` does too, so
``json.loads("")`` fails (https://github.com/openai/openai-python/issues/2722);
a byte-order mark is not stripped; ``[DONE]`` ends the stream; an object with a
truthy ``error`` raises ``APIError``
(https://github.com/apache/rocketmq-dashboard/issues/2178). An event not closed
by a blank line is dropped. Where the SDK or adapter raises,
:func:`read_chat_stream` keeps the deltas yielded before and names the exception.
The empty ``chunk_position="last"`` chunk ``ChatOpenAI`` ends with is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._sse import openai_sdk_events
from tooltape.fake_providers._stream_reading import StreamReading, raised
from tooltape.fake_providers.dialects.openai_chat._complete import chat_completion_deltas
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Delta, Deltas
from tooltape.harness.chunk_validation import stored_chunks
from tooltape.harness.json_text import loads

__all__ = ["parse_chat", "read_chat_stream"]


class _StreamAPIError(Exception):
    """Stands for ``openai.APIError``, raised by the SDK on an ``error`` object."""


def parse_chat(body: bytes) -> Deltas:
    """The deltas ``ChatOpenAI.stream()`` yields from ``body`` (up to any exception).

    Use :func:`read_chat_stream` to learn whether, and how, the stream raised.
    A non-streamed chat completion body gives one message of whole calls.
    """
    if (document := json_document(body)) is not None:
        return chat_completion_deltas(document)
    return read_chat_stream(body).deltas


def read_chat_stream(body: bytes) -> StreamReading:
    """Read a Chat Completions SSE ``body`` the way openai-python and ``ChatOpenAI`` do."""
    return _read_chunks(_sdk_payloads(body))


def _sdk_payloads(body: bytes) -> Iterator[tuple[str | None, Any]]:
    """The SDK's ``(event, decoded data)`` pairs, up to ``[DONE]``; bad JSON raises here."""
    for event, data in openai_sdk_events(body):
        if data.startswith("[DONE]"):
            return
        yield event, loads(data)


def _read_chunks(chunks: Iterable[tuple[str | None, Any]]) -> StreamReading:
    deltas: Deltas = []
    human = [False]
    try:
        for event, payload in chunks:
            if event and event.startswith("thread."):
                deltas.append([])  # wrapped as {"data", "event"}: a chunk without choices
                continue
            if isinstance(payload, dict) and payload.get("error"):
                raise _StreamAPIError(_stream_error_message(payload["error"]))
            if not isinstance(payload, dict):
                raise AttributeError(
                    f"'{type(payload).__name__}' object has no attribute 'model_dump'"
                )
            delta = _adapter_delta(payload, human)
            if delta is not None:
                deltas.append(delta)
    except _StreamAPIError as error:
        return raised(deltas, error, "APIError")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        return raised(deltas, error)
    return StreamReading(deltas)


def _stream_error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else "An error occurred during streaming"


def _sdk_get(value: Any, key: str) -> Any:
    """``value[key]`` after the SDK filled declared-but-absent fields of objects with ``None``."""
    return value.get(key) if isinstance(value, dict) else value[key]


def _adapter_delta(chunk: dict[str, Any], human: list[bool]) -> Delta | None:
    """``ChatOpenAI``'s conversion of one SDK chunk (``None``: the adapter skips it).

    The expressions are the adapter's own, so a malformed chunk raises where it does.
    """
    if chunk.get("type") == "content.delta":
        return None
    usage = chunk.get("usage")
    choices = chunk.get("choices", []) or chunk.get("chunk", {}).get("choices", [])
    if usage:
        usage.get("prompt_tokens")  # _create_usage_metadata reads it: non-objects raise
    if len(choices) == 0:
        return []
    delta = _sdk_get(choices[0], "delta")
    if delta is None:
        return None
    content = delta.get("content") or ""
    if delta.get("function_call"):
        dict(delta["function_call"])
    chunks = []
    if raw_tool_calls := delta.get("tool_calls"):
        chunks = [
            tool_call_chunk(
                name=_sdk_get(rtc, "function").get("name"),
                args=_sdk_get(rtc, "function").get("arguments"),
                id=rtc.get("id"),
                index=_sdk_get(rtc, "index"),
            )
            for rtc in raw_tool_calls
        ]
    if delta.get("role") == "user" or human[0]:
        human[0] = True  # a HumanMessageChunk, and the default class for every later chunk
        return []
    message_id = delta.get("id")
    if type(content) is str and (message_id is None or type(message_id) is str):
        plain = stored_chunks(chunks)  # what validation would leave, without its cost
        if plain is not None:
            return plain
    message = AIMessageChunk(content=content, id=delta.get("id"), tool_call_chunks=chunks)
    return list(message.tool_call_chunks)
