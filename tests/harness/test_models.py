import pytest
from pydantic import ValidationError

from tooltape.harness import Hazard, Plan, PlannedCall


def test_plan_numbers_missing_ids_in_order():
    plan = Plan(calls=[{"name": "a"}, {"name": "b", "id": "mine"}, PlannedCall(name="c")])
    assert [c.id for c in plan.calls] == ["call_0", "mine", "call_2"]


def test_plan_default_finish_depends_on_calls():
    assert Plan(calls=[{"name": "a"}]).effective_finish == "tool_calls"
    assert Plan(text_before="hi").effective_finish == "stop"
    assert Plan(calls=[{"name": "a"}], finish="stop").effective_finish == "stop"


def test_expected_calls_are_name_args_id_dicts():
    plan = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])
    assert plan.expected_calls() == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_0"}
    ]


def test_duplicate_ids_are_rejected_with_the_id_named():
    with pytest.raises(ValidationError, match="two calls share the id 'x'"):
        Plan(calls=[{"name": "a", "id": "x"}, {"name": "b", "id": "x"}])


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"calls": [{"name": ""}]}, "calls.0.name"),
        ({"calls": [{"name": "a", "args": [1]}]}, "calls.0.args"),
        ({"calls": [], "finish": "done"}, "finish"),
        ({"calls": [], "colour": "red"}, "colour"),
    ],
)
def test_invalid_plans_name_the_field(data, field):
    with pytest.raises(ValidationError) as error:
        Plan.model_validate(data)
    assert field in str(error.value)


def test_models_are_frozen():
    plan = Plan(calls=[{"name": "a"}])
    with pytest.raises(ValidationError):
        plan.text_before = "x"  # type: ignore[misc]


def test_hazard_str_names_kind_and_position():
    hazard = Hazard(kind="missing_id", position=2, detail="no id")
    assert str(hazard) == "missing_id at call 2: no id"
