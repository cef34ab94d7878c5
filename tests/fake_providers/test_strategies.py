import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers.strategies import framings, wire_streams
from tooltape.harness import TooltapeUsageError, reference_merge
from tooltape.harness.strategies import planned_streams, quirk_sets

LOSSLESS = planned_streams(quirks=quirk_sets(lossless_only=True))


@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.data())
def test_lossless_wires_parse_back_to_their_plan(data):
    stream = data.draw(LOSSLESS)
    wire = data.draw(wire_streams(dialect="openai_chat", streams=st.just(stream)))
    deltas = get_dialect("openai_chat").parse(wire.body)
    assert reference_merge(deltas).calls() == stream.plan.expected_calls()
    assert b"".join(wire.reads) == wire.body


@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(wire_streams(dialect="anthropic_messages"))
def test_wires_of_a_stricter_dialect_skip_what_it_cannot_say(wire):
    assert wire.content_type.startswith("text/event-stream")


@given(framings(sse=False))
def test_non_sse_framing_has_only_byte_level_quirks(quirks):
    assert {q.kind for q in quirks} <= {"split_reads", "events_per_read", "split_utf8"}


def test_unknown_dialect_fails_at_call_time():
    with pytest.raises(TooltapeUsageError, match="unknown dialect"):
        wire_streams(dialect="klingon")
