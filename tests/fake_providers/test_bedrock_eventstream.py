"""The AWS event-stream framing, checked against botocore's own parser.

Every message the Bedrock dialects render must decode with botocore's
``EventStreamBuffer`` (both CRCs valid) with Bedrock's headers, and our pure
Python decoder must agree with botocore byte for byte, including where
botocore refuses corrupt frames and where it leaves an incomplete tail unread.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from tooltape.fake_providers.dialects.bedrock._converse import (
    BedrockConverseDialect,
    bedrock_exception_wire,
)
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    InvalidEventStream,
    decode_eventstream,
    encode_eventstream_message,
)
from tooltape.fake_providers.dialects.bedrock._invoke import BedrockInvokeDialect
from tooltape.harness import Plan

PLAN = Plan(
    reasoning="The user wants the weather.",
    text_before="Checking Zürich 北京 😀.",
    calls=[
        {"name": "get_weather", "args": {"city": "Zürich", "days": 3}, "id": "tooluse_01A"},
        {"name": "get_time", "args": {}, "id": "tooluse_01B"},
    ],
    text_after="Done.",
)
DIALECTS = {"bedrock_converse": BedrockConverseDialect(), "bedrock_invoke": BedrockInvokeDialect()}
CONVERSE_EVENTS = {
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
}


def botocore_messages(body: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    return list(buffer)


@pytest.mark.parametrize("dialect", ["bedrock_converse", "bedrock_invoke"])
@pytest.mark.parametrize("finish", [None, "stop", "length", "eof", "error"])
def test_every_rendered_message_decodes_in_botocore_with_bedrocks_headers(dialect, finish):
    wire = DIALECTS[dialect].render(PLAN.model_copy(update={"finish": finish}), seed=5)
    assert wire.content_type == EVENTSTREAM_MEDIA_TYPE
    messages = botocore_messages(wire.body)  # raises on any CRC or length error
    assert len(messages) == len(wire.reads)
    for message, read in zip(messages, wire.reads, strict=True):
        assert message.prelude.total_length == len(read)
        headers = dict(message.headers)
        if headers.get(":message-type") == "exception":
            assert list(headers) == [":exception-type", ":content-type", ":message-type"]
            assert headers[":exception-type"] == "modelStreamErrorException"
            continue
        assert list(headers) == [":event-type", ":content-type", ":message-type"]
        assert headers[":content-type"] == "application/json"
        assert headers[":message-type"] == "event"
        payload = json.loads(message.payload)
        assert (
            payload["p"]
            == "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[: len(payload["p"])]
        )
        if dialect == "bedrock_converse":
            assert headers[":event-type"] in CONVERSE_EVENTS
        else:
            assert headers[":event-type"] == "chunk"
            assert set(payload) == {"bytes", "p"}
            assert json.loads(base64.b64decode(payload["bytes"]))["type"]
    error_messages = [m for m in messages if m.headers[":message-type"] == "exception"]
    assert len(error_messages) == (finish == "error")


@pytest.mark.parametrize("dialect", ["bedrock_converse", "bedrock_invoke"])
def test_our_decoder_agrees_with_botocore(dialect):
    body = DIALECTS[dialect].render(PLAN, ["interleave_calls"], seed=2).body
    ours = decode_eventstream(body)
    theirs = botocore_messages(body)
    assert [(m.headers, m.payload) for m in ours] == [(dict(m.headers), m.payload) for m in theirs]
    assert b"".join(m.raw for m in ours) == body


def test_encode_then_decode_round_trips():
    frame = encode_eventstream_message([(":event-type", "chunk"), ("x-ü", "北京")], b'{"a":1}')
    (message,) = decode_eventstream(frame)
    assert message.headers == {":event-type": "chunk", "x-ü": "北京"}
    assert message.payload == b'{"a":1}'
    assert message.event_type == "chunk"
    assert message.message_type is None


def test_payload_json_is_compact_sorted_raw_utf8():
    wire = DIALECTS["bedrock_converse"].render(PLAN, seed=1)
    payloads = [m.payload for m in decode_eventstream(wire.body)]
    for payload in payloads:
        data = json.loads(payload)
        assert (
            payload
            == json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
        )
    assert any("Zürich".encode() in p for p in payloads)


def test_incomplete_tail_is_left_unread_like_botocore():
    body = DIALECTS["bedrock_converse"].render(PLAN).body
    cut = body[:-7]
    assert len(decode_eventstream(cut)) == len(botocore_messages(cut))
    assert len(decode_eventstream(cut)) == len(decode_eventstream(body)) - 1
    assert decode_eventstream(body[:5]) == []


@pytest.mark.parametrize("where", ["prelude", "payload"])
def test_corrupt_crc_is_refused_by_both_decoders(where):
    frame = bytearray(encode_eventstream_message([(":event-type", "chunk")], b'{"a":1}'))
    frame[4 if where == "prelude" else -6] ^= 0xFF
    with pytest.raises(InvalidEventStream, match="CRC mismatch"):
        decode_eventstream(bytes(frame))
    with pytest.raises(ChecksumMismatch):
        botocore_messages(bytes(frame))


def test_every_header_value_type_decodes():
    def header(name: str, kind: int, value: bytes) -> bytes:
        return bytes([len(name)]) + name.encode() + bytes([kind]) + value

    stamp = 1_700_000_000_000
    marker = uuid.UUID(int=7)
    headers = b"".join(
        [
            header("t", 0, b""),
            header("f", 1, b""),
            header("b", 2, struct.pack(">b", -3)),
            header("s", 3, struct.pack(">h", 300)),
            header("i", 4, struct.pack(">i", -70000)),
            header("l", 5, struct.pack(">q", 2**40)),
            header("y", 6, struct.pack(">H", 2) + b"\x00\xff"),
            header("ts", 8, struct.pack(">q", stamp)),
            header("u", 9, marker.bytes),
        ]
    )
    total = 16 + len(headers)
    prelude = struct.pack(">II", total, len(headers))
    head = prelude + struct.pack(">I", zlib.crc32(prelude))
    frame = head + headers + struct.pack(">I", zlib.crc32(head + headers))
    (message,) = decode_eventstream(frame)
    assert message.headers == {
        "t": True,
        "f": False,
        "b": -3,
        "s": 300,
        "i": -70000,
        "l": 2**40,
        "y": b"\x00\xff",
        "ts": stamp,
        "u": marker,
    }
    assert dict(botocore_messages(frame)[0].headers) == {**message.headers, "u": marker.bytes}


def test_exception_wire_is_an_exception_message_botocore_raises_on():
    wire = bedrock_exception_wire("messages.1: bad", "validationException")
    (message,) = botocore_messages(wire.body)
    response = message.to_response_dict()
    assert response["status_code"] == 400
    assert dict(message.headers)[":exception-type"] == "validationException"
    assert json.loads(message.payload) == {"message": "messages.1: bad"}
