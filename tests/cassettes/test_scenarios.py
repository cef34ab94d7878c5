import pytest
from _adapter_streams import rendered

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import dialect_names
from tooltape.harness import (
    ScenarioFileError,
    TooltapeUsageError,
    load_scenarios,
    reference_merge,
    select_scenarios,
)


def test_the_library_has_the_ranked_scenarios_and_the_framing_set():
    scenarios = bundled_scenarios()
    assert len(scenarios) >= 30
    assert len({s.name for s in scenarios}) == len(scenarios)
    assert len(select_scenarios(scenarios, tags=["framing"])) >= 10


@pytest.mark.parametrize("scenario", bundled_scenarios(), ids=lambda s: s.name)
def test_every_scenario_renders_in_some_dialect_and_lossless_ones_keep_the_plan(scenario):
    assert any(rendered(name, scenario) is not None for name in dialect_names()), scenario.name
    if scenario.lossless:
        assert reference_merge(scenario.stream()).calls() == scenario.plan.expected_calls()


def test_lookup_by_name():
    assert get_scenario("repeated_name").tags == ("names",)
    with pytest.raises(TooltapeUsageError, match="unknown scenario"):
        get_scenario("nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("scenarios: [", "not valid YAML at line"),
        ("- a\n- b\n", "expected a mapping with a 'scenarios' list"),
        (
            "scenarios:\n  - {name: x, plan: {calls: []}}\n",
            "scenario 'x', field description: Field required",
        ),
        ("scenarios:\n  - {name: Bad Name, description: d, plan: {}}\n", "field name: Value error"),
        (
            "scenarios:\n  - {name: x, description: d, plan: {calls: [{name: ''}]}}\n",
            r"field plan\.calls\.0\.name",
        ),
        (
            "scenarios:\n  - {name: x, description: d, plan: {}, quirks: [nope]}\n",
            "quirk 'nope': unknown",
        ),
        (
            "scenarios:\n" + "  - {name: x, description: d, plan: {}}\n" * 2,
            "'x' is defined twice",
        ),
    ],
)
def test_bad_scenario_files_get_one_paragraph_errors(tmp_path, text, message):
    path = tmp_path / "scenarios.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=message) as error:
        load_scenarios(path)
    assert str(error.value).startswith(str(path))
    assert "\n" not in str(error.value)


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioFileError, match="cannot read the scenario file"):
        load_scenarios(tmp_path / "absent.yaml")
