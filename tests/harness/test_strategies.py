import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tooltape.harness import Plan, PlannedStream, TooltapeUsageError, reference_merge
from tooltape.harness.strategies import deltas, histories, planned_streams, plans, quirk_sets


@given(planned_streams(quirks=quirk_sets(lossless_only=True)))
def test_lossless_streams_merge_back_to_their_plan(stream):
    assert stream.lossless
    assert reference_merge(stream).calls() == stream.plan.expected_calls()


@given(deltas())
def test_deltas_are_chunk_lists(value):
    assert isinstance(value, list)
    assert all(
        isinstance(d, list) and all(set(c) >= {"name", "args", "id", "index"} for c in d)
        for d in value
    )


@given(planned_streams(plans(min_calls=0, max_calls=0)))
def test_empty_plans_drop_call_targeting_quirks(stream):
    assert isinstance(stream, PlannedStream) and stream.fragments == []


@given(quirk_sets(kinds=["repeat_name"]))
def test_kinds_restrict_every_axis_and_split_args_stays(quirks):
    assert {q.kind for q in quirks} <= {"repeat_name", "split_args"}


@given(quirk_sets(exclude_kinds=["pack_fragments", "missing_id", "whole_call"]))
def test_any_kind_can_be_excluded(quirks):
    assert not {q.kind for q in quirks} & {"pack_fragments", "missing_id", "whole_call"}


def test_strategy_arguments_are_checked():
    with pytest.raises(TooltapeUsageError, match="min_calls=3, max_calls=1"):
        plans(min_calls=3, max_calls=1)
    with pytest.raises(TooltapeUsageError, match="unknown quirk kind 'nope'; known quirk kinds: "):
        quirk_sets(kinds=["nope"])


def test_shrinks_toward_one_call_and_one_piece():
    found = []

    @settings(
        max_examples=200, derandomize=True, database=None, phases=[Phase.generate, Phase.shrink]
    )
    @given(planned_streams())
    def has_two_fragments(stream):
        if len(stream.fragments) >= 2:
            found.append(stream)
            raise AssertionError

    with pytest.raises(AssertionError):
        has_two_fragments()
    smallest = found[-1]
    assert len(smallest.plan.calls) == 1
    # the splitter shrinks to one piece: which one-piece splitter depends on Hypothesis's
    # shrinker (whole_args on the oldest release the pyproject allows)
    assert str(smallest.quirks[0]) in {"split_args(pieces=1, max_size=8)", "whole_args"}
    assert isinstance(smallest.plan, Plan)


@given(st.data())
def test_seeds_make_streams_reproducible(data):
    stream = data.draw(planned_streams())
    from tooltape.harness import stream_plan

    again = stream_plan(stream.plan, stream.quirks, seed=stream.seed)
    assert again.messages == stream.messages


EXPECTED_PROBLEM = {
    "drop_result": "call_without_result",
    "orphan_result": "result_without_call",
    "duplicate_result": "duplicate_result",
    "empty_id": "empty_id",
    "duplicate_call_id": "duplicate_call_id",
}


@given(histories(faults=list(EXPECTED_PROBLEM)))
def test_histories_carry_exactly_the_faults_they_report(drawn):
    from tooltape.harness import find_pairing_problems, read_history

    shape, history, applied = drawn
    assert read_history(history).shape == shape
    kinds = {p.kind for p in find_pairing_problems(history)}
    assert {EXPECTED_PROBLEM[f] for f in applied} <= kinds
    if not applied:
        assert kinds == set()


def test_histories_arguments_are_checked():
    with pytest.raises(TooltapeUsageError, match="unknown fault 'gremlins'; known faults: "):
        histories(faults=["gremlins"])
