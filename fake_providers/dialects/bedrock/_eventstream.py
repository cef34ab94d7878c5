"""The AWS binary event-stream framing (``application/vnd.amazon.eventstream``).

Bedrock's streaming operations (``ConverseStream``,
``InvokeModelWithResponseStream``) answer HTTP 200 with a body of binary
messages, not server-sent events
(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html).
Each message is::

    prelude    total length (uint32 BE), headers length (uint32 BE), CRC32 of those 8 bytes
    headers    per header: name length (uint8), name, value type (uint8), value
    payload    the event's bytes (JSON for Bedrock)
    trailer    CRC32 of everything before it (uint32 BE)

Bedrock sends three string headers on an event (``:event-type``,
``:content-type`` = ``application/json``, ``:message-type`` = ``event``) and
``:exception-type`` instead of ``:event-type`` on an exception
(``:message-type`` = ``exception``). :func:`encode_eventstream_message` writes string
headers; :func:`decode_eventstream` reads every header type the format defines and
checks both CRCs, as botocore's ``EventStreamBuffer`` does. Like botocore, it
keeps an incomplete message at the end of the body unread instead of failing.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EVENTSTREAM_MEDIA_TYPE",
    "EventStreamMessage",
    "InvalidEventStream",
    "decode_eventstream",
    "encode_eventstream_message",
    "iter_eventstream",
]

EVENTSTREAM_MEDIA_TYPE = "application/vnd.amazon.eventstream"
"""The response ``content-type`` of an AWS event stream."""

_PRELUDE = struct.Struct(">II")
_CRC = struct.Struct(">I")
_PRELUDE_LENGTH = _PRELUDE.size + _CRC.size
_MIN_MESSAGE = _PRELUDE_LENGTH + _CRC.size
_MAX_MESSAGE = 16 * 1024 * 1024  # botocore's limits
_MAX_HEADERS = 128 * 1024
_STRING = 7


class InvalidEventStream(ValueError):
    """The bytes are not a valid AWS event stream (bad lengths or CRCs)."""


@dataclass(frozen=True)
class EventStreamMessage:
    """One decoded event-stream message."""

    headers: dict[str, Any]
    """Header values by name (strings for Bedrock's headers)."""
    payload: bytes
    """The payload bytes."""
    raw: bytes = field(default=b"", repr=False)
    """The whole framed message."""

    @property
    def message_type(self) -> str | None:
        """The ``:message-type`` header: ``event``, ``exception`` or ``error``."""
        value = self.headers.get(":message-type")
        return value if isinstance(value, str) else None

    @property
    def event_type(self) -> str | None:
        """The ``:event-type`` header (for an exception, the ``:exception-type``)."""
        value = self.headers.get(":event-type", self.headers.get(":exception-type"))
        return value if isinstance(value, str) else None


def _crc32(data: bytes, start: int = 0) -> int:
    return zlib.crc32(data, start) & 0xFFFFFFFF


def _encode_headers(headers: Sequence[tuple[str, str]]) -> bytes:
    out = bytearray()
    for name, value in headers:
        encoded_name, encoded_value = name.encode("utf-8"), value.encode("utf-8")
        out += bytes([len(encoded_name)]) + encoded_name + bytes([_STRING])
        out += struct.pack(">H", len(encoded_value)) + encoded_value
    return bytes(out)


def encode_eventstream_message(headers: Sequence[tuple[str, str]], payload: bytes) -> bytes:
    """Frame one message: string ``headers`` (in order) and ``payload``, with both CRCs.

    Args:
        headers: ``(name, value)`` pairs, sent as string headers in this order.
        payload: The payload bytes.

    Returns:
        The framed message, ready to send.
    """
    encoded = _encode_headers(headers)
    total = _MIN_MESSAGE + len(encoded) + len(payload)
    prelude = _PRELUDE.pack(total, len(encoded))
    head = prelude + _CRC.pack(_crc32(prelude))
    body = head + encoded + payload
    return body + _CRC.pack(_crc32(body))


def _read_header_value(kind: int, data: bytes, at: int) -> tuple[Any, int]:
    """Decode one header value of type ``kind`` at ``at``; return it and the next offset."""
    fixed = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}
    if kind in (0, 1):
        return kind == 0, at
    if kind in fixed:
        fmt = struct.Struct(fixed[kind])
        return fmt.unpack_from(data, at)[0], at + fmt.size
    if kind in (6, _STRING):
        (length,) = struct.unpack_from(">H", data, at)
        raw = data[at + 2 : at + 2 + length]
        if len(raw) != length:
            raise InvalidEventStream("a header value runs past the headers")
        return (raw.decode("utf-8") if kind == _STRING else raw), at + 2 + length
    if kind == 9:
        return uuid.UUID(bytes=data[at : at + 16]), at + 16
    raise InvalidEventStream(f"unknown header value type {kind}")


def _decode_headers(data: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    at = 0
    try:
        while at < len(data):
            length = data[at]
            name = data[at + 1 : at + 1 + length].decode("utf-8")
            kind = data[at + 1 + length]
            headers[name], at = _read_header_value(kind, data, at + 2 + length)
    except (IndexError, struct.error, UnicodeDecodeError) as error:
        raise InvalidEventStream(f"malformed event-stream headers: {error}") from error
    return headers


def _decode_one(body: bytes, start: int) -> EventStreamMessage | None:
    """The message at ``start``, or ``None`` when the body ends before it does."""
    if len(body) - start < _PRELUDE_LENGTH:
        return None
    total, headers_length = _PRELUDE.unpack_from(body, start)
    (prelude_crc,) = _CRC.unpack_from(body, start + _PRELUDE.size)
    if _crc32(body[start : start + _PRELUDE.size]) != prelude_crc:
        raise InvalidEventStream(f"prelude CRC mismatch in the message at byte {start}")
    if not _MIN_MESSAGE + headers_length <= total <= _MAX_MESSAGE or headers_length > _MAX_HEADERS:
        raise InvalidEventStream(
            f"invalid lengths (total {total}, headers {headers_length}) at byte {start}"
        )
    if len(body) - start < total:
        return None
    raw = body[start : start + total]
    (message_crc,) = _CRC.unpack_from(raw, total - _CRC.size)
    if _crc32(raw[: total - _CRC.size]) != message_crc:
        raise InvalidEventStream(f"message CRC mismatch in the message at byte {start}")
    headers_end = _PRELUDE_LENGTH + headers_length
    headers = _decode_headers(raw[_PRELUDE_LENGTH:headers_end])
    return EventStreamMessage(headers, raw[headers_end : total - _CRC.size], raw)


def iter_eventstream(body: bytes) -> Iterator[EventStreamMessage]:
    """Yield the complete messages of ``body`` in order.

    Raises:
        InvalidEventStream: When a message's lengths or CRCs are wrong (raised on
            reaching it, after the messages before it were yielded, as botocore does).
    """
    start = 0
    while (message := _decode_one(body, start)) is not None:
        yield message
        start += len(message.raw)


def decode_eventstream(body: bytes) -> list[EventStreamMessage]:
    """The complete messages of ``body`` (an incomplete last message is left out).

    Raises:
        InvalidEventStream: When a message's lengths or CRCs are wrong.
    """
    return list(iter_eventstream(body))
