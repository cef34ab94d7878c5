"""The shortcuts that keep ``tooltape inspect`` fast read bodies exactly as the plain code did.

Each slow path is kept here as the oracle: the line-by-line SSE frame cutter the
recorder used before, and the WHATWG decoder for every frame.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tooltape.cassettes import CassetteError, library_path, load_cassette
from tooltape.cassettes.body_events import (
    _first_event,
    _json,
    _Where,
    read_events,
)
from tooltape.cassettes.body_framing import framing_of, split_frames
from tooltape.fake_providers import decode_sse
from tooltape.harness.json_text import loads

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
@example(b"data: 1\n\ndata: 2")  # LF only: the fast cut, with an unterminated tail
@example(b"a\nb\n\n")
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


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and the infinities too: json.dumps writes them, both parsers read them
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_JSON_PIECES = ['{"a": ', "[", "]", "}", ",", ":", "1", "-0", "1e400", "0.1", '"', "\\", "\\u"]
_JSON_PIECES += ["d800", "NaN", "tru", " ", "\t", "\x01", "\ufeff", "9" * 30]
_JSON_TEXTS = st.lists(st.sampled_from(_JSON_PIECES), max_size=12).map("".join)


@given(_JSON_VALUES.map(json.dumps) | _JSON_TEXTS)
@example('"\\ud800"')  # a lone surrogate: json.loads reads it, pydantic-core refuses it
@example("[" * 300 + "]" * 300)  # deeper than pydantic-core goes
@example("1" + "0" * 5000)  # past Python's int-string limit
@example('"\x01"')  # a control character in a string: both refuse it
def test_event_data_reads_as_json_loads_reads_it(text):
    where = _Where("f.yaml", 0, aborted=False)
    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):
        with pytest.raises(CassetteError, match="data is not JSON"):
            _json(text, 3, where, cut_ok=False)
        return
    value, ok = _json(text, 3, where, cut_ok=False)
    assert ok
    assert repr(value) == repr(expected)


_BODY_BYTES = _JSON_VALUES.map(lambda v: json.dumps(v).encode()) | _JSON_TEXTS.map(
    lambda text: text.encode("utf-8", "surrogatepass")
)


@given(_BODY_BYTES | st.binary(max_size=20))
@example('{"a": 1}'.encode("utf-16"))  # json.loads detects UTF-16; pydantic-core refuses it
@example(b'\xef\xbb\xbf{"a": 1}')  # a UTF-8 byte-order mark: likewise
@example(b'{"a": "\xff"}')  # invalid UTF-8: both refuse, json.loads's error counts
def test_request_bodies_read_as_json_loads_reads_them(body):
    try:
        expected = json.loads(body)
    except (ValueError, RecursionError) as error:
        with pytest.raises(type(error)):
            loads(body)
        return
    assert repr(loads(body)) == repr(expected)


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
