"""Verdicts compare JSON values, types included; the headline names the first difference."""

import pytest
from _mergers import correct
from hypothesis import strategies as st

from tooltape.harness import MergeMismatch, Plan, assert_merge, check_merger, stream_plan
from tooltape.harness._json_compare import first_difference, json_equal, type_differences
from tooltape.plugin._snapshot import describe_for_snapshot


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, True),
        (1.0, True),
        (0, False),
        (0.0, -0.0),
        (0, -0.0),
        (None, False),
        ({"n": [1, {"x": 2}]}, {"n": [1, {"x": 2.0}]}),
        ([1, 2], [2, 1]),
        (2**64 + 1, float(2**64 + 1)),
    ],
)
def test_values_python_calls_equal_are_different_json(a, b):
    assert not json_equal(a, b)
    assert not json_equal(b, a)


@pytest.mark.parametrize(
    "value",
    [1, 1.5, -0.0, True, None, "", "😀", {"a": {"b": [1, 2.5, None]}}, 2**70, 1e-300],
)
def test_a_value_equals_itself_and_key_order_does_not_matter(value):
    assert json_equal(value, value)
    assert json_equal({"a": 1, "b": value}, {"b": value, "a": 1})


def test_type_differences_name_the_place_and_both_types():
    want = [{"name": "add", "args": {"a": 1, "b": {"c": True}}, "id": "x"}]
    got = [{"name": "add", "args": {"a": 1.0, "b": {"c": 1}}, "id": "x"}]
    lines = type_differences(want, got)
    assert "call 0 args['a']: expected 1 (integer), got 1.0 (float)" in lines
    assert "call 0 args['b']['c']: expected True (boolean), got 1 (integer)" in lines
    assert first_difference(want, got) == (0, "args", want[0]["args"], got[0]["args"])


def test_assert_merge_tells_an_integer_from_a_float_and_shows_the_types():
    plan = Plan(calls=[{"name": "add", "args": {"a": 1, "flag": True, "z": -0.0}}])
    assert_merge(stream_plan(plan), plan)
    wrong = [{"name": "add", "args": {"a": 1.0, "flag": True, "z": -0.0}, "id": "call_0"}]
    with pytest.raises(MergeMismatch) as error:
        assert_merge(wrong, plan)
    assert "call 0 args['a']: expected 1 (integer), got 1.0 (float)" in str(error.value)
    for zero in (0.0, 0):
        with pytest.raises(MergeMismatch, match=r"expected -0\.0 \(float\)"):
            assert_merge([{"name": "add", "args": {"a": 1, "flag": True, "z": zero}}], plan)


def test_the_snapshot_text_keeps_json_types_apart():
    texts = {
        describe_for_snapshot(stream_plan(Plan(calls=[{"name": "f", "args": {"n": n}}])))
        for n in (1, 1.0, True, 0.0, -0.0)
    }
    assert len(texts) == 5


def _as(change):
    def merger(deltas):
        return [{**c, "args": change(c["args"])} for c in correct(deltas)]

    merger.__name__ = merger.__qualname__ = change.__name__
    return merger


def test_check_merger_catches_a_merger_that_reads_integers_as_floats():
    def ints_as_floats(args):
        return {k: float(v) if type(v) is int else v for k, v in args.items()}

    plan = Plan(calls=[{"name": "add", "args": {"a": 2, "b": 3}}])
    options = {
        "scenarios": [],
        "plans_strategy": st.just(plan),
        "quirks_strategy": st.just([]),
        "max_examples": 5,
    }
    with pytest.raises(MergeMismatch) as error:
        check_merger(_as(ints_as_floats), **options)
    first = str(error.value).splitlines()[0]
    assert "call 0 (call_0) args['a']: 2.0 (float) from the merger, 2 (integer) from" in first
    assert "args['a']: expected 2 (integer), got 2.0 (float)" in str(error.value)


def test_the_headline_names_the_call_field_and_values_not_a_hazard_elsewhere():
    # Call 0's arguments are not an object (langchain-core drops it: a hazard); the merger
    # gets call 1's name wrong. The headline names the name, not the hazard on call 0.
    plan = Plan(
        calls=[
            {"name": "search", "args": {"q": "x"}},
            {"name": "get_weather", "args": {"city": "Paris"}},
        ]
    )

    def cuts_the_second_name(deltas):
        calls = correct(deltas)
        return [{**c, "name": c["name"][-3:]} if c["id"] == "call_1" else c for c in calls]

    options = {
        "scenarios": [],
        "plans_strategy": st.just(plan),
        "quirks_strategy": st.just([{"kind": "non_object_args", "call": 0}]),
        "max_examples": 3,
    }
    with pytest.raises(MergeMismatch) as error:
        check_merger(cuts_the_second_name, **options)
    first = str(error.value).splitlines()[0]
    assert "call 0 (call_1) name: 'her' from the merger, 'get_weather' from langchain-core" in first
    assert "drops a call whose arguments are not a JSON object" not in first
    assert "hazards (invalid_call), but not on this call" in first


def test_the_hazard_label_stays_when_the_differing_call_carries_it():
    plan = Plan(calls=[{"name": "search", "args": {"q": "x"}}])

    def keeps_everything(deltas):
        return [{**c, "args": c["args"]} for c in correct(deltas)] or [
            {"name": "search", "args": {}, "id": "call_0"}
        ]

    options = {
        "scenarios": [],
        "plans_strategy": st.just(plan),
        "quirks_strategy": st.just([{"kind": "non_object_args", "call": 0}]),
        "max_examples": 3,
    }
    with pytest.raises(MergeMismatch) as error:
        check_merger(keeps_everything, **options)
    first = str(error.value).splitlines()[0]
    assert "the merger returns an extra call 0 (call_0) 'search'" in first
    assert "drops a call whose arguments are not a JSON object (invalid_call)" in first
