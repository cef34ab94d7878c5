"""Defaults that stay quiet: no warnings from fixtures' chat models under ``-W error``,
failures that point at the test's line and draw the stream the fake served."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

STRICT = ("-p", "no:cacheprovider")
STRICT_INI = "[pytest]\nfilterwarnings = error\nasyncio_default_fixture_loop_scope = function\n"
"""Every warning is an error, as in tooltape's own suite (pytest-asyncio's own nag set aside)."""

README_PATTERN_ANTHROPIC = """
import pytest
from langchain_core.tools import tool

from tooltape.cassettes import get_scenario
from tooltape.harness import assert_merge


def merged(model, prompt="Weather?"):
    message = None
    for chunk in model.stream(prompt):
        message = chunk if message is None else message + chunk
    return message


def test_fixture_model(fake_anthropic):
    scenario = get_scenario("parallel_interleaved")
    model = fake_anthropic.chat_model()  # built before the turn is scripted
    fake_anthropic.stream(scenario)
    message = merged(model)
    assert_merge(message, scenario.plan)
    sent = fake_anthropic.requests[0].json()
    assert [t["name"] for t in sent["tools"]] == ["get_weather"]


def test_bound_tools_win(fake_anthropic):
    @tool
    def get_weather(city: str) -> str:
        \"\"\"Weather for a city.\"\"\"
        return "mild"

    fake_anthropic.stream("parallel_interleaved")
    merged(fake_anthropic.chat_model().bind_tools([get_weather]))
    sent = fake_anthropic.requests[0].json()
    assert sent["tools"][0]["description"] == "Weather for a city."


@pytest.mark.tooltape_scenarios(tags=["parallel"], dialects=["anthropic_messages"])
def test_case_model(tooltape_case):
    tooltape_case.assert_merge(merged(tooltape_case.chat_model()))
"""


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_anthropic_chat_models_of_the_fixtures_stream_warning_free(pytester: pytest.Pytester):
    pytester.makeini(STRICT_INI)
    pytester.makepyfile(README_PATTERN_ANTHROPIC)
    result = pytester.runpytest_subprocess(*STRICT)
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 3, result.stdout.str()
    assert "failed" not in outcomes and "errors" not in outcomes
    assert "unexpected tool content block" not in result.stdout.str()


FAILING_MERGE = """
from tooltape.harness import Plan, assert_merge


def test_merge(fake_openai):
    fake_openai.stream("parallel_interleaved")
    message = None
    for chunk in fake_openai.chat_model().stream("hi"):
        message = chunk if message is None else message + chunk
    assert_merge(message, Plan(calls=[{"name": "get_weather", "args": {"city": "Rome"}}]))
"""


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_assert_merge_on_a_fake_message_draws_the_served_lanes_at_the_callers_line(
    pytester: pytest.Pytester,
):
    pytester.makeini(STRICT_INI)
    pytester.makepyfile(FAILING_MERGE)
    result = pytester.runpytest_subprocess(*STRICT)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "MergeMismatch" in out
    result.stdout.fnmatch_lines(
        [
            "*the stream the tooltape fake served for this message:*",
            "*msg*index 0*index 1*",
        ]
    )
    # The traceback ends at the test's own line; the helper's frames are hidden.
    assert ">       assert_merge(message, Plan(" in out
    assert "__tracebackhide__" not in out
    assert "result, stream = _subject_result(subject)" not in out


def test_a_message_from_no_fake_draws_no_lanes():
    from langchain_core.messages import AIMessage

    from tooltape.harness import MergeMismatch, Plan, assert_merge

    message = AIMessage("", tool_calls=[{"name": "x", "args": {}, "id": "not_served_anywhere"}])
    with pytest.raises(MergeMismatch) as raised:
        assert_merge(message, Plan(calls=[{"name": "y"}]))
    assert "tooltape fake served" not in str(raised.value)
    assert "index 0" not in str(raised.value)


def test_a_message_from_the_fake_chat_model_draws_its_lanes():
    from tooltape.cassettes import get_scenario
    from tooltape.fake_providers import FakeToolStreamingModel
    from tooltape.harness import MergeMismatch, Plan, assert_merge

    model = FakeToolStreamingModel(turns=[get_scenario("parallel_interleaved")])
    message = model.invoke("hi")
    with pytest.raises(MergeMismatch) as raised:
        assert_merge(message, Plan(calls=[{"name": "get_weather", "args": {"city": "Rome"}}]))
    text = str(raised.value)
    assert "the stream the tooltape fake served for this message:" in text
    assert "index 0" in text and "index 1" in text
