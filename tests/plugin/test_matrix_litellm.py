"""LiteLLM as a matrix subject: its own provider routes, judged cell by cell.

``litellm.completion(stream=True)`` runs LiteLLM's request builder and stream
parser for each provider route against the served fake, and
``stream_chunk_builder`` merges the chunks. These cells pin what LiteLLM 1.110
does that the matrix must see (plugin/matrix_expectations.yaml says why), and
that a missing LiteLLM is listed with its install line instead of vanishing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import get_dialect
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, run_matrix, skipped_subjects, subjects_for

SCENARIOS = ["openai_golden", "repeated_name", "split_name", "missing_id", "truncated_mid_string"]
DIALECTS = ["openai_chat", "anthropic_messages", "gemini", "cohere_v2"]


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    pytest.importorskip(
        "litellm", reason="needs litellm: pip install 'tooltape[subjects]', or nox -s subjects"
    )
    run = run_matrix(
        [get_scenario(name) for name in SCENARIOS], DIALECTS, ["litellm"], load_expectations(None)
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in run}


def _litellm(cells: dict[tuple[str, str], Cell], scenario: str, dialect: str) -> tuple[str, str]:
    (result,) = [r for r in cells[scenario, dialect].results if r.adapter == "litellm"]
    return result.status, result.detail


def test_every_litellm_cell_is_what_the_expectations_file_says(
    cells: dict[tuple[str, str], Cell],
) -> None:
    ran = [r for cell in cells.values() for r in cell.results if r.adapter == "litellm"]
    rendered = [cell for cell in cells.values() if not cell.skipped]
    assert len(ran) == len(rendered) > 10  # every route ran where the dialect says the scenario
    assert [r for cell in cells.values() for r in cell.unexpected] == []


def test_a_clean_stream_passes_through_each_working_route(
    cells: dict[tuple[str, str], Cell],
) -> None:
    assert _litellm(cells, "openai_golden", "openai_chat")[0] == "pass"
    assert _litellm(cells, "openai_golden", "anthropic_messages")[0] == "pass"


def test_what_litellm_gets_wrong_is_worse(cells: dict[tuple[str, str], Cell]) -> None:
    status, detail = _litellm(cells, "split_name", "openai_chat")
    assert status == "differs" and '"name": "_weather"' in detail  # keeps the last fragment
    status, detail = _litellm(cells, "missing_id", "openai_chat")
    assert status == "differs" and "+call" not in detail  # the idless calls are dropped
    status, detail = _litellm(cells, "openai_golden", "gemini")
    assert status == "differs" and "call_weather_1__thought__" in detail
    status, detail = _litellm(cells, "openai_golden", "cohere_v2")
    assert status == "crashes" and "Error parsing chunk" in detail
    status, detail = _litellm(cells, "truncated_mid_string", "anthropic_messages")
    assert status == "crashes" and "Stream ended before a finish_reason" in detail


def test_keeping_a_name_once_where_langchain_core_doubles_it_is_better(
    cells: dict[tuple[str, str], Cell],
) -> None:
    status, detail = _litellm(cells, "repeated_name", "openai_chat")
    assert status == "better"
    assert detail.startswith("better than the reference: recovers the plan")


def test_an_absent_litellm_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("litellm")
    skipped = skipped_subjects(["openai_chat", "gemini"], None)
    assert skipped["litellm"] == "pip install 'tooltape[subjects]'"
    # the others are the subjects of their own nox sessions, when absent
    own_sessions = {"openai-agents", "llama-index-openai", "langchain-js", "vercel-ai"}
    assert set(skipped) - {"litellm"} <= own_sessions
    assert skipped_subjects(["openai_chat"], ["openai-sdk"]) == {}
    assert "litellm" not in [a.name for a in subjects_for(get_dialect("gemini"), None)]
