"""The OpenAI Agents SDK as a matrix subject: a streamed Runner run through its model classes.

The openai-agents column runs the real SDK (``Runner.run_streamed``, the
``OpenAIChatCompletionsModel`` stream handler and ``OpenAIResponsesModel``)
against the fake providers; the run stops at the tool approval, before any
tool runs. These cells pin what it does, so a release that changes any of them
shows here and in ``tooltape matrix``. openai-agents is in the ``subjects``
extra only (it downgrades websockets): ``nox -s subjects`` runs this module.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import get_dialect
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import (
    Cell,
    Result,
    run_matrix,
    skipped_subjects,
    subjects_for,
)

DIALECTS = ["openai_chat", "openai_responses", "vllm"]
SCENARIOS = ["openai_golden", "parallel_sequential", "split_name", "shared_index_whole_calls"]


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    pytest.importorskip(
        "agents", reason="needs openai-agents: pip install 'tooltape[subjects]', or nox -s subjects"
    )
    ran = run_matrix(
        [get_scenario(name) for name in [*SCENARIOS, "missing_id"]],
        DIALECTS,
        ["openai-agents"],
        load_expectations(),
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _agents(cell: Cell) -> Result:
    (result,) = [r for r in cell.results if r.adapter == "openai-agents"]
    return result


@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses"])
@pytest.mark.parametrize("scenario", ["openai_golden", "parallel_sequential"])
def test_each_model_class_merges_a_clean_turn_as_the_reference(
    cells: dict[tuple[str, str], Cell], scenario: str, dialect: str
) -> None:
    result = _agents(cells[scenario, dialect])
    assert (result.status, result.detail) == ("pass", "")


def test_a_name_repeated_on_every_chunk_is_kept_once_where_langchain_core_doubles_it(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _agents(cells["openai_golden", "vllm"])
    assert result.status == "better"
    assert result.detail.startswith("better than the reference: recovers the plan")
    assert '+call {"args": {"city": "Paris", "unit": "celsius"}, "id": "call_weather_1", ' in (
        result.detail
    )


def test_two_calls_sharing_an_index_are_glued_into_one(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _agents(cells["shared_index_whole_calls", "openai_chat"])
    assert result.status == "differs"
    # the arguments are concatenated and the last id wins
    assert '+invalid {"args": "{\\"city\\": \\"Paris\\"}{\\"city\\": \\"Oslo\\"}"' in result.detail
    assert '"id": "call_oslo_02"' in result.detail
    assert result.expected, result.reason  # pinned in matrix_expectations.yaml
    assert "chatcmpl_stream_handler.py" in result.reason


def test_a_split_name_keeps_its_last_fragment(cells: dict[tuple[str, str], Cell]) -> None:
    result = _agents(cells["split_name", "openai_chat"])
    assert result.status == "differs"
    assert '+call {"args": {"city": "Paris", "unit": "celsius"}, "id": "call_weather_1", ' in (
        result.detail
    )
    assert '"name": "_weather"}' in result.detail
    assert result.expected, result.reason


def test_an_idless_call_s_empty_id_is_judged_as_langchain_core_s_none(
    cells: dict[tuple[str, str], Cell],
) -> None:
    # The SDK starts each call with call_id "" and keeps it when the stream sends none;
    # langchain-core keeps None: the same missing id, so the cell is the reference's
    # (its hazard: the ToolMessage cannot be paired), not a difference.
    result = _agents(cells["missing_id", "openai_chat"])
    assert result.status == "hazard", result.detail
    assert "missing_id" in result.detail
    # the Responses stream always names its calls: the model class keeps the ids it sent
    assert _agents(cells["missing_id", "openai_responses"]).status in ("pass", "hazard")


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_an_absent_openai_agents_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("agents")
    assert skipped_subjects(["openai_chat", "openai_responses"], ["openai-agents"]) == {
        "openai-agents": "pip install 'tooltape[subjects]'"
    }
    assert "openai-agents" not in [a.name for a in subjects_for(get_dialect("openai_chat"), None)]
