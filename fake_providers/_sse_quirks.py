"""Wire quirks that rewrite server-sent events: events, field lines, line ends, EOF.

These quirks change the text of the SSE body; the read-level quirks and the
pipeline that runs them all live in :mod:`tooltape.fake_providers.framing`.
Each refuses a non-SSE body with a :class:`TooltapeUsageError`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from random import Random
from typing import ClassVar, Literal

from pydantic import Field

from tooltape.fake_providers._sse import encode_sse
from tooltape.fake_providers.framing import WireQuirk, is_done_frame
from tooltape.harness import evidence
from tooltape.harness.json_text import loads

__all__ = [
    "Comments",
    "DataNoSpace",
    "DropDone",
    "ErrorEnvelope",
    "LineEndings",
    "MultilineData",
    "NoTrailingBlank",
    "RetryBlock",
    "SseFields",
]


def _edit_lines(frame: bytes, edit: Callable[[bytes], list[bytes]]) -> bytes:
    r"""Apply ``edit`` to each field line of an ``\n``-framed SSE block."""
    lines = frame.rstrip(b"\n").split(b"\n")
    return b"".join(line + b"\n" for edited in map(edit, lines) for line in edited) + b"\n"


# --- frame edits ---------------------------------------------------------------------


@evidence("OpenRouter, LiteLLM and other gateways", "apache/rocketmq-dashboard#2178")
class ErrorEnvelope(WireQuirk, kind="error_envelope", lossless=False):
    """Break off the stream with a JSON error envelope inside the HTTP 200 body.

    Gateways that lose the upstream mid-stream send ``data: {"error": {...}}``
    (then ``[DONE]`` when the dialect uses it). The openai SDK raises
    ``APIError`` with the message (Chat Completions and Responses alike); the
    anthropic SDK skips events without an ``event:`` name, so an Anthropic
    client silently keeps the calls cut short, as do other readers that ignore
    unknown payloads.
    """

    order: ClassVar[int] = 10

    message: str = "quota exceeded"
    """The error's ``message``."""
    error_type: str | None = "server_error"
    """The error's ``type`` (omitted when ``None``)."""
    code: str | None = None
    """The error's ``code`` (omitted when ``None``)."""
    after: int | None = Field(default=None, ge=0)
    """How many events go out before the error (``None``: half of them)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Keep the first events, then the envelope, then ``[DONE]`` if there was one."""
        events = [f for f in frames if not is_done_frame(f)]
        keep = len(events) // 2 if self.after is None else min(self.after, len(events))
        error: dict[str, object] = {"message": self.message}
        error.update({k: v for k, v in (("type", self.error_type), ("code", self.code)) if v})
        done = [encode_sse("[DONE]")] if len(events) < len(frames) else []
        return [*events[:keep], encode_sse({"error": error}), *done]


@evidence(
    "proxies and compatible servers", "looplj/axonhub/pull/2259 openai/openai-openapi/pull/248"
)
class DropDone(WireQuirk, kind="drop_done"):
    """End without the ``data: [DONE]`` sentinel; no-op where a dialect has none."""

    order: ClassVar[int] = 11

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Remove every ``[DONE]`` event."""
        return [f for f in frames if not is_done_frame(f)]


@evidence(
    "OpenRouter, gateways that ping while waiting",
    "https://openrouter.ai/docs/api-reference/streaming",
)
class Comments(WireQuirk, kind="comments"):
    """Send comment keep-alive blocks such as ``: OPENROUTER PROCESSING``."""

    order: ClassVar[int] = 20

    text: str = "OPENROUTER PROCESSING"
    """The comment text after ``: ``."""
    leading: int = Field(default=1, ge=0)
    """How many keep-alive blocks come before the first event."""
    every: int = Field(default=0, ge=0)
    """Also one before every ``every``-th later event (0: never)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Insert the comment blocks."""
        comment = f": {self.text}\n\n".encode()
        out = [comment] * self.leading
        for position, frame in enumerate(frames):
            if position and self.every and position % self.every == 0:
                out.append(comment)
            out.append(frame)
        return out


@evidence("openai-python #2722, llmgateway #2334, openai-go #621", "openai/openai-python#2722")
class RetryBlock(WireQuirk, kind="retry_block", lossless=False):
    """Open the stream with a ``retry:``-only block.

    Conforming decoders dispatch nothing for it. openai-python dispatches an
    empty event and raises ``JSONDecodeError`` (Chat Completions and Responses
    alike); the anthropic SDK dispatches it too but skips unnamed events.
    """

    order: ClassVar[int] = 21

    ms: int = Field(default=3000, ge=0)
    """The reconnection time sent."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Prepend the block."""
        return [f"retry: {self.ms}\n\n".encode(), *frames]


@evidence("servers that number events", "openai/openai-python#2722")
class SseFields(WireQuirk, kind="sse_fields"):
    """Add ``id:`` (and optionally ``retry:``) lines to every event.

    Harmless alone. Once an ``id`` is set, openai-python dispatches an empty
    event for every later comment-only block (``comments``) and raises
    ``JSONDecodeError``: that combination crashes openai-python's stream (the anthropic SDK
    skips such unnamed events).
    """

    order: ClassVar[int] = 30

    ids: bool = True
    """Number the events ``id: 1``, ``id: 2`` ..."""
    retry: int | None = None
    """A ``retry:`` value on every event (``None``: no ``retry:`` line)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Prefix the field lines of each event block."""
        out, number = [], 0
        for frame in frames:
            if frame.startswith((b":", b"retry:")):
                out.append(frame)
                continue
            number += 1
            head = (f"id: {number}\n" if self.ids else "") + (
                f"retry: {self.retry}\n" if self.retry is not None else ""
            )
            out.append(head.encode() + frame)
        return out


@evidence("inference-perf #781, llama.cpp-style servers", "kubernetes-sigs/inference-perf/pull/781")
class DataNoSpace(WireQuirk, kind="data_no_space"):
    """Write field lines without the space after the colon: ``data:{...}``."""

    order: ClassVar[int] = 31

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Drop the space after ``name:`` on every field line."""
        return [re.sub(rb"(?m)^([a-z]+): ", rb"\1:", frame) for frame in frames]


@evidence("WHATWG multi-line data", "kubernetes-sigs/inference-perf/pull/781")
class MultilineData(WireQuirk, kind="multiline_data"):
    r"""Spread each JSON payload over several ``data:`` lines, cut between tokens (https://github.com/kubernetes-sigs/inference-perf/pull/781).

    Decoders join the lines with ``\n``, which JSON reads as whitespace.
    """

    order: ClassVar[int] = 32

    lines: int = Field(default=2, ge=2)
    """How many ``data:`` lines each payload is spread over (at most)."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Cut each ``data:`` line after a ``,`` ``:`` ``{`` or ``[`` outside strings."""

        def spread(line: bytes) -> list[bytes]:
            name, colon, value = line.partition(b":")
            if name != b"data" or not colon:
                return [line]
            prefix = b"data: " if value.startswith(b" ") else b"data:"
            value = value.removeprefix(b" ")
            if not _is_json(value):
                return [line]  # a sentinel such as [DONE] stays whole
            cuts = _token_ends(value)
            picked = sorted(rng.sample(cuts, min(len(cuts), self.lines - 1)))
            bounds = [0, *picked, len(value)]
            return [prefix + value[a:b] for a, b in itertools.pairwise(bounds)]

        return [_edit_lines(frame, spread) for frame in frames]


def _is_json(value: bytes) -> bool:
    try:
        loads(value)
    except ValueError:
        return False
    return True


def _token_ends(value: bytes) -> list[int]:
    """Offsets just after a structural character outside JSON strings."""
    ends, in_string, escaped = [], False, False
    for offset, byte in enumerate(value):
        if escaped:
            escaped = False
        elif in_string:
            escaped = byte == 0x5C
            in_string = byte != 0x22
        elif byte == 0x22:
            in_string = True
        elif byte in b",:{[":
            ends.append(offset + 1)
    return ends


@evidence("axonhub #2259", "looplj/axonhub/pull/2259")
class NoTrailingBlank(WireQuirk, kind="no_trailing_blank"):
    """End the body without the final blank line, or without any line end.

    Conforming decoders discard an event not closed by a blank line, so the
    last event is lost; for ``openai_chat`` that is only ``[DONE]``.
    """

    order: ClassVar[int] = 40

    ending: Literal["newline", "none"] = "newline"
    """``newline``: the body ends ``}\\n``; ``none``: it ends ``}``."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Strip the line ends off the last frame."""
        if not frames:
            return frames
        last = frames[-1].rstrip(b"\n") + (b"\n" if self.ending == "newline" else b"")
        return [*frames[:-1], last]


_ENDINGS: dict[str, list[bytes]] = {
    "crlf": [b"\r\n"],
    "cr": [b"\r"],
    "lf": [b"\n"],
    "mixed": [b"\n", b"\r\n", b"\r"],
}


@evidence(
    "Routstr, OrcaRouter, a2a-js #714, openai-node #2309",
    "Routstr/routstr-core/pull/543 a2aproject/a2a-js#714",
)
class LineEndings(WireQuirk, kind="line_endings"):
    """End lines with CRLF, bare CR, LF, or a random mix of LF, CRLF and CR.

    ``lf`` undoes a dialect's CRLF default (Gemini frames with CRLF).

    ``mixed`` never follows a CR line end with an LF-ended blank line: the pair
    would read as one CRLF and swallow the blank line that dispatches the event.
    """

    order: ClassVar[int] = 41

    style: Literal["crlf", "cr", "lf", "mixed"] = "crlf"
    """Which line ends to write."""

    def edit_frames(self, frames: list[bytes], rng: Random, framing: str) -> list[bytes]:
        """Rewrite every line end (LF, CRLF or CR)."""
        endings = _ENDINGS[self.style]
        out, previous = [], b""
        for frame in frames:
            pieces = re.split(rb"\r\n|\r|\n", frame)
            rewritten = bytearray()
            for line in pieces[:-1]:
                allowed = [e for e in endings if line or previous != b"\r" or e != b"\n"]
                previous = rng.choice(allowed)
                rewritten += line + previous
            rewritten += pieces[-1]
            previous = b"" if pieces[-1] else previous
            out.append(bytes(rewritten))
        return out
