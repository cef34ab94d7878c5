"""The shortcuts that keep ``tooltape inspect`` fast read bodies exactly as the plain code did.

Each slow path is kept here as the oracle: the line-by-line SSE frame cutter the
recorder used before, and the WHATWG decoder for every frame.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tooltape.cassettes import CassetteError, inspect_body, library_path, load_cassette
from tooltape.cassettes._events import (
    _first_event,
    _json,
    _plain_sse,
    _sse,
    _Where,
    read_body,
    read_events,
)
from tooltape.cassettes._frames import framing_of, split_frames
from tooltape.fake_providers import decode_sse, get_dialect
from tooltape.fake_providers._sse import _sdk_events_line_by_line, openai_sdk_events
from tooltape.harness._json_text import loads

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


def _sdk_outcome(events: Any) -> tuple[str, Any]:
    try:
        return "events", list(events)
    except UnicodeDecodeError:
        return "raises", None


@given(_BODIES | _BODIES.map(lambda body: body + b"\n\n"))
@example(b"data: 1\n\ndata: 2\n\n")
@example(b"data:1\n\ndata:  2\n\n")  # no space, two spaces: one is dropped at most
@example(b"data: \xff\n\n")  # a broken character: the line-by-line reader raises
@example(b"\xef\xbb\xbfdata: 1\n\n")  # a byte-order mark is kept, so no event is data
@example(b"data: 1\ndata: 2\n\n")  # two data lines: one event, joined
def test_sdk_events_are_the_line_by_line_ones(body):
    fast = _sdk_outcome(openai_sdk_events(body))
    assert fast == _sdk_outcome(_sdk_events_line_by_line(body))


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


# --- the decoded data handed to the dialect (inspect reads each event's JSON once) ---


def _chunk(delta: dict[str, Any]) -> str:
    payload = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
    return json.dumps(payload, separators=(",", ":"))


_NAME = _chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "get_weather"}}]})
_ARGS = _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]})
_SECOND = _chunk({"tool_calls": [{"index": 1, "id": "call_2", "function": {"name": "f"}}]})
_FRAMES = {
    "name": f"data: {_NAME}\n\n",
    "args": f"data:{_ARGS}\n\n",
    "second": f"data: {_SECOND}\n\n",
    "done": "data: [DONE]\n\n",
    "done, spaced after": "data: [DONE]  \n\n",
    "done, spaced before": "data:  [DONE]\n\n",
    "string": 'data: "text"\n\n',
    "error": 'data: {"error": {"message": "overloaded"}}\n\n',
    "multi-line data": 'data: {"object": "chat.completion.chunk",\ndata: "choices": []}\n\n',
    "comment": ": keep-alive\n\n",
    "event name": f"event: thread.message\ndata: {_SECOND}\n\n",
    "id": f"id: 7\ndata: {_SECOND}\n\n",
    "CRLF": f"data: {_SECOND}\r\n\r\n",
}
_SLOW = {"multi-line data", "comment", "event name", "id", "CRLF", "done, spaced before"}
"""Frames a client does not read as one plain data line: their stream takes the slow path."""
_ENDS = {"done", "done, spaced after"}
"""Frames that end what a client reads (later frames never decide the path)."""


def _plain_and_parsed(body: bytes, aborted: str | None = None) -> tuple[list[Any] | None, Any, Any]:
    reading = read_body(body, "sse", aborted=aborted is not None)
    dialect = get_dialect("openai_chat")
    fast = inspect_body(body, "openai_chat", aborted=aborted).interactions[0].deltas
    return reading.plain_data, fast, dialect.parse(body)


@pytest.mark.parametrize("slow", sorted(_SLOW))
def test_a_stream_with_a_frame_that_is_not_one_data_line_reads_its_bytes(slow):
    body = "".join([_FRAMES["name"], _FRAMES[slow], _FRAMES["args"], _FRAMES["done"]]).encode()
    plain, fast, parsed = _plain_and_parsed(body)
    assert plain is None
    assert fast == parsed
    assert parsed[0][0]["name"] == "get_weather"  # the stream was read, not skipped


def test_a_plain_stream_hands_the_dialect_its_decoded_events():
    body = "".join(_FRAMES[k] for k in ("name", "args", "second", "done", "comment")).encode()
    plain, fast, parsed = _plain_and_parsed(body)
    assert plain == [json.loads(_NAME), json.loads(_ARGS), json.loads(_SECOND)]
    assert fast == parsed
    assert [c["name"] for d in parsed for c in d] == ["get_weather", None, "f"]


@given(st.lists(st.sampled_from(sorted(_FRAMES)), max_size=8))
@example(["name", "args", "done"])
@example(["name", "string", "args"])
@example(["name", "error", "args"])
@example(["name", "done, spaced after", "comment", "args"])
@example(["name", "multi-line data", "args", "done"])
@example(["comment", "name", "args"])
def test_fast_and_slow_paths_give_the_same_deltas(names):
    body = "".join(_FRAMES[name] for name in names).encode()
    try:
        plain, fast, parsed = _plain_and_parsed(body)
    except CassetteError:  # inspect refuses the body before any dialect reads it
        return
    assert fast == parsed
    ends = [n for n, name in enumerate(names) if name in _ENDS]
    before_end = names[: ends[0]] if ends else names
    assert (plain is None) == bool(_SLOW & set(before_end))


@given(st.lists(st.sampled_from(sorted(_FRAMES)), max_size=8))
@example(["name", "args", "done"])
@example(["name", "done", "args"])  # frames after the sentinel: read frame by frame
@example(["string", "done"])
@example(["name", "done, spaced after"])
def test_a_plain_body_read_in_one_pass_reads_as_frame_by_frame(names):
    body = "".join(_FRAMES[name] for name in names).encode()
    where = _Where("f.yaml", 0, aborted=False)
    one_pass = _plain_sse(body)
    try:
        by_frame = _sse(split_frames(body, "text/event-stream"), where)
    except CassetteError:
        assert one_pass is None  # the frame-by-frame reader names the bad event
        return
    if one_pass is not None:
        assert one_pass == by_frame
    if names and set(names) <= {"name", "args", "second", "string", "error"}:
        assert one_pass is not None  # the common body does take the one pass


def test_bundled_openai_chat_bodies_give_the_same_deltas_both_ways():
    responses = [
        interaction.response
        for path in _LIBRARY
        if path.stem == "openai_chat"
        for interaction in load_cassette(path).interactions
        if interaction.response.status == 200
    ]
    assert len(responses) > 20
    handed = 0
    for response in responses:
        plain, fast, parsed = _plain_and_parsed(response.body, response.aborted)
        assert fast == parsed
        handed += plain is not None
    assert handed > 10  # the shortcut is taken on real-shaped streams
