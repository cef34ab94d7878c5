"""The shortcuts that keep ``tooltape inspect`` fast read bodies exactly as the plain code did.

Each slow path is kept here as the oracle: the line-by-line SSE frame cutter the
recorder used before, and the WHATWG decoder for every frame.
"""

from __future__ import annotations

import json
import re

from hypothesis import example, given
from hypothesis import strategies as st

from tooltape.cassettes import library_path, load_cassette
from tooltape.cassettes._events import _first_event, read_events
from tooltape.cassettes._frames import framing_of, split_frames
from tooltape.fake_providers import decode_sse

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _frames_line_by_line(body: bytes) -> list[bytes]:
    """The former cutter: a frame ends after each blank line (LF, CRLF or CR)."""
    frames: list[bytes] = []
    current = bytearray()
    for match in _LINE.finditer(body):
        line = match.group()
        current += line
        if line in (b"\n", b"\r\n", b"\r"):
            frames.append(bytes(current))
            current.clear()
    if current:
        frames.append(bytes(current))
    return frames


_PIECES = [b"data:", b"data: ", b"event: x", b":c", b"a", b"{}", b"\n", b"\r", b"\r\n", b" "]
_BODIES = st.lists(st.sampled_from(_PIECES), max_size=30).map(b"".join)


@given(_BODIES)
@example(b"data: x\r\r\n")
@example(b"data: x\r\n")
@example(b"data: x\r\nmore")  # CRLF is one line end, never CR then a blank line
@example(b"\n\n\ndata: 1\n\n")
@example(b"data: 1\n\ndata: 2\n")
def test_sse_frames_are_cut_as_line_by_line(body):
    frames = split_frames(body, "text/event-stream")
    assert frames == _frames_line_by_line(body)
    assert b"".join(frames) == body


def _first_event_decoded(text: str) -> tuple[str, str | None] | None:
    decoded = decode_sse(text, flush_at_eof=True)
    return (decoded[0].data, decoded[0].event) if decoded else None


_TEXT_PIECES = ["data:", "data: ", "data", "event: e", "id: 1", ":c", "x", '{"a": 1}', " "]
_FRAME_TEXTS = st.lists(
    st.sampled_from([*_TEXT_PIECES, "\n", "\r", "\r\n", "\ufeff"]), max_size=12
).map("".join)


@given(_FRAME_TEXTS | _FRAME_TEXTS.map(lambda text: f"data: {text}\n\n"))
@example("data: [DONE]\n\n")
@example("data:x\n\n")
@example("data: x\r\n\n")
@example("\ufeffdata: x\n\n")
def test_one_line_frames_read_as_the_decoder_reads_them(text):
    assert _first_event(text) == _first_event_decoded(text)


_LIBRARY = sorted(library_path("whole_call", "openai_chat").parent.parent.glob("*/*.yaml"))


def test_bundled_sse_bodies_read_as_the_decoder_reads_them():
    bodies = [
        interaction.response.body
        for path in _LIBRARY
        for interaction in load_cassette(path).interactions
        if framing_of(interaction.response.content_type or "") == "sse"
    ]
    assert len(bodies) > 100
    for body in bodies:
        events = read_events(body, "sse", aborted=True)
        assert [body[e.start : e.end] for e in events] == _frames_line_by_line(body)
        for event in events:
            first = _first_event_decoded(body[event.start : event.end].decode("utf-8", "replace"))
            if first is None or not event.dispatched:
                continue
            data = first[0] if first[0].strip() == "[DONE]" else json.loads(first[0])
            assert event.data == data
            assert event.kind == first[1] or first[1] is None
