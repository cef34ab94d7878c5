"""Every public strategy passes Hypothesis's health checks with nothing suppressed."""

import pytest
from hypothesis import given, settings

from tooltape.fake_providers import dialect_names
from tooltape.fake_providers.strategies import framings, wire_streams
from tooltape.harness import strategies

STRICT = settings(
    max_examples=30, suppress_health_check=(), database=None, derandomize=True, deadline=None
)

HARNESS = {
    "tool_names": strategies.tool_names,
    "argument_objects": strategies.argument_objects,
    "planned_calls": strategies.planned_calls,
    "plans": strategies.plans,
    "quirk_sets": strategies.quirk_sets,
    "quirks": strategies.quirks,
    "planned_streams": strategies.planned_streams,
    "deltas": strategies.deltas,
    "histories": strategies.histories,
    "framings": framings,
}


def test_nothing_is_suppressed():
    assert STRICT.suppress_health_check == ()


@pytest.mark.parametrize("name", sorted(HARNESS))
def test_harness_strategies_pass_health_checks(name):
    @STRICT
    @given(HARNESS[name]())
    def draws(value):
        assert value is not None

    draws()


@pytest.mark.parametrize("dialect", dialect_names())
def test_wire_streams_pass_health_checks_in_every_dialect(dialect):
    @STRICT
    @given(wire_streams(dialect=dialect))
    def draws(wire):
        assert wire.body

    draws()
