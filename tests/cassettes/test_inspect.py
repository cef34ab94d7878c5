"""inspect_cassette(): events, the reference merge, hazards and lanes of a recording."""

from __future__ import annotations

import json

import pytest

from tooltape.cassettes import (
    inspect_body,
    inspect_cassette,
    library_path,
    load_cassette,
    save_cassette,
)
from tooltape.fake_providers import get_dialect
from tooltape.harness import draw_lanes, reference_merge


def test_a_library_cassette_shows_its_calls_hazards_events_and_lanes():
    path = library_path("shared_index_idless", "openai_chat")
    inspection = inspect_cassette(path)
    body = load_cassette(path).interactions[0].response.body
    deltas = get_dialect("openai_chat").parse(body)
    merged = reference_merge(deltas)
    assert inspection.dialect == "openai_chat"
    assert inspection.tool_calls == merged.calls()
    assert inspection.hazards == [str(h) for h in merged.hazards]
    assert inspection.hazards[0].startswith("args_repaired at call 0")
    assert draw_lanes(deltas) in inspection.lanes
    kinds = [e.kind for e in inspection.events]
    assert kinds[0] == "chat.completion.chunk" and kinds[-1] == "[DONE]"
    assert inspection.events[-1].end == len(body)
    text = str(inspection)
    assert "hazard args_repaired" in text and "call get_weather" in text and "msg │" in text


def test_the_json_form_has_what_the_cli_prints():
    inspection = inspect_cassette(library_path("malformed_args", "anthropic_messages"))
    data = json.loads(inspection.to_json())
    assert set(data) == {
        "source",
        "dialect",
        "tool_calls",
        "invalid_tool_calls",
        "hazards",
        "warnings",
        "interactions",
    }
    assert data["warnings"] == []
    assert data["invalid_tool_calls"] and data["invalid_tool_calls"][0]["name"]
    assert "invalid_call" in " ".join(data["hazards"])
    (interaction,) = data["interactions"]
    assert interaction["events"][0]["kind"] == "message_start"
    assert interaction["status"] == 200 and interaction["lanes"].startswith("msg")


def test_a_cut_recording_lists_the_cut_event_undispatched():
    inspection = inspect_cassette(library_path("framing_close_mid_event", "anthropic_messages"))
    last = inspection.events[-1]
    assert last.kind == "cut" and not last.dispatched
    assert inspection.interactions[0].aborted.startswith("peer closed connection")
    assert "cut: peer closed" in str(inspection)


@pytest.mark.parametrize(
    ("scenario", "dialect", "suffix"),
    [
        ("parallel_interleaved", "openai_chat", ".sse"),
        ("tool_after_text", "ollama", ".ndjson"),
        ("parallel_sequential", "bedrock_converse", ".bin"),
    ],
)
def test_a_raw_body_file_is_inspected_in_the_named_dialect(tmp_path, scenario, dialect, suffix):
    body = load_cassette(library_path(scenario, dialect)).interactions[0].response.body
    path = tmp_path / f"body{suffix}"
    path.write_bytes(body)
    raw = inspect_cassette(path, dialect=dialect)
    from_cassette = inspect_cassette(library_path(scenario, dialect))
    assert raw.tool_calls == from_cassette.tool_calls and raw.tool_calls
    assert [e.kind for e in raw.events] == [e.kind for e in from_cassette.events]
    assert raw.source == str(path)
    assert inspect_body(body, dialect).tool_calls == raw.tool_calls


def test_several_interactions_are_inspected_one_by_one(tmp_path):
    one = load_cassette(library_path("openai_golden", "openai_chat"))
    two = load_cassette(library_path("parallel_sequential", "openai_chat"))
    both = one.with_interactions(one.interactions + two.interactions)
    path = save_cassette(both, tmp_path / "both.yaml")
    inspection = inspect_cassette(path)
    assert [len(i.merge.calls()) for i in inspection.interactions] == [1, 2]
    assert len(inspection.tool_calls) == 3
    assert inspect_cassette(path, interaction=1).tool_calls == inspection.tool_calls[1:]
    assert inspection.lanes.count("interaction ") == 2


def test_a_plain_vcrpy_cassette_without_metadata_is_read_by_its_url(tmp_path):
    cassette = load_cassette(library_path("parallel_sequential", "openai_responses"))
    text = (
        "interactions:\n- request:\n    body: null\n    headers: {}\n    method: POST\n"
        "    uri: https://api.openai.com/v1/responses\n  response:\n    body:\n"
        f"      string: {json.dumps(cassette.interactions[0].response.body.decode())}\n"
        "    headers: {}\n    status: {code: 200, message: OK}\nversion: 1\n"
    )
    path = tmp_path / "plain.yaml"
    path.write_text(text, encoding="utf-8")
    inspection = inspect_cassette(path)
    assert inspection.dialect == "openai_responses"
    assert [c["id"] for c in inspection.tool_calls] == ["call_paris_01", "call_oslo_02"]
