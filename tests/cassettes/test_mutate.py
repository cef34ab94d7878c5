"""mutate(): quirk variants of a recording, in the recording's own dialect.

The recording's calls (names, ids, arguments), its text and reasoning survive;
the envelope is rendered afresh; wire quirks keep every recorded byte. The
variants are checked through the real adapters, not only through parse().
"""

from __future__ import annotations

import json

import pytest
from _corpus import corpus_params
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import (
    CassetteError,
    convert_corpus_record,
    get_scenario,
    library_path,
    load_cassette,
    mutate,
    save_cassette,
    use_cassette,
)
from tooltape.fake_providers import get_dialect
from tooltape.harness import Stage, parse_quirk, reference_merge

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

QUIRKS = [
    "split_name",
    "missing_id",
    "id_on_every_chunk",
    "repeat_name",
    "interleave_calls",
    "shared_index",
    "late_id",
    {"kind": "truncate_args", "at": "string"},
    "malformed_args",
    "close_mid_event",
    "split_reads",
    "split_utf8",
]
DIALECTS = ["openai_chat", "openai_responses", "anthropic_messages"]
# Where the dialect's wire has no place for the quirk (one call id and name per item or
# block), mutate says so in one line instead of writing a variant.
CANNOT_EXPRESS = {
    ("anthropic_messages", "split_name"),
    ("anthropic_messages", "missing_id"),
    ("anthropic_messages", "id_on_every_chunk"),
    ("anthropic_messages", "repeat_name"),
    ("anthropic_messages", "shared_index"),
    ("anthropic_messages", "late_id"),
    ("openai_responses", "split_name"),
    ("openai_responses", "id_on_every_chunk"),
    ("openai_responses", "repeat_name"),
    ("openai_responses", "shared_index"),
    ("openai_responses", "late_id"),
}


def _merge(cassette, dialect: str):
    return reference_merge(get_dialect(dialect).parse(cassette.interactions[0].response.body))


def _model(dialect: str):
    if dialect == "anthropic_messages":
        return ChatAnthropic(
            model="claude-sonnet-4-6", api_key=SecretStr("sk-test"), max_retries=0
        ).bind_tools(
            [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}]
        )
    return ChatOpenAI(
        model="gpt-4.1",
        api_key=SecretStr("sk-test"),
        max_retries=0,
        use_responses_api=dialect == "openai_responses",
    )


def _trimmed(deltas: list) -> list:
    """Without trailing empty messages (dialects differ on the final empty chunk)."""
    deltas = list(deltas)
    while deltas and not deltas[-1]:
        deltas.pop()
    return deltas


def _adapter_chunks(path, dialect: str) -> tuple[list, bool]:
    chunks, raised = [], False
    with use_cassette(path):
        try:
            chunks.extend(_model(dialect).stream("hi"))
        except Exception:  # a cut or corrupted stream: compare what came before
            raised = True
    return [c.tool_call_chunks for c in chunks if c.chunk_position != "last"], raised


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("quirk", QUIRKS, ids=str)
def test_a_variant_plays_through_the_real_adapter_as_its_dialect_reads_it(tmp_path, dialect, quirk):
    source = library_path("tool_after_thinking", dialect)
    try:
        variant = mutate(source, quirk, seed=5)
    except CassetteError as error:  # the dialect cannot express it: said in one line
        message = str(error)
        assert message.startswith(f"{source}: interaction 0: ")
        assert "\n" not in message
        assert (dialect, str(quirk)) in CANNOT_EXPRESS, message
        return
    assert (dialect, str(quirk)) not in CANNOT_EXPRESS
    original = load_cassette(source)
    assert variant.info.dialect == dialect
    assert variant.interactions[0].request == original.interactions[0].request
    path = save_cassette(variant, tmp_path / "variant.yaml")
    parsed = get_dialect(dialect).parse(variant.interactions[0].response.body)
    seen, raised = _adapter_chunks(path, dialect)
    assert _trimmed(seen) == _trimmed(parsed[: len(seen)] if raised else parsed)
    assert parse_quirk(load_cassette(path).info.quirks[-1]) == parse_quirk(quirk)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("quirk", ["split_reads", "events_per_read", "whole_call", "ping_events"])
def test_lossless_variants_keep_the_recorded_calls_ids_and_arguments(dialect, quirk):
    source = load_cassette(library_path("tool_after_thinking", dialect))
    try:
        variant = mutate(source, quirk, seed=2)
    except CassetteError:
        assert dialect != "anthropic_messages"  # ping events are Anthropic's
        return
    assert _merge(variant, dialect).calls() == _merge(source, dialect).calls()
    assert [c["id"] for c in _merge(variant, dialect).calls()] == ["call_paris_01", "call_oslo_02"]


@pytest.mark.parametrize("dialect", ["openai_responses", "anthropic_messages"])
def test_the_recovered_plan_keeps_text_and_reasoning(dialect):
    variant = mutate(library_path("tool_after_thinking", dialect), "truncate_args")
    assert variant.info.plan == get_scenario("tool_after_thinking").plan
    assert variant.info.derived_from.endswith("interaction(s) 0")
    body = variant.interactions[0].response.body.decode()
    assert "Checking both." in body or "Checking" in body


@pytest.mark.parametrize("dialect", ["openai_chat", "anthropic_messages"])
def test_interleaving_two_recorded_calls_keeps_them(dialect):
    source = load_cassette(library_path("parallel_sequential", dialect))
    variant = mutate(source, "interleave_calls", seed=3)
    assert _merge(variant, dialect).calls() == _merge(source, dialect).calls()
    assert variant.interactions[0].response.body != source.interactions[0].response.body


def test_wire_quirks_keep_every_recorded_byte():
    source = load_cassette(library_path("unicode_args", "openai_chat"))
    for quirk in ("split_reads", "events_per_read", "split_utf8"):
        assert parse_quirk(quirk).stage is Stage.WIRE
        variant = mutate(source, quirk, seed=1)
        response = variant.interactions[0].response
        assert response.body == source.interactions[0].response.body
        assert response.reads() != source.interactions[0].response.reads()
    comments = mutate(source, "comments").interactions[0].response.body
    assert comments != source.interactions[0].response.body and b"\n:" in b"\n" + comments
    assert (
        _merge(mutate(source, "comments"), "openai_chat").calls()
        == _merge(source, "openai_chat").calls()
    )


def test_the_variant_reference_is_written_and_differs_when_the_quirk_loses_data():
    source = library_path("parallel_sequential", "openai_chat")
    variant = mutate(source, "repeat_name")
    names = [c["name"] for c in variant.info.reference["tool_calls"]]
    assert names == ["get_weatherget_weather"] * 2 or "repeated_name" in " ".join(
        variant.info.reference["hazards"]
    )


@pytest.mark.parametrize("record", corpus_params("chat_completions"))
def test_a_real_recording_becomes_an_interleaved_variant_with_its_own_ids(record):
    cassette = convert_corpus_record(record)
    merged = _merge(cassette, "openai_chat")
    try:
        variant = mutate(cassette, "interleave_calls", seed=1)
    except CassetteError as error:
        message = str(error)
        assert "invalid call" in message or "make no plan" in message
        assert merged.invalid_tool_calls or len({c["id"] for c in merged.tool_calls}) < len(
            merged.tool_calls
        )
        return
    assert _merge(variant, "openai_chat").calls() == merged.calls()
    assert variant.info.source == cassette.info.source
    assert json.loads(variant.interactions[0].request.body) == record["request"] or (
        variant.interactions[0].request.body == cassette.interactions[0].request.body
    )
