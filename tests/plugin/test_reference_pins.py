"""langchain-core as a matrix subject: its outcome pinned in every cell, lossy ones included.

The bundled ``reference_outcomes.yaml`` must be what the installed langchain-core
does (``tooltape matrix --update-reference`` regenerates it byte for byte), and a
cell whose calls, invalid calls or hazard counts move, for worse or for better,
makes the reference row unexpected with a reason that says what moved.
``nox -s langchain_core_regression`` runs the matrix on langchain-core 1.2.13,
the release before the fix for calls sharing index 0 with different ids.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import dialect_names
from tooltape.harness import TooltapeUsageError
from tooltape.plugin._engine.expectations import Expectations
from tooltape.plugin._engine.reference_pins import (
    ReferencePins,
    bundled_reference_path,
    check_pinned_names,
    installed_langchain_core,
    load_reference_pins,
    updated_reference,
)
from tooltape.plugin._engine.run import Cell, Result, run_matrix

TOOLTAPE = Path(sys.executable).parent / "tooltape"
SCENARIOS = ["shared_index_idless", "truncated_mid_string", "framing_close_mid_event"]
DIALECTS = ["openai_chat", "sglang", "anthropic_messages", "cohere_v2"]


def _run(pins_path: Path | None = None) -> list:
    pins = load_reference_pins(pins_path)
    scenarios = [get_scenario(name) for name in SCENARIOS]
    return run_matrix(scenarios, DIALECTS, [], Expectations((), "test"), pins=pins)


def test_the_bundled_pins_are_what_the_installed_langchain_core_does() -> None:
    cells = _run()

    assert [r.reason for c in cells for r in c.unexpected] == []
    lossy = [c for c in cells if not c.lossless and not c.skipped]
    assert lossy, "lossy cells are pinned too"


def test_the_bundled_pins_cover_every_cell_and_name_only_known_cells() -> None:
    pins = load_reference_pins()
    names = [s.name for s in bundled_scenarios()]
    check_pinned_names(pins, names, dialect_names(profiles=True))
    assert set(pins.cells) == {(s, d) for s in names for d in dialect_names(profiles=True)}


def _edited(tmp_path: Path, scenario: str, dialect: str, **changes: object) -> Path:
    """The bundled file with ``dialect``'s outcome in ``scenario`` changed."""
    document = yaml.safe_load(bundled_reference_path().read_text(encoding="utf-8"))
    groups = document["cells"][scenario]
    (group,) = [g for g in groups if dialect in g["dialects"]]
    group["dialects"].remove(dialect)
    groups.append({**group, "dialects": [dialect], **changes})
    path = tmp_path / "pins.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def test_a_changed_hazard_count_makes_the_reference_unexpected_and_says_what_moved(
    tmp_path: Path,
) -> None:
    path = _edited(tmp_path, "shared_index_idless", "openai_chat", hazards={"repeated_name": 1})

    cells = _run(path)

    flagged = [(c.scenario.name, c.dialect, r.adapter) for c in cells for r in c.unexpected]
    assert flagged == [("shared_index_idless", "openai_chat", "reference")]
    (reason,) = [r.reason for c in cells for r in c.unexpected]
    assert 'hazards {"args_repaired": 1, "shared_index": 1}, pinned {"repeated_name": 1}' in reason
    assert "is not as" in reason and str(path) in reason


def test_a_better_outcome_than_pinned_is_reported_too(tmp_path: Path) -> None:
    # Pinned as if langchain-core lost the call; the installed one keeps it: still a change.
    path = _edited(tmp_path, "truncated_mid_string", "anthropic_messages", calls=[])

    cells = _run(path)

    (reason,) = [r.reason for c in cells for r in c.unexpected]
    assert reason.count("calls [{") == 1 and "pinned []" in reason


MESSAGE = "expected value at line 1 column 7"


@pytest.mark.parametrize(
    ("pinned", "moved"),
    [
        ({"error": "ValueError", "message": r"expected value at line \d+"}, None),
        ({"error": "ValueError", "message": "^Unterminated string"}, "does not match the pinned"),
        ({"error": "KeyError", "message": "expected"}, "raised ValueError, pinned KeyError"),
    ],
)
def test_a_crash_is_pinned_by_type_and_message_pattern(pinned: dict, moved: str | None) -> None:
    cell = Cell(get_scenario("truncated_mid_string"), "openai_chat")
    cell.results.append(
        Result("reference", "crashes", f"ValueError: {MESSAGE}", "ValueError"),
    )
    key = ("truncated_mid_string", "openai_chat")
    pins = ReferencePins("1.8.3", {key: {"status": "crashes", **pinned}}, "pins.yaml")

    reason = pins.judge(cell)

    assert reason is None if moved is None else moved in (reason or "")


def test_an_unpinned_cell_says_how_to_pin_it(tmp_path: Path) -> None:
    path = tmp_path / "pins.yaml"
    path.write_text("langchain_core: 1.8.3\ncells: {}\n", encoding="utf-8")

    reasons = {r.reason for c in _run(path) for r in c.unexpected}

    assert len(reasons) == 1
    assert "not pinned in" in reasons.pop()


def test_a_pins_file_naming_an_unknown_scenario_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "pins.yaml"
    path.write_text(
        "langchain_core: 1.8.3\ncells:\n  shared_index_idles:\n"
        "  - {dialects: [openai_chat], status: pass}\n",
        encoding="utf-8",
    )
    with pytest.raises(TooltapeUsageError, match="did you mean 'shared_index_idless'"):
        check_pinned_names(load_reference_pins(path), SCENARIOS, DIALECTS)


@pytest.mark.slow
def test_update_reference_regenerates_the_bundled_file_byte_for_byte(tmp_path: Path) -> None:
    target = tmp_path / "pins.yaml"
    done = subprocess.run(
        [
            *[str(TOOLTAPE), "matrix", "--adapters", "reference", "--update-reference"],
            *["--reference", str(target)],
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert target.read_text(encoding="utf-8") == bundled_reference_path().read_text("utf-8")


@pytest.mark.slow
def test_the_cli_exits_1_and_names_a_cell_langchain_core_changed(tmp_path: Path) -> None:
    path = _edited(tmp_path, "shared_index_idless", "sglang", status="pass", hazards={})
    done = subprocess.run(
        [
            *[str(TOOLTAPE), "matrix", "--adapters", "reference", "--reference", str(path)],
            *["--scenarios", "shared_index_idless,openai_golden"],
            *["--dialects", "sglang,openai_chat"],
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stdout
    assert "UNEXPECTED shared_index_idless x sglang x reference: langchain-core" in done.stdout
    assert "1 unexpected" in done.stdout


def test_updating_some_cells_keeps_every_other_pin_as_it_was() -> None:
    cells = _run()  # a few scenarios x dialects, as `--scenarios ... --update-reference`

    text = updated_reference(cells, load_reference_pins())

    # The header names the release that wrote the file: the installed one (1.8.0 under oldest).
    bundled = bundled_reference_path().read_text(encoding="utf-8")
    header = f"langchain_core: {installed_langchain_core()}"
    expected = re.sub(r"^langchain_core: .*$", header, bundled, flags=re.M)
    assert text == expected
