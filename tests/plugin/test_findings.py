"""The matrix's findings: what is worse than the reference, and a command that reproduces it."""

from __future__ import annotations

import json
import shlex

from click.testing import CliRunner

from tooltape.cassettes import get_scenario
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import run_matrix
from tooltape.plugin.cli import cli
from tooltape.plugin.cli.findings import findings


def test_each_finding_reruns_to_the_same_status_with_its_own_command() -> None:
    cells = run_matrix(
        [get_scenario("no_index_whole_calls")], ["openai_chat"], None, load_expectations()
    )

    (found,) = [f for f in findings(cells) if f.subject == "openai-sdk"]
    assert (found.scenario, found.dialect, found.status) == (
        "no_index_whole_calls", "openai_chat", "crashes"
    )  # fmt: skip
    assert "openai-python#2806" in found.reason

    args = shlex.split(found.command)
    assert args[:2] == ["tooltape", "matrix"]
    result = CliRunner().invoke(cli, [*args[1:], "--json"])
    report = json.loads(result.output[result.output.index("{\n") :])  # after the progress lines
    (cell,) = report["cells"]
    statuses = {r["adapter"]: r["status"] for r in cell["results"]}
    assert statuses == {"reference": "pass", "openai-sdk": "crashes"}


def test_a_run_without_findings_says_so_on_the_page() -> None:
    from tooltape.plugin.cli.html import matrix_page

    cells = run_matrix([get_scenario("openai_golden")], ["openai_chat"], None, load_expectations())

    assert findings(cells) == []
    assert "None: no subject is worse, crashes or hangs." in matrix_page(
        cells, ["openai_chat"], 1.0
    )
