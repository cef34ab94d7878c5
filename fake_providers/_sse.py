"""Server-sent events and NDJSON: encode events to bytes and decode bytes to events.

The decoder follows the WHATWG event-stream rules (CR, LF and CRLF line ends,
comments, ``event``/``data``/``id``/``retry`` fields, multi-line ``data``, an
optional space after the colon), so it reads every framing quirk the dialects
can produce the way a conforming client does.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tooltape.harness.json_text import compact, loads

__all__ = [
    "SSEEvent",
    "decode_ndjson",
    "decode_sse",
    "encode_ndjson",
    "encode_sse",
    "openai_sdk_events",
    "sdk_line_events",
]

_LINE = re.compile(r"\r\n|\r|\n")
_LINE_BYTES = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched server-sent event."""

    data: str
    """The event's data (multi-line data joined with ``\\n``)."""
    event: str | None = None
    """The ``event:`` field, if any."""
    id: str | None = None
    """The ``id:`` field, if any."""

    def json(self) -> Any:
        """The data parsed as JSON."""
        return loads(self.data)


def encode_sse(data: str | dict[str, Any], event: str | None = None) -> bytes:
    """Frame one event as OpenAI and Anthropic do: ``event:`` line, ``data:`` line, blank line."""
    text = data if isinstance(data, str) else compact(data)
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {text}\n\n".encode()


def decode_sse(body: bytes | str, *, flush_at_eof: bool = False) -> list[SSEEvent]:
    """Decode an event stream into the events a conforming client dispatches.

    Blocks with no ``data`` field (comments, ``retry:``-only or ``id:``-only
    blocks) dispatch nothing, as the specification says. An event not closed by
    a blank line before the end of the body is discarded, as the specification
    and openai-python do, unless ``flush_at_eof`` is set (clients that flush).
    """
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    if text.startswith("\ufeff"):
        text = text[1:]
    events: list[SSEEvent] = []
    data: list[str] = []
    event: str | None = None
    last_id: str | None = None
    *lines, unterminated = _LINE.split(text)
    for line in lines:
        if not line:
            if data:
                events.append(SSEEvent(data="\n".join(data), event=event, id=last_id))
            data, event = [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = value
    if flush_at_eof and unterminated.startswith("data"):
        data.append(unterminated.partition(":")[2].removeprefix(" "))
    if data and flush_at_eof:
        events.append(SSEEvent(data="\n".join(data), event=event, id=last_id))
    return events


def encode_ndjson(obj: dict[str, Any]) -> bytes:
    """One JSON object on one line, as Ollama streams."""
    return (compact(obj) + "\n").encode()


def decode_ndjson(body: bytes | str) -> list[Any]:
    """Decode newline-delimited JSON, skipping blank lines."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    return [loads(line) for line in _LINE.split(text) if line.strip()]


def openai_sdk_events(body: bytes) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` pairs exactly as openai-python's ``SSEDecoder`` dispatches them.

    Lines end at CR, LF or CRLF and are decoded one at a time (see
    :func:`sdk_line_events`); an unterminated last line is decoded but never
    dispatched, so a broken character in it still raises ``UnicodeDecodeError``.
    Both OpenAI dialects and Anthropic's read bytes this way.
    """
    *lines, unterminated = _LINE_BYTES.split(body)
    yield from sdk_line_events(raw.decode("utf-8") for raw in lines)
    unterminated.decode("utf-8")  # read, never dispatched; a broken character still raises


def sdk_line_events(lines: Iterable[str]) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` pairs of the SSE decoders the provider SDKs share, from split lines.

    openai-python's and anthropic-sdk-python's ``SSEDecoder`` and the httpx-sse
    decoder of Cohere's SDK dispatch alike and, unlike :func:`decode_sse` (WHATWG),
    a block with only ``event:``, ``id:`` or ``retry:`` dispatches empty data, the
    last event id is never reset (so every blank line after an ``id:`` dispatches)
    and a byte-order mark is kept. They differ in how they split and decode lines,
    which their callers do.
    """
    event: str | None = None
    data: list[str] = []
    last_id: str | None = None
    retry: int | None = None
    for line in lines:
        if not line:
            if event or data or last_id or retry is not None:
                yield event, "\n".join(data)
                event, data, retry = None, [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id" and "\0" not in value:
            last_id = value
        elif name == "retry":
            with contextlib.suppress(ValueError):
                retry = int(value)
