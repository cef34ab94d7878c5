"""Server-sent events and NDJSON: encode events to bytes and decode bytes to events.

The decoder follows the WHATWG event-stream rules (CR, LF and CRLF line ends,
comments, ``event``/``data``/``id``/``retry`` fields, multi-line ``data``, an
optional space after the colon), so it reads every framing quirk the dialects
can produce the way a conforming client does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["SSEEvent", "decode_ndjson", "decode_sse", "encode_ndjson", "encode_sse"]

_LINE = re.compile(r"\r\n|\r|\n")


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
        return json.loads(self.data)


def encode_sse(data: str | dict[str, Any], event: str | None = None) -> bytes:
    """Frame one event as OpenAI and Anthropic do: ``event:`` line, ``data:`` line, blank line."""
    # Real providers send non-ASCII as raw UTF-8, not as \u escapes.
    text = (
        data
        if isinstance(data, str)
        else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    )
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
    return (json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def decode_ndjson(body: bytes | str) -> list[Any]:
    """Decode newline-delimited JSON, skipping blank lines."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    return [json.loads(line) for line in _LINE.split(text) if line.strip()]


def iter_json_events(events: Iterable[SSEEvent]) -> list[Any]:
    """The JSON payloads of events, skipping the ``[DONE]`` sentinel."""
    return [e.json() for e in events if e.data.strip() != "[DONE]"]
