"""Cut a recorded body back into its framed events, and re-frame it with wire quirks.

A body is cut where its framing says one event ends: after the blank line
that dispatches a server-sent event (any of LF, CRLF or CR line ends), after
each line of newline-delimited JSON, after each length-prefixed AWS
event-stream message. The frames keep every byte, so joining them gives the
body back; wire quirks (``split_reads``, ``line_endings``...) then apply to a
recording exactly as they apply to a rendered stream.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from typing import Literal

from tooltape.fake_providers import Wire
from tooltape.fake_providers.framing import apply_wire_quirks
from tooltape.harness import Quirk

__all__ = ["Framing", "framing_of", "reframe", "split_frames"]

Framing = Literal["sse", "ndjson", "eventstream", "json", "other"]

_SSE_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def framing_of(content_type: str) -> Framing:
    """The framing a ``content-type`` announces."""
    kind = content_type.lower()
    if "event-stream" in kind and "amazon" not in kind:
        return "sse"
    if "amazon.eventstream" in kind:
        return "eventstream"
    if "ndjson" in kind or "jsonl" in kind or "x-ndjson" in kind:
        return "ndjson"
    return "json" if "json" in kind else "other"


def split_frames(body: bytes, content_type: str, framing: Framing | None = None) -> list[bytes]:
    """Cut ``body`` into framed events (joined, they give ``body`` back byte for byte)."""
    kind = framing or framing_of(content_type)
    if kind == "sse":
        return _sse_frames(body)
    if kind == "ndjson":
        return [line for line in body.splitlines(keepends=True) if line]
    if kind == "eventstream":
        return _eventstream_frames(body)
    return [body] if body else []


_SSE_FRAME = re.compile(rb"(?:[^\r\n]+(?:\r\n|\r|\n))*+(?:\r\n|\r|\n)")
"""One whole event: lines with text, then the blank line. The repetition is possessive,
so lines are cut as ``_SSE_LINE`` cuts them (CRLF before CR) and never re-cut to find
a blank line that is not there (``a\r\nb`` is one unterminated event, not ``a\r`` + ``\n``)."""


def _sse_frames(body: bytes) -> list[bytes]:
    if b"\r" not in body and b"\n\n\n" not in body and not body.startswith(b"\n"):
        # The common body: LF only, no empty frame. Each LF LF then ends a line of text and
        # the blank line after it, so cutting there is the regex's cut, three times faster.
        *whole, tail = body.split(b"\n\n")
        return [frame + b"\n\n" for frame in whole] + ([tail] if tail else [])
    whole = _SSE_FRAME.findall(body)  # one C loop; right when the frames tile the body
    if sum(map(len, whole)) == len(body):
        return whole
    frames: list[bytes] = []
    position, size = 0, len(body)
    while position < size:
        match = _SSE_FRAME.match(body, position)
        if match is None:  # no blank line follows: an unterminated last event
            frames.append(body[position:])
            break
        frames.append(match.group())
        position = match.end()
    return frames


def _eventstream_frames(body: bytes) -> list[bytes]:
    """AWS event-stream messages: each starts with its total length (4 bytes, big endian)."""
    frames, position = [], 0
    while position + 4 <= len(body):
        (length,) = struct.unpack_from(">I", body, position)
        if length < 16 or position + length > len(body):
            break  # not a whole message: keep the rest as one piece
        frames.append(body[position : position + length])
        position += length
    if position < len(body):
        frames.append(body[position:])
    return frames


def reframe(
    body: bytes,
    headers: tuple[tuple[str, str], ...],
    quirks: Sequence[Quirk],
    *,
    seed: int = 0,
    status: int = 200,
) -> Wire:
    """The recorded body re-cut (and re-framed) by wire quirks, as a :class:`Wire`.

    Raises:
        TooltapeUsageError: A quirk that is not a wire quirk, or an SSE-only quirk on
            another framing.
    """
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    frames = split_frames(body, content_type)
    wire = apply_wire_quirks(frames, quirks, seed=seed, headers=headers)
    if status != 200:
        from dataclasses import replace

        wire = replace(wire, status=status)
    return wire
