"""Wire quirks: the bytes each one produces, and what the official openai SDK makes of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx
import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_anthropic import ChatAnthropic
from langchain_core.messages.tool import tool_call_chunk
from openai._streaming import SSEDecoder

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers._httpx2_transport import FakeTransport, patch_httpx2
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._sse import decode_sse, encode_sse
from tooltape.fake_providers._wire import Wire
from tooltape.fake_providers.framing import (
    PEER_CLOSED,
    AbortedWire,
    WireQuirk,
    apply_wire_quirks,
)
from tooltape.fake_providers.http_objects import provider_request
from tooltape.harness import (
    Plan,
    PlannedCall,
    Quirk,
    Stage,
    parse_quirk,
    quirk_kinds,
    reference_merge,
)
from tooltape.harness._errors import TooltapeUsageError

SSE = (("content-type", "text/event-stream"),)
NDJSON = (("content-type", "application/x-ndjson"),)
BINARY = (("content-type", "application/vnd.amazon.eventstream"),)

PAYLOADS: list[dict[str, Any]] = [{"n": n, "text": f"北京 café ☕ {n}"} for n in range(4)]
FRAMES = [encode_sse(p) for p in PAYLOADS] + [encode_sse("[DONE]")]
PLAN = Plan(
    calls=(
        PlannedCall(name="get_weather", args={"city": "北京", "note": "café ☕"}, id="call_a"),
        PlannedCall(name="get_time", args={"tz": "Asia/Shanghai"}, id="call_b"),
    ),
    text_before="Let me check 🌦",
)

WIRE_KINDS = [
    "close_mid_event",
    "comments",
    "data_no_space",
    "drop_done",
    "error_envelope",
    "events_per_read",
    "line_endings",
    "multiline_data",
    "no_trailing_blank",
    "retry_block",
    "split_reads",
    "split_utf8",
    "sse_fields",
]
LOSSLESS_FOR_CONFORMING_DECODERS: list[Any] = [
    "comments",
    {"kind": "comments", "leading": 2, "every": 1},
    "data_no_space",
    "events_per_read",
    {"kind": "events_per_read", "n": 3},
    {"kind": "line_endings", "style": "crlf"},
    {"kind": "line_endings", "style": "cr"},
    {"kind": "line_endings", "style": "mixed"},
    "multiline_data",
    {"kind": "multiline_data", "lines": 4},
    "retry_block",
    "split_reads",
    {"kind": "split_reads", "pieces": 6, "after_field": False},
    "split_utf8",
    "sse_fields",
    {"kind": "sse_fields", "retry": 1000},
]


def render(
    quirks: list[Any], seed: int = 0, frames: list[bytes] = FRAMES, headers: Any = SSE
) -> Wire:
    return apply_wire_quirks(frames, [parse_quirk(q) for q in quirks], seed=seed, headers=headers)


def payloads(body: bytes, *, flush: bool = False) -> list[Any]:
    return [
        e.data if e.data == "[DONE]" else json.loads(e.data)
        for e in decode_sse(body, flush_at_eof=flush)
    ]


def sdk_payloads(wire: Any) -> list[Any]:
    """The events openai-python's own SSE decoder dispatches, fed read by read."""
    events = SSEDecoder().iter_bytes(iter(wire.reads))
    return [e.data if e.data == "[DONE]" else json.loads(e.data) for e in events]


ORIGINAL = [*PAYLOADS, "[DONE]"]


# --- registration and determinism ----------------------------------------------------


@pytest.mark.parametrize("kind", WIRE_KINDS)
def test_every_wire_quirk_registers_at_the_wire_stage(kind: str) -> None:
    quirk = parse_quirk(kind)
    assert kind in quirk_kinds()
    assert isinstance(quirk, WireQuirk)
    assert quirk.stage is Stage.WIRE
    assert quirk.cites
    assert type(quirk).__doc__


def test_no_quirk_is_one_event_per_read() -> None:
    wire = render([])
    assert wire.reads == tuple(FRAMES)
    assert type(wire) is not AbortedWire


@pytest.mark.parametrize("kind", WIRE_KINDS)
def test_the_same_seed_gives_the_same_reads(kind: str) -> None:
    assert render([kind], seed=3).reads == render([kind], seed=3).reads


@pytest.mark.parametrize(
    "quirk",
    [
        "split_reads",
        "split_utf8",
        "close_mid_event",
        "multiline_data",
        {"kind": "line_endings", "style": "mixed"},
    ],
)
def test_random_quirks_depend_on_the_seed(quirk: Any) -> None:
    assert len({render([quirk], seed=seed).reads for seed in range(6)}) > 1


def test_quirks_run_in_pipeline_order_whatever_order_they_are_listed_in() -> None:
    listed = ["split_reads", {"kind": "line_endings", "style": "crlf"}, "comments"]
    assert render(listed).reads == render(list(reversed(listed))).reads


# --- what conforming decoders see ----------------------------------------------------


@pytest.mark.parametrize("quirk", LOSSLESS_FOR_CONFORMING_DECODERS, ids=str)
def test_lossless_quirks_keep_every_event_for_a_conforming_decoder(quirk: Any) -> None:
    wire = render([quirk], seed=1)
    assert wire.body != b"".join(FRAMES) or len(wire.reads) != len(FRAMES)
    assert payloads(wire.body) == ORIGINAL


@pytest.mark.parametrize(
    "quirk", [q for q in LOSSLESS_FOR_CONFORMING_DECODERS if q != "retry_block"], ids=str
)
def test_openai_python_decodes_the_same_events_read_by_read(quirk: Any) -> None:
    assert sdk_payloads(render([quirk], seed=1)) == ORIGINAL


@given(
    seed=st.integers(0, 10_000),
    quirks=st.lists(st.sampled_from(LOSSLESS_FOR_CONFORMING_DECODERS), max_size=4),
)
def test_lossless_quirks_compose_for_any_seed(seed: int, quirks: list[Any]) -> None:
    assert payloads(render(quirks, seed=seed).body) == ORIGINAL


def test_events_per_read_joins_frames() -> None:
    wire = render([{"kind": "events_per_read", "n": 2}])
    assert wire.reads == (FRAMES[0] + FRAMES[1], FRAMES[2] + FRAMES[3], FRAMES[4])


def test_split_reads_cuts_between_data_and_its_payload() -> None:
    wire = render(["split_reads"], seed=2)
    assert len(wire.reads) > len(FRAMES)
    assert wire.body == b"".join(FRAMES)
    starts = [sum(map(len, FRAMES[:n])) for n in range(len(FRAMES))]
    assert all(start + len(b"data:") in wire.boundaries for start in starts)


def test_split_utf8_cuts_inside_characters_and_sends_raw_utf8() -> None:
    wire = render([{"kind": "split_utf8", "per_read": 2}], seed=5)
    body = wire.body
    assert "北京 café ☕".encode() in body  # the \\u escapes became raw UTF-8
    inside = [b for b in wire.boundaries if 0x80 <= body[b] <= 0xBF]
    assert len(inside) == 2 * len(PAYLOADS)  # two cuts in each read with non-ASCII text
    assert FRAMES[-1] in wire.reads  # [DONE] has none: left whole
    with pytest.raises(UnicodeDecodeError):
        wire.reads[0].decode()
    assert payloads(body) == ORIGINAL


def test_split_utf8_leaves_escaped_backslashes_and_ascii_escapes_alone() -> None:
    tricky = {"literal": "\\u00e9 is not é", "control": "\x01", "emoji": "😀"}
    wire = render(["split_utf8"], frames=[encode_sse(tricky)])
    assert b"\\\\u00e9" in wire.body
    assert b"\\u0001" in wire.body
    assert "😀".encode() in wire.body
    assert payloads(wire.body) == [tricky]


@pytest.mark.parametrize(
    ("style", "bare_lf", "bare_cr"),
    [("crlf", False, False), ("cr", False, True)],
)
def test_line_endings(style: str, bare_lf: bool, bare_cr: bool) -> None:
    body = render([{"kind": "line_endings", "style": style}]).body
    assert (b"\n" in body.replace(b"\r\n", b"")) is bare_lf
    assert (b"\r" in body.replace(b"\r\n", b"")) is bare_cr
    assert payloads(body) == ORIGINAL


def test_mixed_line_endings_mix_all_three_and_never_swallow_a_blank_line() -> None:
    body = render([{"kind": "line_endings", "style": "mixed"}], seed=4).body
    stripped = body.replace(b"\r\n", b"")
    assert b"\r\n" in body
    assert b"\n" in stripped
    assert b"\r" in stripped
    for seed in range(50):
        assert payloads(render([{"kind": "line_endings", "style": "mixed"}], seed=seed).body) == (
            ORIGINAL
        )


def test_comments_and_retry_block_bytes() -> None:
    wire = render([{"kind": "comments", "every": 2}, "retry_block"])
    assert wire.reads[0] == b"retry: 3000\n\n"
    assert wire.reads[1] == b": OPENROUTER PROCESSING\n\n"
    assert wire.body.count(b": OPENROUTER PROCESSING\n\n") == 1 + 2  # before events 2 and 4


def test_sse_fields_number_the_events() -> None:
    wire = render([{"kind": "sse_fields", "retry": 500}])
    assert wire.reads[0].startswith(b"id: 1\nretry: 500\ndata: {")
    assert [e.id for e in decode_sse(wire.body)] == ["1", "2", "3", "4", "5"]


def test_data_no_space_and_multiline_data() -> None:
    body = render(["data_no_space", {"kind": "multiline_data", "lines": 3}], seed=1).body
    assert b"data: " not in body
    assert b"data:{" in body
    assert body.count(b"data:") > len(FRAMES)
    assert b"data:[DONE]\n\n" in body  # a sentinel is never spread over lines


@pytest.mark.parametrize(("ending", "tail"), [("newline", b"[DONE]\n"), ("none", b"[DONE]")])
def test_no_trailing_blank_line(ending: str, tail: bytes) -> None:
    wire = render([{"kind": "no_trailing_blank", "ending": ending}])
    assert wire.body.endswith(b"data: " + tail)
    assert sdk_payloads(wire) == ORIGINAL[:-1]  # the unclosed last event is discarded
    assert payloads(wire.body, flush=True) == ORIGINAL


def test_drop_done() -> None:
    assert payloads(render(["drop_done"]).body) == PAYLOADS
    assert render(["drop_done"], frames=FRAMES[:2]).reads == tuple(FRAMES[:2])


def test_error_envelope_replaces_the_rest_of_the_stream() -> None:
    quirk = {"kind": "error_envelope", "after": 1, "message": "upstream died", "code": "e1"}
    error = {"error": {"message": "upstream died", "type": "server_error", "code": "e1"}}
    assert payloads(render([quirk]).body) == [PAYLOADS[0], error, "[DONE]"]
    assert payloads(render([quirk], frames=FRAMES[:-1]).body) == [PAYLOADS[0], error]
    assert payloads(render(["error_envelope"]).body)[:2] == PAYLOADS[:2]  # half by default


def test_close_mid_event_cuts_the_last_event_before_done() -> None:
    wire = render(["close_mid_event"], seed=7)
    assert isinstance(wire, AbortedWire)
    assert wire.error == PEER_CLOSED
    assert wire.reads[:-1] == tuple(FRAMES[:-2])
    assert FRAMES[-2].startswith(wire.reads[-1])
    assert wire.reads[-1] != FRAMES[-2]
    assert payloads(wire.body) == PAYLOADS[:-1]


def test_close_mid_event_skips_keep_alives_and_checks_its_frame() -> None:
    quirks = ["close_mid_event", {"kind": "comments", "every": 4}]  # a comment before [DONE]
    wire = render(quirks, seed=7)
    assert b"".join(FRAMES[:-2]) in wire.body
    assert FRAMES[-2].startswith(wire.reads[-1])
    with pytest.raises(TooltapeUsageError, match="names frame 9, but the body has 5 frames"):
        render([{"kind": "close_mid_event", "frame": 9}])


def test_close_mid_event_can_cut_any_event() -> None:
    wire = render([{"kind": "close_mid_event", "frame": 0}])
    assert len(wire.reads) == 1
    assert FRAMES[0].startswith(wire.reads[0])


# --- other framings -----------------------------------------------------------------

NDJSON_FRAMES = [json.dumps(p).encode() + b"\n" for p in PAYLOADS]
SSE_ONLY = sorted(
    set(WIRE_KINDS) - {"events_per_read", "split_reads", "split_utf8", "close_mid_event"}
)


@pytest.mark.parametrize("kind", SSE_ONLY)
def test_sse_only_quirks_refuse_ndjson(kind: str) -> None:
    with pytest.raises(TooltapeUsageError, match=rf"{kind}.*application/x-ndjson.*split_reads"):
        render([kind], frames=NDJSON_FRAMES, headers=NDJSON)


def test_byte_quirks_work_on_ndjson() -> None:
    quirks = ["events_per_read", "split_reads", "split_utf8"]
    wire = render(quirks, frames=NDJSON_FRAMES, headers=NDJSON)
    assert [json.loads(line) for line in wire.body.splitlines()] == PAYLOADS
    assert any(0x80 <= wire.body[b] <= 0xBF for b in wire.boundaries)
    assert isinstance(
        render(["close_mid_event"], frames=NDJSON_FRAMES, headers=NDJSON), AbortedWire
    )


def test_split_utf8_never_rewrites_binary_bodies() -> None:
    frames = [b"\x00\x01\\u00e9 binary"]
    assert render(["split_utf8"], frames=frames, headers=BINARY).body == frames[0]


def test_a_chunk_quirk_is_not_a_wire_quirk() -> None:
    with pytest.raises(TooltapeUsageError, match="not a wire quirk"):
        apply_wire_quirks(FRAMES, [parse_quirk("split_args")], seed=0, headers=SSE)


def test_dialects_apply_wire_quirks_from_names_and_mappings() -> None:
    dialect = get_dialect("openai_chat")
    plain = dialect.render(PLAN)
    quirked = dialect.render(PLAN, ["split_reads", {"kind": "line_endings", "style": "cr"}])
    assert len(quirked.reads) > len(plain.reads)
    assert b"\n" not in quirked.body
    assert reference_merge(dialect.parse(quirked.body)).calls() == PLAN.expected_calls()


# --- what the official openai SDK does with them (framing, cuts, error envelopes) ----------------


def sdk_calls(wire_or_plan: Any, quirks: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Stream through openai.OpenAI over a FakeTransport; merge its tool-call deltas."""
    provider = FakeProvider("openai_chat").stream(wire_or_plan, quirks, seed=1)
    http_client = httpx2.Client(transport=FakeTransport(provider))
    with openai.OpenAI(api_key="sk-test", http_client=http_client, max_retries=0) as client:
        stream = client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        deltas = []
        for chunk in stream:
            calls = chunk.choices[0].delta.tool_calls if chunk.choices else None
            deltas.append(
                [
                    tool_call_chunk(
                        name=c.function.name if c.function else None,
                        args=c.function.arguments if c.function else None,
                        id=c.id,
                        index=c.index,
                    )
                    for c in calls or []
                ]
            )
    return reference_merge(deltas).calls()


@pytest.mark.parametrize(
    "quirks",
    [
        [{"kind": "line_endings", "style": "crlf"}],
        [{"kind": "line_endings", "style": "cr"}],
        [{"kind": "line_endings", "style": "mixed"}, "split_reads"],
        ["split_utf8"],
        [{"kind": "split_utf8", "per_read": 3}, {"kind": "events_per_read", "n": 3}],
        ["comments", "data_no_space", "multiline_data"],
        ["sse_fields"],
        ["no_trailing_blank"],
        [{"kind": "no_trailing_blank", "ending": "none"}],
        ["drop_done"],
    ],
    ids=str,
)
def test_the_openai_sdk_reads_lossless_framing(quirks: list[Any]) -> None:
    assert sdk_calls(PLAN, quirks) == PLAN.expected_calls()


def test_s2_a_retry_only_block_crashes_the_openai_sdk_with_json_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError, match="Expecting value: line 1 column 1"):
        sdk_calls(PLAN, ["retry_block"])


def test_s2_a_comment_after_an_event_id_crashes_the_openai_sdk() -> None:
    assert sdk_calls(PLAN, ["comments"]) == PLAN.expected_calls()  # comments alone are fine
    with pytest.raises(json.JSONDecodeError):
        sdk_calls(PLAN, ["sse_fields", {"kind": "comments", "leading": 0, "every": 2}])


def test_t3_an_error_envelope_raises_api_error_with_its_message() -> None:
    with pytest.raises(openai.APIError, match=r"^quota exceeded$") as raised:
        sdk_calls(PLAN, ["error_envelope"])
    assert raised.value.body == {"message": "quota exceeded", "type": "server_error"}


def test_t1_a_connection_closed_mid_event_raises_the_transport_read_error() -> None:
    with pytest.raises(openai.APIConnectionError) as raised:
        sdk_calls(PLAN, ["close_mid_event"])
    assert isinstance(raised.value.__cause__, httpx2.RemoteProtocolError)
    assert str(raised.value.__cause__) == PEER_CLOSED


def test_a_wire_quirk_is_a_quirk() -> None:
    assert issubclass(WireQuirk, Quirk)


# --- the same bytes through ChatAnthropic: the anthropic SDK skips unnamed events -----

ANTHROPIC_TOOLS = [
    {"name": name, "description": name, "input_schema": {"type": "object", "properties": {}}}
    for name in ("get_weather", "get_time")
]


def anthropic_calls(quirks: list[Any]) -> list[dict[str, Any]]:
    provider = FakeProvider("anthropic_messages").stream(PLAN, quirks, seed=1)
    with patch_httpx2(provider):
        llm = ChatAnthropic(model="claude-sonnet-4-6", api_key="sk-test", max_retries=0)
        chunks = list(llm.bind_tools(ANTHROPIC_TOOLS).stream("hi"))
    return reference_merge(chunks).calls()


@pytest.mark.parametrize(
    "quirks", [["retry_block"], ["sse_fields", {"kind": "comments", "leading": 0, "every": 2}]]
)
def test_s2_blocks_do_not_crash_the_anthropic_sdk(quirks: list[Any]) -> None:
    assert anthropic_calls(quirks) == PLAN.expected_calls()


def test_t3_an_unnamed_error_envelope_silently_truncates_anthropic_calls() -> None:
    frames = get_dialect("anthropic_messages").render(PLAN).reads
    first_args = next(n for n, f in enumerate(frames) if b"input_json_delta" in f)
    calls = anthropic_calls([{"kind": "error_envelope", "after": first_args + 1}])
    assert [c["name"] for c in calls] == ["get_weather"]  # no exception: the rest is gone
    assert calls[0]["args"] != PLAN.calls[0].args


_EVENT_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), _EVENT_DATA, max_size=5))
def test_an_event_is_framed_with_the_json_that_json_dumps_writes(data):
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    try:
        framed = f"data: {text}\n\n".encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 for it either way
        with pytest.raises(UnicodeEncodeError):
            encode_sse(data)
        return
    assert encode_sse(data) == framed


_HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=8)


@pytest.mark.parametrize("http", [httpx, httpx2], ids=["httpx", "httpx2"])
@given(headers=st.lists(st.tuples(_HEADER_TEXT, _HEADER_TEXT), max_size=6))
def test_a_served_request_has_the_headers_items_gives(http, headers):
    raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
    request = http.Request("POST", "http://fake.invalid/v1/chat", headers=raw)
    served = provider_request(request, b"")
    assert served.headers == {k.lower(): v for k, v in request.headers.items()}
