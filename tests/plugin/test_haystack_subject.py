"""Haystack as a matrix subject: its chat generators' streamed runs with tools.

The haystack column runs the real ``OpenAIChatGenerator`` (and anthropic-haystack's
``AnthropicChatGenerator``) with a streaming callback against the fake providers:
the generator builds its own SDK client, converts each event to a
``StreamingChunk`` and joins them into the reply's ``tool_calls``. These cells pin
what it does, so a Haystack release that changes any of them shows here and in
``tooltape matrix``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tooltape.cassettes import get_scenario
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, Result, run_matrix, skipped_subjects

DIALECTS = ["openai_chat", "anthropic_messages", "gemini_openai"]
SCENARIOS = ["openai_golden", "truncated_mid_string", "empty_string_continuations"]
INSTALL = "pip install 'tooltape[subjects]'"


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    pytest.importorskip("haystack", reason=f"needs haystack-ai: {INSTALL}")
    pytest.importorskip("haystack_integrations.components.generators.anthropic")
    ran = run_matrix(
        [get_scenario(name) for name in SCENARIOS], DIALECTS, ["haystack"], load_expectations()
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _haystack(cell: Cell) -> Result:
    (result,) = [r for r in cell.results if r.adapter == "haystack"]
    return result


@pytest.mark.parametrize("dialect", ["openai_chat", "anthropic_messages"])
def test_each_generator_merges_a_clean_turn_as_the_reference(
    cells: dict[tuple[str, str], Cell], dialect: str
) -> None:
    result = _haystack(cells["openai_golden", dialect])
    assert (result.status, result.detail) == ("pass", "")


def test_a_call_with_cut_arguments_is_skipped(cells: dict[tuple[str, str], Cell]) -> None:
    for dialect in ("openai_chat", "anthropic_messages"):
        result = _haystack(cells["truncated_mid_string", dialect])
        assert result.status == "differs", dialect
        # the reference's repaired call is gone and nothing stands in its place
        assert '-call {"args": {"city": "Pa"}' in result.detail
        assert "+call" not in result.detail and "+invalid" not in result.detail
        assert result.expected and "skips" in result.reason


def test_an_empty_id_on_continuations_erases_the_call_s_id(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _haystack(cells["empty_string_continuations", "openai_chat"])
    assert result.status == "differs"
    assert '+call {"args": {"city": "Paris", "unit": "celsius"}, "id": null' in result.detail


def test_calls_without_an_index_crash_the_openai_generator(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _haystack(cells["openai_golden", "gemini_openai"])
    assert (result.status, result.error) == ("crashes", "ValueError")
    assert "`index` must also be set" in result.detail


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_haystack_is_imported_without_telemetry_and_leaves_the_environment(tmp_path: Path) -> None:
    pytest.importorskip("haystack", reason=f"needs haystack-ai: {INSTALL}")
    env = {k: v for k, v in os.environ.items() if k != "HAYSTACK_TELEMETRY_ENABLED"}
    env["HOME"] = str(tmp_path)
    script = (
        "import os; from tooltape.fake_providers._haystack import _haystack; _haystack(); "
        "print(os.environ.get('HAYSTACK_TELEMETRY_ENABLED'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "None"
    # haystack's telemetry writes its user id here when it starts
    assert not (tmp_path / ".haystack").exists()


def test_an_absent_haystack_is_listed_with_its_install_line(
    without_modules: Callable[..., None],
) -> None:
    without_modules("haystack")
    assert skipped_subjects(["openai_chat"], ["haystack"]) == {"haystack": INSTALL}
    assert skipped_subjects(["anthropic_messages"], ["haystack"]) == {"haystack": INSTALL}
