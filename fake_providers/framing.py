"""Byte-level framing: how framed events are cut into reads, and the read-level quirks.

A dialect frames each provider event into bytes; :func:`apply_wire_quirks`
then reshapes those frames the way real servers and proxies do (keep-alive
comments, an error inside a 200 stream: https://openrouter.ai/docs/api-reference/streaming).
Quirks run in a fixed pipeline, whatever order they are listed in: first
the frame edits (events dropped or added, field lines rewritten, line endings,
the end of the body; see :mod:`tooltape.fake_providers._sse_quirks`), then the
cut into reads (one event per read unless a quirk here regroups or splits
them). Every choice is drawn from ``Random(f"{seed}:{kind}")``, so a seed
always gives the same bytes and the same read boundaries.

SSE-only quirks refuse other framings with a :class:`TooltapeUsageError`;
``events_per_read``, ``split_reads``, ``split_utf8`` and ``close_mid_event``
work on any bytes.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import ClassVar

from pydantic import Field

from tooltape.fake_providers._sse import decode_sse
from tooltape.fake_providers._wire import Wire
from tooltape.harness import Quirk, Stage, TooltapeUsageError, evidence

__all__ = [
    "PEER_CLOSED",
    "AbortedWire",
    "CloseMidEvent",
    "EventsPerRead",
    "SplitReads",
    "SplitUtf8",
    "WireQuirk",
    "apply_wire_quirks",
    "is_done_frame",
]

PEER_CLOSED = (
    "peer closed connection without sending complete message body (incomplete chunked read)"
)
"""What h11 (under httpx and httpx2) raises when a chunked body stops short."""


@dataclass(frozen=True)
class AbortedWire(Wire):
    """A wire whose connection drops after the last read, before the body is complete.

    Transports raise their HTTP stack's real read error after the last read
    (``RemoteProtocolError`` with :data:`PEER_CLOSED`); the real server aborts
    the connection.
    """

    error: str = PEER_CLOSED
    """The message of the read error a client sees."""


class WireQuirk(Quirk, stage=Stage.WIRE):
    """Base of the wire quirks: edit the framed events, then the reads."""

    order: ClassVar[int]
    """Position in the pipeline (lower runs first)."""
    sse_only: ClassVar[bool] = True
    """True when the quirk only makes sense for server-sent events."""
    aborts: ClassVar[bool] = False
    """True when the connection drops after the last read (the wire is an AbortedWire)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Return the framed events with this quirk applied (default: unchanged)."""
        return frames

    def edit_reads(self, reads: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Return the reads with this quirk applied (default: unchanged)."""
        return reads


def is_done_frame(frame: bytes) -> bool:
    """True when the frame is the ``data: [DONE]`` sentinel."""
    events = decode_sse(frame, flush_at_eof=True)
    return len(events) == 1 and events[0].data.strip() == "[DONE]"


def _is_data_event(frame: bytes) -> bool:
    """True when the SSE frame dispatches an event other than ``[DONE]``."""
    return bool(decode_sse(frame, flush_at_eof=True)) and not is_done_frame(frame)


@evidence(
    "proxy resets, timeouts, upstream crashes",
    "2389-research/tracker#544 openai/openai-openapi/pull/248",
)
class CloseMidEvent(WireQuirk, kind="close_mid_event", lossless=False, sse_only=False, aborts=True):
    """Drop the connection partway through an event.

    The body stops inside the chosen event and the connection closes before
    the chunked body ends, so a client's HTTP stack raises its read error
    (``RemoteProtocolError: peer closed connection ...``) after the last bytes.
    """

    order: ClassVar[int] = 50

    frame: int | None = None
    """Which framed block is cut (negative counts from the end; ``None``: the last data
    event that is not ``[DONE]``)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Cut the chosen frame at a random point and drop every later one."""
        if not frames:
            return frames
        if self.frame is None:
            events = [n for n, f in enumerate(frames) if framing != "sse" or _is_data_event(f)]
            position = events[-1] if events else len(frames) - 1
        elif -len(frames) <= self.frame < len(frames):
            position = self.frame % len(frames)
        else:
            raise TooltapeUsageError(
                f"close_mid_event names frame {self.frame}, but the body has {len(frames)} frames"
            )
        frame = frames[position]
        cut = rng.randint(1, len(frame) - 2) if len(frame) > 2 else 1
        return [*frames[:position], frame[:cut]]


# --- read edits ----------------------------------------------------------------------


@evidence("any buffering proxy", "graniet/llm/pull/90")
class EventsPerRead(WireQuirk, kind="events_per_read", sse_only=False):
    """Deliver ``n`` events per read instead of one (how busy proxies flush)."""

    order: ClassVar[int] = 60

    n: int = Field(default=2, ge=1)
    """Events joined into each read."""

    def edit_reads(self, reads: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Join consecutive reads in groups of ``n``."""
        return [b"".join(reads[i : i + self.n]) for i in range(0, len(reads), self.n)]


@evidence("graniet/llm #90, zotero-pdf-translate #806", "graniet/llm/pull/90")
class SplitReads(WireQuirk, kind="split_reads", sse_only=False):
    """Split every read at random points, even between ``data:`` and its payload."""

    order: ClassVar[int] = 61

    pieces: int = Field(default=3, ge=2)
    """How many reads each read becomes (at most)."""
    after_field: bool = True
    """Always cut right after the first ``data:`` of an SSE read."""

    def edit_reads(self, reads: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Cut each read into up to ``pieces`` reads."""
        out: list[bytes] = []
        for read in reads:
            cuts = set(rng.sample(range(1, len(read)), min(self.pieces - 1, len(read) - 1)))
            field = read.find(b"data:")
            if self.after_field and framing == "sse" and 0 <= field < len(read) - 5:
                cuts.add(field + 5)
            out.extend(_cut(read, cuts))
        return out


@evidence("Fabric #2203, liter-llm #152, utopia #764", "danielmiessler/Fabric/pull/2203")
class SplitUtf8(WireQuirk, kind="split_utf8", sse_only=False):
    r"""Split multi-byte UTF-8 characters across reads (https://github.com/danielmiessler/Fabric/pull/2203).

    JSON text goes out as raw UTF-8 first (``\u00e9`` becomes ``é``, as
    OpenAI and Anthropic send it), then up to ``per_read`` characters of each
    read are cut between their bytes. Reads without non-ASCII text are left
    whole, so plan some non-ASCII text or arguments.
    """

    order: ClassVar[int] = 62

    per_read: int = Field(default=1, ge=1)
    """How many characters of each read are cut."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Un-escape non-ASCII characters in text framings."""
        if framing == "binary":
            return frames
        return [_ESCAPE.sub(_unescape, frame) for frame in frames]

    def edit_reads(self, reads: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Cut inside randomly chosen multi-byte characters."""
        out: list[bytes] = []
        for read in reads:
            chars = list(_MULTIBYTE.finditer(read))
            chosen = rng.sample(chars, min(self.per_read, len(chars)))
            out.extend(_cut(read, {m.start() + rng.randint(1, len(m[0]) - 1) for m in chosen}))
        return out


_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")
_ESCAPE = re.compile(
    rb"\\\\|\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\u([0-9a-f]{4})", re.IGNORECASE
)


_LINE_SEPARATORS = (0x2028, 0x2029)
"""Kept escaped: some decoders split lines on them (httpx's line iterator does)."""


def _unescape(match: re.Match[bytes]) -> bytes:
    high, low, single = match.groups()
    if high:
        point = 0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00
    elif single and (
        int(single, 16) >= 0x80
        and not 0xD800 <= int(single, 16) < 0xE000
        and int(single, 16) not in _LINE_SEPARATORS
    ):
        point = int(single, 16)
    else:
        return match[0]  # an escaped backslash, an ASCII control character, a lone surrogate
    return chr(point).encode()


def _cut(data: bytes, cuts: set[int]) -> list[bytes]:
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


# --- the pipeline --------------------------------------------------------------------

_ANY_BODY = "events_per_read, split_reads, split_utf8, close_mid_event"


def _framing_of(headers: tuple[tuple[str, str], ...]) -> str:
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "").lower()
    if "event-stream" in content_type:
        return "sse"
    return "json" if "json" in content_type else "binary"


def _checked(quirk: Quirk, framing: str, content_type: str) -> WireQuirk:
    if not isinstance(quirk, WireQuirk):
        raise TooltapeUsageError(f"{quirk.kind!r} is not a wire quirk (WireQuirk subclass)")
    if quirk.sse_only and framing != "sse":
        raise TooltapeUsageError(
            f"wire quirk {quirk.kind!r} rewrites server-sent events, but this body is "
            f"{content_type or 'untyped'}; quirks that work on any body: {_ANY_BODY}"
        )
    return quirk


def apply_wire_quirks(
    frames: list[bytes],
    quirks: Sequence[Quirk],
    *,
    seed: int,
    headers: tuple[tuple[str, str], ...],
) -> Wire:
    """Cut frames into reads, one event per read, with the wire quirks applied.

    Args:
        frames: The framed events in order (SSE blocks, NDJSON lines, ...).
        quirks: Wire quirks, in any order: they run in their fixed pipeline order.
        seed: Fixes every random choice.
        headers: The response headers; the ``content-type`` tells SSE from other bodies.

    Returns:
        The wire; an :class:`AbortedWire` when ``close_mid_event`` cut the body.

    Raises:
        TooltapeUsageError: An SSE-only quirk on another framing, or not a wire quirk.
    """
    if not quirks:  # one read per event (every matrix cell without a wire quirk)
        return Wire(reads=tuple(frame for frame in frames if frame), headers=headers)
    framing = _framing_of(headers)
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    ordered = sorted((_checked(q, framing, content_type) for q in quirks), key=lambda q: q.order)
    rngs = [Random(f"{seed}:{q.kind}") for q in ordered]
    edited = list(frames)
    for quirk, rng in zip(ordered, rngs, strict=True):
        edited = quirk.edit_frames(edited, rng, framing)
    reads = [frame for frame in edited if frame]
    for quirk, rng in zip(ordered, rngs, strict=True):
        reads = quirk.edit_reads(reads, rng, framing)
    if any(q.aborts for q in ordered):
        return AbortedWire(reads=tuple(reads), headers=headers)
    return Wire(reads=tuple(reads), headers=headers)
