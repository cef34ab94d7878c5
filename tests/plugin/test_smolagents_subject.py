"""smolagents as a matrix subject: ``generate_stream`` joined by ``agglomerate_stream_deltas``.

The smolagents column runs the real ``OpenAIServerModel`` (its own openai client)
against the fake providers and merges the deltas as smolagents' agents do. These
cells pin what it does, so a smolagents release that changes any of them shows
here and in ``tooltape matrix``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooltape.cassettes import get_scenario
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, Result, run_matrix, skipped_subjects

DIALECTS = ["openai_chat", "mistral"]
SCENARIOS = ["openai_golden", "truncated_mid_string", "split_name", "repeated_name"]
INSTALL = "pip install 'tooltape[subjects]'"


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    pytest.importorskip("smolagents", reason=f"needs smolagents: {INSTALL}")
    ran = run_matrix(
        [get_scenario(name) for name in SCENARIOS], DIALECTS, ["smolagents"], load_expectations()
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _smolagents(cell: Cell) -> Result:
    (result,) = [r for r in cell.results if r.adapter == "smolagents"]
    return result


def test_a_clean_turn_merges_as_the_reference(cells: dict[tuple[str, str], Cell]) -> None:
    result = _smolagents(cells["openai_golden", "openai_chat"])
    assert (result.status, result.detail) == ("pass", "")


def test_a_name_split_over_chunks_keeps_only_its_last_fragment(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _smolagents(cells["split_name", "openai_chat"])
    assert result.status == "differs"
    assert '+call {"args": {"city": "Paris", "unit": "celsius"}, "id": "call_weather_1", ' in (
        result.detail
    )
    assert '"name": "_weather"' in result.detail
    assert result.expected and "agglomerate_stream_deltas" in result.reason


def test_keeping_a_repeated_name_once_and_cut_arguments_invalid_is_better(
    cells: dict[tuple[str, str], Cell],
) -> None:
    assert _smolagents(cells["repeated_name", "openai_chat"]).status == "better"
    cut = _smolagents(cells["truncated_mid_string", "openai_chat"])
    assert cut.status == "better"
    assert '+invalid {"args": "{\\"city\\": \\"Pa"' in cut.detail


def test_calls_without_an_index_crash(cells: dict[tuple[str, str], Cell]) -> None:
    result = _smolagents(cells["openai_golden", "mistral"])
    assert (result.status, result.error) == ("crashes", "ValueError")
    assert "Tool call index is not provided" in result.detail


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_an_absent_smolagents_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("smolagents")
    assert skipped_subjects(["openai_chat", "mistral"], ["smolagents"]) == {"smolagents": INSTALL}
    assert skipped_subjects(["anthropic_messages"], ["smolagents"]) == {}
