"""llama-index's LLMs as matrix subjects: ``stream_chat_with_tools``, then the calls it extracts.

The llama-index columns run the real ``llama_index.llms.openai.OpenAI`` and
``llama_index.llms.anthropic.Anthropic`` (each building its own SDK client)
against the fake providers. These cells pin what they do, so a llama-index
release that changes any of them shows here and in ``tooltape matrix``. They
run in ``nox -s subjects_llamaindex`` (the llamaindex extra needs ``openai<3``)
and skip elsewhere with the install line.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooltape.cassettes import get_scenario
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, Result, run_matrix, skipped_subjects

DIALECTS = ["openai_chat", "qwen", "anthropic_messages"]
SCENARIOS = ["openai_golden", "parallel_interleaved", "truncated_mid_string", "malformed_args"]
SUBJECTS = ["llama-index-openai", "llama-index-anthropic"]
INSTALL = "pip install 'tooltape[llamaindex]'"


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    pytest.importorskip("llama_index.llms.openai", reason=f"needs llama-index: {INSTALL}")
    pytest.importorskip("llama_index.llms.anthropic", reason=f"needs llama-index: {INSTALL}")
    ran = run_matrix(
        [get_scenario(name) for name in SCENARIOS], DIALECTS, SUBJECTS, load_expectations()
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _result(cell: Cell, subject: str = "llama-index-openai") -> Result:
    (result,) = [r for r in cell.results if r.adapter == subject]
    return result


def test_a_clean_turn_merges_as_the_reference(cells: dict[tuple[str, str], Cell]) -> None:
    result = _result(cells["openai_golden", "openai_chat"])
    assert (result.status, result.detail) == ("pass", "")


def test_an_id_sent_on_every_chunk_is_concatenated(cells: dict[tuple[str, str], Cell]) -> None:
    result = _result(cells["openai_golden", "qwen"])
    assert result.status == "differs"
    assert '"id": "' + "call_weather_1" * 10 + '"' in result.detail
    assert result.expected and "update_tool_calls" in result.reason


def test_interleaved_calls_come_apart(cells: dict[tuple[str, str], Cell]) -> None:
    result = _result(cells["parallel_interleaved", "openai_chat"])
    assert result.status == "differs"
    assert '+call {"args": {}, "id": "call_paris_01", "name": "get_weather"}' in result.detail
    assert result.expected and "tool_calls_delta[0]" in result.reason


def test_cut_arguments_are_repaired_and_malformed_ones_become_empty(
    cells: dict[tuple[str, str], Cell],
) -> None:
    cut = _result(cells["truncated_mid_string", "openai_chat"])
    assert cut.status == "differs"
    assert '+call {"args": {"city": null}, "id": "call_weather_1"' in cut.detail
    malformed = _result(cells["malformed_args", "openai_chat"])
    assert malformed.status == "differs"
    assert '+call {"args": {}, "id": "call_paris_01", "name": "get_weather"}' in malformed.detail
    assert "parse_partial_json" in cut.reason and "parse_partial_json" in malformed.reason


def test_the_anthropic_llm_crashes_on_anthropic_2(cells: dict[tuple[str, str], Cell]) -> None:
    result = _result(cells["openai_golden", "anthropic_messages"], "llama-index-anthropic")
    assert (result.status, result.error) == ("crashes", "TypeError")
    assert "Cannot instantiate typing.Union" in result.detail
    assert result.expected and "messages_to_anthropic_messages" in result.reason


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_an_absent_llama_index_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("llama_index")
    assert skipped_subjects(["openai_chat", "anthropic_messages"], SUBJECTS) == dict.fromkeys(
        SUBJECTS, INSTALL
    )
    assert skipped_subjects(["gemini"], SUBJECTS) == {}
