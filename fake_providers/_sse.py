"""Server-sent events and NDJSON: encode events to bytes and decode bytes to events.

The decoder follows the WHATWG event-stream rules (CR, LF and CRLF line ends,
comments, ``event``/``data``/``id``/``retry`` fields, multi-line ``data``, an
optional space after the colon), so it reads every framing quirk the dialects
can produce the way a conforming client does.
"""

from __future__ import annotations

import contextlib
import json
import json.encoder
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SSEEvent",
    "decode_ndjson",
    "decode_sse",
    "encode_ndjson",
    "encode_sse",
    "frame_data",
    "openai_sdk_events",
    "plain_data_frames",
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
        return json.loads(self.data)


def _compact_encoder() -> Callable[[Any], str]:
    r"""``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, built once.

    Real providers send non-ASCII as raw UTF-8, not as ``\u`` escapes. Every
    rendered event goes through here: ``JSONEncoder.encode`` builds its C encoder
    anew on each call (a third of the cost of a chunk's JSON), so the C encoder it
    builds is made once, with the arguments ``encode`` gives it but no circular
    check (event data is never circular; a cycle raises ``RecursionError``, as with
    ``check_circular=False``). Without the C module, ``encode`` itself.
    """
    options = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
    if make is None:
        return options.encode
    encode = make(
        None,
        options.default,
        json.encoder.encode_basestring,
        None,
        options.key_separator,
        options.item_separator,
        options.sort_keys,
        options.skipkeys,
        options.allow_nan,
    )
    return lambda value: "".join(encode(value, 0))


_compact_json = _compact_encoder()


def encode_sse(data: str | dict[str, Any], event: str | None = None) -> bytes:
    """Frame one event as OpenAI and Anthropic do: ``event:`` line, ``data:`` line, blank line."""
    text = data if isinstance(data, str) else _compact_json(data)
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


def openai_sdk_events(body: bytes) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` pairs exactly as openai-python's ``SSEDecoder`` dispatches them.

    Unlike :func:`decode_sse` (WHATWG), a block with only ``event:``, ``id:`` or
    ``retry:`` dispatches empty data, the last event id is never reset (so every
    blank line after an ``id:`` dispatches), a byte-order mark is kept, and an
    unterminated last line is decoded but never dispatched (a broken character in
    it still raises ``UnicodeDecodeError``). Both OpenAI dialects read bytes this way.
    """
    frames = plain_data_frames(body)
    if frames is not None:
        for frame in frames:
            yield None, frame_data(frame)
        return
    yield from _sdk_events_line_by_line(body)


def plain_data_frames(body: bytes) -> list[str] | None:
    """The events of a body of one-line ``data:`` events (LF only), else ``None``.

    The common body, rendered or recorded: each event is one ``data:`` line and a
    blank line, and the body ends with one. Every SSE decoder dispatches exactly the
    data of these lines, so readers cut them out in one pass instead of line by line.
    Each frame is returned without its line end and blank line (see :func:`frame_data`).
    """
    if not body.endswith(b"\n\n") or b"\r" in body or b"\n\n\n" in body or body[:1] == b"\n":
        return None
    try:
        frames = body[:-2].decode("utf-8").split("\n\n")
    except UnicodeDecodeError:
        return None  # line by line, where the broken line raises as the SDK's decoder does
    for frame in frames:
        if not frame.startswith("data:") or "\n" in frame:
            return None
    return frames


def frame_data(frame: str) -> str:
    """The data of one ``data:`` line (the one space after the colon dropped)."""
    return frame[6:] if frame[5:6] == " " else frame[5:]


def _sdk_events_line_by_line(body: bytes) -> Iterator[tuple[str | None, str]]:
    """:func:`openai_sdk_events`, one line at a time as the SDK's decoder reads them."""
    event: str | None = None
    data: list[str] = []
    last_id: str | None = None
    retry: int | None = None
    *lines, unterminated = _LINE_BYTES.split(body)
    for raw in lines:
        line = raw.decode("utf-8")
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
    unterminated.decode("utf-8")  # read, never dispatched; a broken character still raises
