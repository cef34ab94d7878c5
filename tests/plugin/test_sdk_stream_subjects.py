"""The google-genai, mistralai, cohere and ollama SDKs' own streams as matrix subjects.

Each SDK streams a turn through its own client and stream parser against the
fake provider, and the calls are collected as its documentation shows. These
cells pin what each SDK makes of the wire, so a release that changes it shows
here and in ``tooltape matrix``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import get_dialect
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, Result, run_matrix, skipped_subjects, subjects_for

SUBJECTS = {
    "gemini": "google-genai-sdk",
    "mistral_native": "mistralai-sdk",
    "cohere_v2": "cohere-sdk",
    "ollama": "ollama-sdk",
}
SCENARIOS = ["openai_golden", "parallel_sequential", "missing_id", "framing_error_envelope"]


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    ran = run_matrix(
        [get_scenario(name) for name in SCENARIOS],
        list(SUBJECTS),
        list(SUBJECTS.values()),
        load_expectations(),
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _sdk(cells: dict[tuple[str, str], Cell], scenario: str, dialect: str) -> Result:
    (result,) = [r for r in cells[scenario, dialect].results if r.adapter == SUBJECTS[dialect]]
    return result


@pytest.mark.parametrize("dialect", ["gemini", "mistral_native"])
@pytest.mark.parametrize("scenario", ["openai_golden", "parallel_sequential"])
def test_a_clean_turn_is_collected_as_the_reference_merges_it(
    cells: dict[tuple[str, str], Cell], scenario: str, dialect: str
) -> None:
    assert (_sdk(cells, scenario, dialect).status, _sdk(cells, scenario, dialect).detail) == (
        "pass",
        "",
    )


def test_cohere_s_events_merged_by_index_recover_what_langchain_cohere_loses(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _sdk(cells, "openai_golden", "cohere_v2")
    assert result.status == "better"
    assert result.detail.startswith("better than the reference: recovers the plan")


def test_mistralai_names_an_idless_call_null(cells: dict[tuple[str, str], Cell]) -> None:
    result = _sdk(cells, "missing_id", "mistral_native")
    assert result.status == "differs"
    assert '+call {"args": {"city": "Oslo"}, "id": "null", "name": "get_weather"}' in result.detail
    assert result.expected and "toolcall.py" in result.reason


def test_ollama_s_idless_calls_are_judged_as_chat_ollama_s_minted_ones(
    cells: dict[tuple[str, str], Cell],
) -> None:
    # Ollama's wire carries no id: ollama-python leaves it out where ChatOllama mints a
    # uuid4, and neither is wrong for it (the engine aligns ids no provider sent).
    result = _sdk(cells, "openai_golden", "ollama")
    assert result.status == "pass", result.detail


def test_an_error_envelope_raises_or_is_swallowed(cells: dict[tuple[str, str], Cell]) -> None:
    gemini = _sdk(cells, "framing_error_envelope", "gemini")
    assert (gemini.status, gemini.error) == ("crashes", "TypeError")
    mistral = _sdk(cells, "framing_error_envelope", "mistral_native")
    assert (mistral.status, mistral.error) == ("crashes", "ResponseValidationError")
    cohere = _sdk(cells, "framing_error_envelope", "cohere_v2")
    assert cohere.status == "differs" and cohere.error is None  # no exception: the error is lost


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_an_absent_sdk_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("google.genai", "ollama")
    skipped = skipped_subjects(["gemini", "ollama"], ["google-genai-sdk", "ollama-sdk"])
    assert skipped == {
        "google-genai-sdk": "pip install google-genai",
        "ollama-sdk": "pip install ollama",
    }
    assert "google-genai-sdk" not in [a.name for a in subjects_for(get_dialect("gemini"), None)]
