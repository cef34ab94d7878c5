"""What the gemini dialect puts on the wire, frame by frame, and what it refuses to say.

Frames are decoded with the WHATWG decoder and checked field by field against
Whole functionCall parts, one call per frame by default, the
signature on the first call, a separate finish frame, cumulative usage, no
[DONE]; each EVENTS quirk changes exactly its shape; inexpressible quirks raise
a TooltapeUsageError that names quirk, dialect and reason.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tooltape.fake_providers import FakeProvider, decode_sse, dialect_names, get_dialect
from tooltape.fake_providers.dialects.gemini._dialect import MODEL, GeminiDialect
from tooltape.harness import Plan, PlannedCall, TooltapeUsageError, parse_quirk

DIALECT = GeminiDialect()
PLAN = Plan(
    text_before="Let me look that up.",
    calls=[
        PlannedCall(name="get_weather", args={"city": "Oslo", "days": 2}, id="call_1"),
        PlannedCall(name="get_time", args={}, id="call_2"),
    ],
)


def frames(plan: Plan = PLAN, quirks: list[Any] | None = None, seed: int = 0) -> list[Any]:
    wire = DIALECT.render(plan, quirks or [], seed=seed)
    assert b"[DONE]" not in wire.body
    return [json.loads(event.data) for event in decode_sse(wire.body)]


def parts(frame: dict[str, Any]) -> list[dict[str, Any]]:
    return (frame["candidates"][0].get("content") or {}).get("parts") or []


def calls(all_frames: list[Any]) -> list[list[dict[str, Any]]]:
    return [[p for p in parts(f) if "functionCall" in p] for f in all_frames]


def test_default_shape_is_one_whole_call_per_frame_then_a_finish_frame():
    rendered = frames()
    assert [len(c) for c in calls(rendered)] == [0, 1, 1, 0]  # text, call, call, finish
    first, second = (c[0] for c in calls(rendered) if c)
    assert list(first) == ["functionCall", "thoughtSignature"]  # the first call is signed
    assert first["functionCall"] == {
        "name": "get_weather",
        "args": {"city": "Oslo", "days": 2},
        "id": "call_1",
    }
    assert second == {"functionCall": {"name": "get_time", "args": {}, "id": "call_2"}}
    assert rendered[-1]["candidates"][0] == {
        "content": {"parts": [{"text": ""}], "role": "model"},
        "finishReason": "STOP",
        "index": 0,
    }
    assert all(
        list(f) == ["candidates", "usageMetadata", "modelVersion", "responseId"] for f in rendered
    )
    assert all(f["modelVersion"] == MODEL for f in rendered)
    assert len({f["responseId"] for f in rendered}) == 1


def test_ids_ride_on_the_function_call():
    ids = [c[0]["functionCall"].get("id") for c in calls(frames()) if c]
    assert ids == ["call_1", "call_2"]


def test_usage_is_cumulative_on_every_frame():
    usage = [f["usageMetadata"] for f in frames()]
    counts = [u.get("candidatesTokenCount", 0) for u in usage]
    assert counts == sorted(counts) and counts[0] > 0
    assert counts[-1] == counts[-2]  # the finish frame adds nothing
    assert all(
        u["totalTokenCount"]
        == u["promptTokenCount"] + u.get("candidatesTokenCount", 0) + u["thoughtsTokenCount"]
        for u in usage
    )


def test_json_layout_matches_the_recordings():
    body = DIALECT.render(PLAN).body.decode()
    assert body.startswith('data: {"candidates": [{"content": {"parts": [{"text": ')
    assert '"args": {"city": "Oslo","days": 2}' in body  # "," between items, ": " after keys
    assert body.endswith("}\r\n\r\n") and "\n" not in body.replace("\r\n", "")  # CRLF, as real
    lf = DIALECT.render(PLAN, [{"kind": "line_endings", "style": "lf"}]).body.decode()
    assert "\r" not in lf and lf == body.replace("\r\n", "\n")


def test_non_ascii_is_raw_utf8_unless_ascii_escapes():
    plan = Plan(calls=[{"name": "say", "args": {"text": "北京"}, "id": "c"}])
    assert "北京".encode() in DIALECT.render(plan).body
    escaped = DIALECT.render(plan, ["ascii_escapes"]).body
    assert b"\\u5317\\u4eac" in escaped and "北京".encode() not in escaped


@pytest.mark.parametrize(
    ("finish", "reason"),
    [
        ("tool_calls", "STOP"),
        ("stop", "STOP"),
        ("length", "MAX_TOKENS"),
        ("content_filter", "SAFETY"),
    ],
)
def test_finish_reasons(finish, reason):
    rendered = frames(PLAN.model_copy(update={"finish": finish}))
    assert rendered[-1]["candidates"][0]["finishReason"] == reason


def test_eof_and_error_end_without_a_finish_reason():
    eof = frames(PLAN.model_copy(update={"finish": "eof"}))
    assert not any("finishReason" in f["candidates"][0] for f in eof)
    error = frames(PLAN.model_copy(update={"finish": "error"}))
    assert len(error) - 1 == len(eof) == 3  # text, two calls (+ the error)
    assert not any("finishReason" in f["candidates"][0] for f in error[:-1])
    assert error[-1] == {
        "error": {
            "code": 503,
            "message": "The model is overloaded. Please try again later.",
            "status": "UNAVAILABLE",
        }
    }


def test_reasoning_becomes_thought_parts_before_the_text():
    plan = PLAN.model_copy(update={"reasoning": "Two tools are needed here, one after another."})
    rendered = frames(plan)
    thoughts = [p for f in rendered for p in parts(f) if p.get("thought")]
    assert "".join(p["text"] for p in thoughts) == plan.reasoning
    assert parts(rendered[0])[0].get("thought") is True
    assert "candidatesTokenCount" not in rendered[0]["usageMetadata"]


def test_text_only_turn_signs_its_last_text_part():
    rendered = frames(Plan(text_before="Just some words to say here, no tools at all."))
    signed = [p for f in rendered for p in parts(f) if "thoughtSignature" in p]
    texts = [p for f in rendered for p in parts(f) if p.get("text")]
    assert signed == [texts[-1]]


# --- EVENTS quirks ------------------------------------------------------------------------


def test_gemini_model_names_the_model():
    rendered = frames(quirks=[{"kind": "gemini_model", "model": "gemini-2.0-flash"}])
    assert {f["modelVersion"] for f in rendered} == {"gemini-2.0-flash"}


def test_finish_with_last_part_has_no_separate_finish_frame():
    rendered = frames(quirks=["finish_with_last_part"])
    assert rendered[-1]["candidates"][0]["finishReason"] == "STOP"
    assert calls(rendered)[-1][0]["functionCall"]["name"] == "get_time"


def test_finish_without_parts_has_no_content():
    last = frames(quirks=["finish_without_parts"])[-1]["candidates"][0]
    assert last == {"finishReason": "STOP", "index": 0}


def test_no_thought_signature_and_no_thoughts_count():
    rendered = frames(quirks=["no_thought_signature"])
    assert not any("thoughtSignature" in p for f in rendered for p in parts(f))
    assert not any("thoughtsTokenCount" in f["usageMetadata"] for f in rendered)


@pytest.mark.parametrize(
    ("quirk", "tail"),
    [
        ("signature_only_part", [{"text": "", "thoughtSignature": "S"}]),
        (
            {"kind": "signature_only_part", "empty_text": False},
            [{"text": ""}, {"thoughtSignature": "S"}],
        ),
    ],
)
def test_signature_only_part_moves_the_signature_to_the_end(quirk, tail):
    rendered = frames(quirks=[quirk])
    signed = [p for f in rendered[:-1] for p in parts(f) if "thoughtSignature" in p]
    assert signed == []
    last = [
        {k: ("S" if k == "thoughtSignature" else v) for k, v in p.items()}
        for p in parts(rendered[-1])
    ]
    assert last == tail


def test_lower_final_prompt_count():
    rendered = frames(quirks=[{"kind": "lower_final_prompt_count", "by": 5}])
    prompts = [f["usageMetadata"]["promptTokenCount"] for f in rendered]
    assert prompts[-1] == prompts[0] - 5 and len(set(prompts[:-1])) == 1


@pytest.mark.parametrize("terminal", ["empty_call", "last_partial"])
def test_partial_args_stream_every_leaf(terminal):
    plan = Plan(
        calls=[
            {
                "name": "write",
                "args": {"path": "a.md", "n": 2, "ok": True, "no": None, "xs": ["q"], "a b": "c"},
                "id": "w1",
            }
        ]
    )
    fcs = [
        c[0]["functionCall"]
        for c in calls(frames(plan, [{"kind": "partial_args", "terminal": terminal}], 4))
        if c
    ]
    assert fcs[0] == {"name": "write", "id": "w1", "willContinue": True}
    entries = [e for fc in fcs for e in fc.get("partialArgs", [])]
    strings: dict[str, str] = {}
    for e in entries:
        if "stringValue" in e:
            strings[e["jsonPath"]] = strings.get(e["jsonPath"], "") + e["stringValue"]
    assert strings == {"$.path": "a.md", "$.xs[0]": "q", "$['a b']": "c"}
    assert {"jsonPath": "$.n", "numberValue": 2} in entries
    assert {"jsonPath": "$.ok", "boolValue": True} in entries
    assert {"jsonPath": "$.no", "nullValue": "NULL_VALUE"} in entries
    if terminal == "empty_call":
        assert fcs[-1] == {}
        assert all(fc.get("willContinue") for fc in fcs[:-1])
    else:
        assert "willContinue" not in fcs[-1] and fcs[-1]["partialArgs"]


def test_partial_args_without_arguments_is_one_named_part():
    plan = Plan(calls=[{"name": "now", "args": {}, "id": "n1"}])
    fcs = [c[0]["functionCall"] for c in calls(frames(plan, ["partial_args"])) if c]
    assert fcs == [{"name": "now", "id": "n1"}]


def test_pack_fragments_puts_parallel_calls_in_one_frame():
    rendered = frames(quirks=["whole_call", {"kind": "pack_fragments", "size": 2}, "missing_id"])
    (both,) = [c for c in calls(rendered) if c]
    assert [p["functionCall"] for p in both] == [
        {"name": "get_weather", "args": {"city": "Oslo", "days": 2}},
        {"name": "get_time", "args": {}},
    ]


def test_empty_args_leaves_out_the_args_key_and_duplicate_ids_repeat_the_first():
    fcs = [c[0]["functionCall"] for c in calls(frames(quirks=["empty_args", "duplicate_ids"])) if c]
    assert fcs[1] == {"name": "get_time", "id": "call_1"}
    assert fcs[0]["id"] == "call_1"


def test_splitters_do_not_change_the_wire():
    base = DIALECT.render(PLAN, seed=1).body
    for splitter in ("whole_call", "whole_args", {"kind": "split_args", "pieces": 5}):
        assert DIALECT.render(PLAN, [splitter], seed=1).body == base


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quirk", "reason"),
    [
        ("truncate_args", "cannot end inside them"),
        ("malformed_args", "cannot be malformed"),
        ("non_object_args", "anything but an object"),
        ("cumulative_args", "never text: they cannot be malformed, repeated"),
        ("repeat_name", "carries the call whole"),
        ("split_name", "carries the call whole"),
        ("late_name", "carries the call whole"),
        ("late_id", "carries the call whole"),
        ("changing_id", "carries the call whole"),
        ("id_on_every_chunk", "carries the call whole"),
        ("empty_string_continuations", "carries the call whole"),
        ("interleave_calls", "cannot interleave"),
        ("no_index", "never carry an index"),
        ("shared_index", "carry no index"),
        ("index_offset", "no index"),
    ],
)
def test_inexpressible_quirks_are_refused_with_the_reason(quirk, reason):
    with pytest.raises(TooltapeUsageError, match=rf"quirk {quirk}.*dialect gemini: .*{reason}"):
        DIALECT.render(PLAN, [quirk])


@pytest.mark.parametrize(
    "pair",
    [
        ["finish_with_last_part", "finish_without_parts"],
        ["finish_without_parts", "signature_only_part"],
        ["partial_args", {"kind": "pack_fragments", "size": 2}],
    ],
)
def test_conflicting_quirks_are_refused(pair):
    with pytest.raises(TooltapeUsageError, match="cannot be combined in dialect gemini"):
        DIALECT.render(PLAN, pair)


def test_other_dialects_event_quirks_are_refused():
    with pytest.raises(TooltapeUsageError, match=r"belongs to another dialect.*partial_args"):
        DIALECT.render(PLAN, ["ping_events"])


def test_partial_args_refuses_empty_containers():
    plan = Plan(calls=[{"name": "f", "args": {"xs": []}, "id": "f1"}])
    with pytest.raises(TooltapeUsageError, match=r"empty container at \$\.xs"):
        DIALECT.render(plan, ["partial_args"])


# --- registration and routing --------------------------------------------------------------


def test_registered_with_quirks_by_kind():
    assert "gemini" in dialect_names()
    assert isinstance(get_dialect("gemini"), GeminiDialect)
    assert DIALECT.stream_flag is False  # the URL asks for the stream, not the body
    for kind in ("partial_args", "signature_only_part", "finish_with_last_part", "gemini_model"):
        assert parse_quirk(kind).kind == kind
    assert parse_quirk("partial_args").lossless is False


@pytest.mark.parametrize(
    ("path", "served"),
    [
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", True),
        ("/v1/models/gemini-3.5-flash:streamGenerateContent", True),
        ("/v1beta1/publishers/google/models/gemini-3.5-flash:streamGenerateContent", True),
        ("/v1beta/models/gemini-2.5-flash:generateContent", True),  # the non-streamed call
        ("/v1beta/models:streamGenerateContent", False),
    ],
)
def test_fake_provider_routes_every_stream_url(path, served):
    provider = FakeProvider("gemini")
    assert provider.serves("generativelanguage.googleapis.com", 443, path) is served
