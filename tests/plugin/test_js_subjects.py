"""LangChain.js and the Vercel AI SDK as matrix subjects (``langchain-js``, ``vercel-ai``).

The runs need node and the pinned packages in ``plugin/js``: ``npm ci --no-audit --no-fund
--prefix plugin/js`` then ``TOOLTAPE_JS_DIR=$PWD/plugin/js pytest tests/plugin/test_js_subjects.py``
(``nox -s js`` does both); without them those tests skip, saying so. What happens when node
or the packages are absent is tested everywhere.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import get_dialect
from tooltape.plugin._cell_limits import CellHangs
from tooltape.plugin._engine.expectations import Expectations, load_expectations
from tooltape.plugin._engine.js_subjects import BatchCell, JsError, run_batch
from tooltape.plugin._engine.run import Cell, run_matrix, skipped_subjects
from tooltape.plugin._js_reference import js_missing

JS = ("langchain-js", "vercel-ai")
HOW = (
    "node and the JS subjects' packages are needed: npm ci --no-audit --no-fund --prefix "
    "plugin/js, then TOOLTAPE_JS_DIR=$PWD/plugin/js (or nox -s js)"
)
NEEDS = ("@langchain/core", "@langchain/openai", "@langchain/anthropic", "ai", "@ai-sdk/openai")
needs_js = pytest.mark.skipif(
    js_missing(needs=(*NEEDS, "@ai-sdk/anthropic")) is not None, reason=HOW
)


def test_without_the_packages_they_are_skipped_with_the_npm_ci_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLTAPE_JS_DIR", str(tmp_path / "js"))
    if shutil.which("node") is None:
        pytest.skip("node is not installed: install Node.js 20 or newer (apt-get install nodejs)")
    install = f"npm ci --no-audit --no-fund --prefix {tmp_path / 'js'}"
    assert skipped_subjects(["openai_chat", "anthropic_messages"], JS) == dict.fromkeys(JS, install)
    # the printed command works as printed: the folder holds what npm ci reads
    assert {"package.json", "package-lock.json", "subjects.mjs"} <= {
        p.name for p in (tmp_path / "js").iterdir()
    }
    cells = run_matrix(
        [get_scenario("openai_golden")],
        ["openai_chat"],
        ["reference", *JS],
        Expectations((), "none"),
    )
    assert [r.adapter for r in cells[0].results] == ["reference"]  # skipped, not crashed


def test_without_node_the_install_line_says_node_first(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLTAPE_JS_DIR", str(tmp_path / "js"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-node"))
    assert skipped_subjects(["anthropic_messages"], ["vercel-ai"]) == {
        "vercel-ai": "Node.js 20 or newer on PATH, then npm ci --no-audit --no-fund "
        f"--prefix {tmp_path / 'js'}"
    }


def _by_subject(cell: Cell) -> dict[str, tuple[str, str, str | None]]:
    return {r.adapter: (r.status, r.detail, r.error) for r in cell.results}


@needs_js
def test_they_run_as_matrix_subjects_and_match_the_pinned_expectations():
    names = ["openai_golden", "split_name", "late_name", "missing_id", "truncated_mid_string"]
    cells = run_matrix(
        [get_scenario(name) for name in names],
        ["openai_chat", "anthropic_messages"],
        ["reference", *JS],
        load_expectations(),
    )
    found = {(c.scenario.name, c.dialect): _by_subject(c) for c in cells}
    golden = found["openai_golden", "openai_chat"]
    assert golden["langchain-js"][0] == golden["vercel-ai"][0] == "pass"
    assert found["openai_golden", "anthropic_messages"]["vercel-ai"][0] == "pass"
    # LangChain.js keeps the last fragment of a split name; the AI SDK starts a call per fragment
    split = found["split_name", "openai_chat"]
    assert split["langchain-js"][0] == "differs"
    assert '"name": "_weather"' in split["langchain-js"][1]
    assert split["vercel-ai"][0] == "differs" and '"name": "ge"' in split["vercel-ai"][1]
    late = found["late_name", "openai_chat"]["vercel-ai"]
    assert late[0] == "crashes" and late[2] == "AI_InvalidResponseDataError"
    assert "Expected 'function.name' to be a string." in late[1]
    # an idless call is invalid to LangChain.js, valid to langchain-core
    idless = found["missing_id", "openai_chat"]["langchain-js"]
    assert idless[0] == "differs" and "+invalid" in idless[1]
    # a tool_use block cut before its stop vanishes in @ai-sdk/anthropic
    cut = found["truncated_mid_string", "anthropic_messages"]["vercel-ai"]
    assert cut[0] == "differs" and "@@ -1 +0,0 @@\n-call" in cut[1]  # the call is gone
    assert [(c.scenario.name, c.dialect, r.adapter) for c in cells for r in c.unexpected] == []


@needs_js
def test_a_cell_past_the_time_limit_hangs_and_every_cell_gets_an_outcome():
    dialect = get_dialect("openai_chat")
    plan = get_scenario("openai_golden").plan
    cells = [BatchCell(dialect, dialect.render(plan, [], 0), plan) for _ in range(2)]
    # 1 ms: node cannot even import the adapter in it
    outcomes = run_batch("langchain-js", cells, 0.001)
    assert len(outcomes) == 2
    assert isinstance(outcomes[0].error, CellHangs) and outcomes[0].merged is None
    full = run_batch("langchain-js", cells, 5.0)
    assert [o.error for o in full] == [None, None]
    assert [o.merged for o in full] == [(plan.expected_calls(), [])] * 2


@needs_js
def test_a_js_error_keeps_its_name():
    dialect = get_dialect("openai_chat")
    scenario = get_scenario("late_name")
    wire = dialect.render(scenario.plan, scenario.quirks, scenario.seed)
    (outcome,) = run_batch("vercel-ai", [BatchCell(dialect, wire, scenario.plan)], 5.0)
    assert isinstance(outcome.error, JsError)
    assert type(outcome.error).__name__ == "AI_InvalidResponseDataError"


def test_the_pinned_package_files_are_packaged():
    folder = Path(__file__).parents[2] / "plugin" / "js"
    text = (folder / "package.json").read_text(encoding="utf-8")
    for package in (*NEEDS, "@ai-sdk/anthropic"):
        assert f'"{package}": "' in text
    assert "node_modules/ai" in (folder / "package-lock.json").read_text(encoding="utf-8")
