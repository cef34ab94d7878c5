"""anthropic_messages rendering: event order, fields, finishes and quirks, read back as SSE."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _plans import sample_plans

from tooltape.fake_providers import Wire, decode_sse, dialect_names
from tooltape.fake_providers.dialects.anthropic._dialect import (
    AnthropicMessagesDialect,
)
from tooltape.harness import (
    Stage,
    TooltapeUsageError,
    parse_quirk,
    reference_merge,
)
from tooltape.harness._quirks import _REGISTRY

DIALECT = AnthropicMessagesDialect()
PLANS = sample_plans("toolu_01")
WEATHER, TIME = PLANS["two_calls"].calls


def events(wire: Wire) -> list[tuple[str | None, dict[str, Any]]]:
    return [(e.event, json.loads(e.data)) for e in decode_sse(wire.body)]


def signature(wire: Wire) -> list[tuple[Any, ...]]:
    """(event, index, block/delta type or stop reason) per event, repeated deltas collapsed."""
    out: list[tuple[Any, ...]] = []
    for name, data in events(wire):
        block = data.get("content_block") or data.get("delta") or {}
        item = (name, data.get("index"), block.get("type") or block.get("stop_reason"))
        if not out or out[-1] != item:
            out.append(item)
    return out


def test_render_thinking_text_calls_text_sequence():
    wire = DIALECT.render(PLANS["thinking_text_call"], ["whole_args"])
    assert signature(wire) == [
        ("message_start", None, None),
        ("content_block_start", 0, "thinking"),
        ("ping", None, None),
        ("content_block_delta", 0, "thinking_delta"),
        ("content_block_delta", 0, "signature_delta"),
        ("content_block_stop", 0, None),
        ("content_block_start", 1, "text"),
        ("content_block_delta", 1, "text_delta"),
        ("content_block_stop", 1, None),
        ("content_block_start", 2, "tool_use"),
        ("content_block_delta", 2, "input_json_delta"),
        ("content_block_stop", 2, None),
        ("content_block_start", 3, "tool_use"),
        ("content_block_delta", 3, "input_json_delta"),
        ("content_block_stop", 3, None),
        ("content_block_start", 4, "text"),
        ("content_block_delta", 4, "text_delta"),
        ("content_block_stop", 4, None),
        ("message_delta", None, "tool_use"),
        ("message_stop", None, None),
    ]


def test_render_tool_use_start_and_first_empty_partial_json():
    decoded = events(DIALECT.render(PLANS["single"]))
    start, first = decoded[1][1], decoded[3][1]
    assert start["content_block"] == {
        "type": "tool_use",
        "id": "toolu_01A",
        "name": "get_weather",
        "input": {},
        "caller": {"type": "direct"},
    }
    assert first["delta"] == {"type": "input_json_delta", "partial_json": ""}
    message = decoded[0][1]["message"]
    assert message["id"].startswith("msg_")
    assert message["content"] == []
    assert message["usage"]["output_tokens"] == 1


@pytest.mark.parametrize(
    ("finish", "stop_reason"),
    [
        ("tool_calls", "tool_use"),
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
    ],
)
def test_render_stop_reasons(finish, stop_reason):
    decoded = events(DIALECT.render(PLANS["single"].model_copy(update={"finish": finish})))
    assert decoded[-2][1]["delta"]["stop_reason"] == stop_reason
    assert [name for name, _ in decoded[-3:]] == [
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_render_eof_ends_inside_the_last_block():
    decoded = events(DIALECT.render(PLANS["two_calls"].model_copy(update={"finish": "eof"})))
    assert decoded[-1][0] == "content_block_delta"
    assert [name for name, _ in decoded].count("content_block_stop") == 1


def test_render_error_event_after_the_cut():
    decoded = events(
        DIALECT.render(PLANS["single"].model_copy(update={"finish": "error"}), ["truncate_args"])
    )
    assert decoded[-1] == (
        "error",
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    )
    assert decoded[-2][1]["delta"]["partial_json"].endswith("Pa")


def test_render_non_ascii_travels_as_raw_utf8():
    body = DIALECT.render(PLANS["non_ascii"], ["whole_args"]).body
    assert "Zürich 北京 😀".encode() in body
    assert b"\\u" not in body


def test_pings_quirk_puts_a_ping_between_events():
    decoded = events(DIALECT.render(PLANS["single"], [{"kind": "ping_events", "every": 2}]))
    names = [name for name, _ in decoded]
    assert names.count("ping") > 3
    assert names[-1] == "message_stop"
    assert "ping" in names[:3]


def test_padding_quirk_pads_json_like_the_live_api():
    body = DIALECT.render(PLANS["single"], ["json_padding"]).body
    assert b" }\n\n" in body
    assert b'data: {"type": "ping"}\n' in body


def test_no_empty_first_delta_with_empty_args_sends_no_delta():
    """An argument-less tool_use block with no input_json_delta at all."""
    wire = DIALECT.render(PLANS["empty_args"], ["empty_args", "no_empty_partial_json"])
    assert [name for name, _ in events(wire)].count("content_block_delta") == 0
    assert reference_merge(DIALECT.parse(wire.body)).calls() == PLANS["empty_args"].expected_calls()


def test_input_on_start_quirk_carries_parsed_input():
    decoded = events(DIALECT.render(PLANS["single"], ["input_on_block_start"]))
    assert decoded[1][1]["content_block"]["input"] == WEATHER.args
    assert all(name != "content_block_delta" for name, _ in decoded)
    assert DIALECT.parse(DIALECT.render(PLANS["single"], ["input_on_block_start"]).body)[1][0][
        "args"
    ] == json.dumps(WEATHER.args)


def test_input_on_start_refuses_broken_arguments():
    with pytest.raises(TooltapeUsageError, match="input_on_block_start"):
        DIALECT.render(PLANS["single"], ["malformed_args", "input_on_block_start"])


@pytest.mark.parametrize(
    "quirk",
    [
        "split_name",
        "repeat_name",
        "late_name",
        "missing_id",
        "late_id",
        "changing_id",
        "id_on_every_chunk",
        "empty_string_continuations",
        "no_index",
        "shared_index",
        "index_offset",
        "pack_fragments",
    ],
)
def test_inexpressible_quirks_raise_naming_quirk_and_dialect(quirk):
    with pytest.raises(TooltapeUsageError, match=rf"{quirk}.*anthropic_messages"):
        DIALECT.render(PLANS["two_calls"], [quirk])


def test_duplicate_ids_are_expressible():
    wire = DIALECT.render(PLANS["two_calls"], ["duplicate_ids"])
    ids = [d["content_block"]["id"] for n, d in events(wire) if n == "content_block_start"]
    assert ids == ["toolu_01A", "toolu_01A"]


def test_render_is_deterministic_for_a_seed():
    plan = PLANS["thinking_text_call"]
    assert DIALECT.render(plan, seed=9).body == DIALECT.render(plan, seed=9).body
    assert DIALECT.render(plan, seed=9).body != DIALECT.render(plan, seed=10).body


def test_other_dialects_event_quirks_are_refused():
    dialect_names()  # imports every bundled dialect, so their EVENTS quirks register
    foreign = [
        cls.model_fields["kind"].default
        for cls in _REGISTRY.values()
        if cls.stage is Stage.EVENTS and not issubclass(cls, DIALECT.event_quirks)
    ]
    assert foreign, "no other dialect defines EVENTS quirks"
    quirk = parse_quirk(sorted(foreign)[0])
    with pytest.raises(TooltapeUsageError, match=rf"{quirk.kind}.*another dialect"):
        DIALECT.render(PLANS["single"], [quirk])
