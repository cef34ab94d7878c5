"""``tooltape matrix`` through its console script: the bundled matrix, regressions, the HTML page.

One full run (every bundled scenario x every dialect and profile x every
installed subject) is shared by the module: it must exit 0 with the bundled
expectations, cover every cell, and write a page whose grid headless Chromium
renders with one cell per scenario x dialect. Smaller runs with their own
expectations files prove that an unexpected result, or a fixed one, exits 1.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.harness import reference_merge

pytestmark = pytest.mark.slow

TOOLTAPE = Path(sys.executable).parent / "tooltape"


def tooltape(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLTAPE), *map(str, args)], capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    page = tmp_path_factory.mktemp("matrix") / "matrix.html"
    done = tooltape("matrix", "--json", "--html", page)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout), page


def test_the_bundled_matrix_covers_every_cell_and_meets_its_expectations(
    full_run: tuple[dict[str, Any], Path],
) -> None:
    report, _ = full_run
    scenarios = [s.name for s in bundled_scenarios()]
    dialects = dialect_names(profiles=True)
    assert report["unexpected"] == 0
    assert report["dialects"] == dialects
    assert [(c["scenario"], c["dialect"]) for c in report["cells"]] == [
        (s, d) for s in scenarios for d in dialects
    ]
    results = [r for c in report["cells"] for r in c["results"]]
    assert all(r["expected"] for r in results)
    subjects = {r["adapter"] for r in results}
    assert {"reference", "langchain-openai", "openai-sdk", "langchain-anthropic"} <= subjects


def test_matrix_cells_hold_the_reference_of_what_the_dialect_parses(
    full_run: tuple[dict[str, Any], Path],
) -> None:
    report, _ = full_run
    cells = {(c["scenario"], c["dialect"]): c for c in report["cells"]}
    for scenario, dialect in [
        ("repeated_name", "openai_chat"),
        ("duplicate_ids", "anthropic_messages"),
    ]:
        chosen = get_scenario(scenario)
        provider = get_dialect(dialect)
        merged = reference_merge(
            provider.parse(provider.render(chosen.plan, chosen.quirks, chosen.seed).body)
        )
        cell = cells[(scenario, dialect)]
        assert cell["reference"]["tool_calls"] == json.loads(json.dumps(merged.calls()))
        assert cell["reference"]["hazards"] == [str(h) for h in merged.hazards]
    golden = cells[("openai_golden", "openai_chat")]
    litellm = [("litellm", "pass")] if importlib.util.find_spec("litellm") else []
    pydantic_ai = [("pydantic-ai", "pass")] if importlib.util.find_spec("pydantic_ai") else []
    libraries = [(n, "pass") for n in ("haystack", "smolagents") if importlib.util.find_spec(n)]
    assert [(r["adapter"], r["status"]) for r in golden["results"]] == [
        ("reference", "pass"), ("langchain-openai", "pass"), ("openai-sdk", "pass"), *litellm,
        *pydantic_ai, *libraries,
    ]  # fmt: skip
    crash = next(r for r in cells[("no_index_whole_calls", "openai_chat")]["results"]
                 if r["adapter"] == "openai-sdk")  # fmt: skip
    assert crash["status"] == "crashes"
    assert crash["error"] == "TypeError"
    assert "openai-python#2806" in crash["reason"]


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.commands: list[str] = []
        self._in_code = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a":
            self.links.append(values.get("href") or "")
        self._in_code = tag == "code"
        if tag == "td" and "cell" in (values.get("class") or "").split():
            self.cells.append(
                (values["data-scenario"] or "", values["data-dialect"] or "", values["class"] or "")
            )

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.commands.append(data)
            self._in_code = False


def test_the_html_page_renders_one_grid_cell_per_scenario_and_dialect(
    full_run: tuple[dict[str, Any], Path],
    headless_chromium: Callable[[str], subprocess.CompletedProcess[str]],
) -> None:
    _, page = full_run
    text = page.read_text(encoding="utf-8")
    for external in ("<script", "<link", "<img", " src=", "@import", "url("):
        assert external not in text  # self-contained: inline CSS, no assets, no scripts
    assert not re.search(r' href="(?!#)', text)  # links stay on the page
    dumped = headless_chromium(page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    parser = _Cells()
    parser.feed(dumped.stdout)
    scenarios = [s.name for s in bundled_scenarios()]
    dialects = dialect_names(profiles=True)
    assert [(s, d) for s, d, _ in parser.cells] == [(s, d) for s in scenarios for d in dialects]
    classes = {c.split()[1] for _, _, c in parser.cells}
    assert {"pass", "hazard", "crashes", "na"} <= classes
    assert not any("unexpected" in c for _, _, c in parser.cells)
    assert "CONSOLE" not in dumped.stderr  # no console messages, errors included
    # The findings: every link lands on a grid cell, every row has a command that reruns it.
    assert "#findings" in parser.links and "findings" in parser.ids
    cell_links = [link for link in parser.links if link.startswith("#cell-")]
    assert cell_links and {link[1:] for link in cell_links} <= parser.ids
    report, _ = full_run
    found = [
        r for c in report["cells"] for r in c["results"]
        if r["status"] in ("differs", "crashes", "hangs", "memory")
    ]  # fmt: skip
    assert len(parser.commands) == len(cell_links) == len(found) > 0
    assert all(c.startswith("tooltape matrix --scenarios ") for c in parser.commands)


# --- expectations decide the exit code --------------------------------------------------


def _expectations(tmp_path: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp_path / "expect.yaml"
    path.write_text(yaml.safe_dump({"expectations": entries}))
    return path


SUBSET = (
    "--dialects", "openai_chat", "--scenarios", "openai_golden,no_index_whole_calls",
    "--adapters", "reference,langchain-openai,openai-sdk",  # the subjects the pins below name
)  # fmt: skip
SDK_CRASH = {
    "adapter": "openai-sdk",
    "dialects": ["openai_chat"],
    "scenarios": ["no_index_whole_calls"],
    "outcome": "crashes",
    "error": "TypeError",
    "reason": "ChatCompletionStreamState needs an index",
}


def test_an_expected_crash_exits_0(tmp_path: Path) -> None:
    done = tooltape("matrix", *SUBSET, "--expectations", _expectations(tmp_path, [SDK_CRASH]))
    assert done.returncode == 0, done.stdout
    assert "2 cells, 6 subject runs" in done.stdout
    assert "0 unexpected" in done.stdout


def test_a_new_regression_exits_1_and_names_the_cell(tmp_path: Path) -> None:
    done = tooltape("matrix", *SUBSET, "--grid", "--expectations", _expectations(tmp_path, []))
    assert done.returncode == 1
    assert "UNEXPECTED no_index_whole_calls x openai_chat x openai-sdk: crashes" in done.stdout
    assert "TypeError" in done.stdout
    assert "1 unexpected" in done.stdout


def test_a_fixed_cell_exits_1_until_the_expectation_goes(tmp_path: Path) -> None:
    stale = {**SDK_CRASH, "adapter": "langchain-openai", "scenarios": ["openai_golden"]}
    done = tooltape(
        "matrix", *SUBSET, "--json", "--expectations", _expectations(tmp_path, [SDK_CRASH, stale])
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    (flagged,) = [r for c in report["cells"] for r in c["results"] if not r["expected"]]
    assert flagged["adapter"] == "langchain-openai"
    assert flagged["reason"].startswith("now pass, but")


def test_a_changed_exception_type_is_unexpected(tmp_path: Path) -> None:
    other = {**SDK_CRASH, "error": "KeyError"}
    done = tooltape("matrix", *SUBSET, "--expectations", _expectations(tmp_path, [other]))
    assert done.returncode == 1
    assert "raised TypeError, but" in done.stdout


def test_pin_prints_entries_that_make_the_run_pass(tmp_path: Path) -> None:
    outdated = {**SDK_CRASH, "error": "KeyError"}  # the crash changed type since it was pinned
    pinned = tooltape(
        "matrix", *SUBSET, "--pin", "--expectations", _expectations(tmp_path, [outdated])
    )
    assert pinned.returncode == 1
    entries = yaml.safe_load(pinned.stdout)["expectations"]
    assert [(e["adapter"], e["scenarios"], e["error"]) for e in entries] == [
        ("openai-sdk", ["no_index_whole_calls"], "TypeError")
    ]
    appended = _expectations(tmp_path, [outdated, *entries])
    assert tooltape("matrix", *SUBSET, "--expectations", appended).returncode == 0


def test_reference_only_runs_no_adapter() -> None:
    done = tooltape("matrix", "--adapters", "reference", "--dialects", "gemini,ollama", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {r["adapter"] for c in report["cells"] for r in c["results"]} == {"reference"}


@pytest.mark.skipif(
    importlib.util.find_spec("litellm") is not None, reason="litellm is installed here"
)
def test_an_absent_subject_is_listed_with_its_install_line_as_typed() -> None:
    done = tooltape("matrix", "--dialects", "openai_chat", "--tag", "truncation")
    assert done.returncode == 0, done.stderr
    assert "skipped litellm: not installed (pip install 'tooltape[subjects]')" in done.stdout


def test_without_a_terminal_progress_is_one_line_per_scenario() -> None:
    done = tooltape("matrix", "--adapters", "reference", "--dialects", "openai_chat,ollama",
                    "--tag", "truncation")  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = [s.name for s in bundled_scenarios() if "truncation" in s.tags]
    lines = done.stderr.splitlines()
    assert (
        lines[0] == f"tooltape matrix: {len(names)} scenarios x 2 dialects, {2 * len(names)} cells"
    )
    assert len(lines) == 1 + len(names)
    for number, (line, name) in enumerate(zip(lines[1:], names, strict=True), start=1):
        assert line.startswith(f"tooltape matrix: {number}/{len(names)} scenarios, ")
        assert line.endswith(f" s ({name} done)")


def test_the_table_has_a_legend_and_the_grid_names_whose_mark_is_whose(tmp_path: Path) -> None:
    page = tmp_path / "m.html"
    done = tooltape("matrix", "--dialects", "openai_chat,anthropic_messages",
                    "--scenarios", "openai_golden,no_index_whole_calls",
                    "--adapters", "reference,langchain-openai,openai-sdk,langchain-anthropic,"
                    "anthropic-sdk", "--grid", "--html", page)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for status in ("✓ pass", "! hazard", "≠ differs", "✗ crashes", "· n/a", "unexpected"):
        assert f"\n  {status}" in out, status
    keys = "R reference, O langchain-openai, S openai-sdk, A langchain-anthropic, K anthropic-sdk"
    assert f"grid keys: {keys}\n" in out
    header = next(line for line in out.splitlines() if "ROS" in line)
    assert "RAK" in header  # each dialect's subjects, in the order of its marks
    text = page.read_text(encoding="utf-8")
    assert "<h2>Legend</h2>" in text
    for status in ("pass", "hazard", "differs", "crashes", "n/a", "unexpected"):
        assert f"<th>{status}</th>" in text
    badges = re.findall(r'data-subject="([^"]+)">.<sub>(.)</sub>', text)
    assert {("reference", "R"), ("openai-sdk", "S"), ("anthropic-sdk", "K")} <= set(badges)
    assert len({key for _, key in badges}) == len({name for name, _ in badges})


def test_every_subject_has_its_own_key_letter() -> None:
    from tooltape.plugin._engine.subjects import adapter_names
    from tooltape.plugin.cli.legend import SUBJECT_KEYS

    assert set(SUBJECT_KEYS) == set(adapter_names())
    assert len(set(SUBJECT_KEYS.values())) == len(SUBJECT_KEYS)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--adapters", "nope"], "unknown adapter 'nope'"),
        (["--dialects", "nope"], "unknown dialect 'nope'"),
        (["--scenarios", "nope"], "unknown scenario 'nope'"),
        (["--tag", "no-such-tag"], "unknown tag 'no-such-tag'"),
        (["--expectations", "/nonexistent.yaml"], "does not exist"),
    ],
)
def test_matrix_errors_are_one_line(args: list[str], message: str) -> None:
    done = tooltape("matrix", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


def test_a_bad_expectations_file_is_a_usage_error(tmp_path: Path) -> None:
    path = _expectations(tmp_path, [{**SDK_CRASH, "adapter": "openai-sdkk"}])
    done = tooltape("matrix", *SUBSET, "--expectations", path)
    assert done.returncode == 2
    assert "unknown adapter 'openai-sdkk'" in done.stderr
    path.write_text("expectations: [{adapter: x}]\n")
    done = tooltape("matrix", *SUBSET, "--expectations", path)
    assert done.returncode == 2
    assert "expectations.0.scenarios: Field required" in done.stderr
