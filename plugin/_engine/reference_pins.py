"""langchain-core as a subject: its pinned outcome in every matrix cell.

The reference row is langchain-core's own merge of what each dialect's adapter
yields. Its outcome in *every* cell (scenario x dialect), lossy scenarios
included, is pinned in ``reference_outcomes.yaml`` beside this module: the
status, the valid and invalid calls, and the hazards by kind and count (or,
for a crash, the exception type and a ``message:`` regular expression).
``tooltape matrix`` holds the installed langchain-core to it, so a release that
changes any cell, for worse or for better, fails the run and names the cell;
``tooltape matrix --update-reference`` rewrites the cells it ran::

    langchain_core: 1.8.3            # the release the pins were recorded with
    cells:
      shared_index_idless:           # a scenario
      - dialects: [openai_chat, azure]
        status: hazard               # pass, hazard, differs (from the plan), crashes, n/a
        calls: [{name: get_weather, args: {city: Paris}, id: call_paris_01}]
        invalid: []                  # omitted when empty, like hazards
        hazards: {shared_index: 1}

Dialects whose outcome is the same share one entry.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from tooltape.plugin._engine.data_files import parse_data_file, read_data_file

__all__ = [
    "DEFAULT_REFERENCE",
    "Pin",
    "ReferencePins",
    "bundled_reference_path",
    "cell_outcome",
    "check_pinned_names",
    "differential_changes",
    "installed_langchain_core",
    "load_reference_pins",
    "updated_reference",
]

DEFAULT_REFERENCE = "reference_outcomes.yaml"
"""The bundled file's name inside ``tooltape.plugin``."""

Status = Literal["pass", "hazard", "differs", "crashes", "n/a"]


class Pin(BaseModel):
    """langchain-core's outcome in one scenario, on some dialects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dialects: tuple[str, ...] = Field(min_length=1)
    """The dialects with this outcome."""
    status: Status
    """The reference row's status: ``differs`` is from the plan, on a lossless cell."""
    calls: list[dict[str, Any]] = []
    """The valid calls ``{name, args, id}``, in order."""
    invalid: list[dict[str, Any]] = []
    """The invalid calls ``{name, args, id}`` (``args`` the raw text), in order."""
    hazards: dict[str, int] = {}
    """How many hazards of each kind."""
    error: str | None = None
    """For ``crashes``: the exception's type name."""
    message: str | None = None
    """For ``crashes``: a regular expression the exception's message must match."""

    def outcome(self) -> dict[str, Any]:
        """The pin as :func:`cell_outcome` returns a cell's (no dialects, no empty fields)."""
        return self.model_dump(exclude={"dialects"}, exclude_defaults=True) | {
            "status": self.status
        }


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    langchain_core: str
    cells: dict[str, list[Pin]] = {}


def installed_langchain_core() -> str:
    """The version of the langchain-core that is imported."""
    return metadata.version("langchain-core")


def cell_outcome(cell: Any) -> dict[str, Any]:
    """The reference's outcome in a matrix cell, as a pin holds it (empty fields left out)."""
    if cell.skipped:
        return {"status": "n/a"}
    reference = cell.results[0]
    if reference.status == "crashes":
        message = reference.detail.partition(": ")[2]
        return {"status": "crashes", "error": reference.error, "message": message}
    outcome: dict[str, Any] = {"status": reference.status}
    valid, invalid = cell.reference_calls
    if valid:
        outcome["calls"] = valid
    if invalid:
        outcome["invalid"] = invalid
    kinds = Counter(hazard.kind for hazard in cell.reference.hazards)
    if kinds:
        outcome["hazards"] = dict(sorted(kinds.items()))
    return outcome


def _brief(value: Any, width: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _differences(pinned: dict[str, Any], got: dict[str, Any]) -> list[str]:
    if pinned.get("status") == got.get("status") == "crashes":
        if pinned.get("error") not in (None, got.get("error")):
            return [f"raised {got.get('error')}, pinned {pinned.get('error')}"]
        pattern = pinned.get("message")
        if pattern is not None and not re.search(pattern, got.get("message") or ""):
            return [f"message {got.get('message')!r} does not match the pinned {pattern!r}"]
        return []
    found = []
    for key, empty in (("status", None), ("calls", []), ("invalid", []), ("hazards", {})):
        was, now = pinned.get(key, empty), got.get(key, empty)
        if was != now:
            found.append(f"{key} {_brief(now)}, pinned {_brief(was)}")
    return found


@dataclass(frozen=True)
class ReferencePins:
    """The loaded file: every cell's pinned outcome."""

    version: str
    """The langchain-core release the pins were recorded with."""
    cells: dict[tuple[str, str], dict[str, Any]]
    """``(scenario, dialect)``: the pinned outcome."""
    source: str
    """Where they came from (for messages)."""

    def judge(self, cell: Any) -> str | None:
        """Why the cell's reference outcome is not the pinned one (``None``: it is)."""
        key = (cell.scenario.name, cell.dialect)
        where = f"langchain-core {installed_langchain_core()}"
        if key not in self.cells:
            return (
                f"{where}: the cell is not pinned in {self.source}; "
                "run `tooltape matrix --update-reference`"
            )
        found = _differences(self.cells[key], cell_outcome(cell))
        if not found:
            return None
        return (
            f"{where} is not as {self.source} pins it (recorded with {self.version}): "
            + "; ".join(found)
        )


def bundled_reference_path() -> Path:
    """Where the bundled file lives on disk (``--update-reference`` writes it there)."""
    return Path(str(resources.files("tooltape.plugin").joinpath(DEFAULT_REFERENCE)))


def load_reference_pins(path: Path | None = None) -> ReferencePins:
    """Load a reference outcomes file (the bundled one when ``path`` is None).

    Raises:
        TooltapeUsageError: The file is missing, not YAML, or not shaped as above.
    """
    text, source = read_data_file(
        path, bundled=DEFAULT_REFERENCE, what="reference outcomes file", option="--reference"
    )
    parsed = parse_data_file(text, source, _File)
    cells = {
        (scenario, dialect): pin.outcome()
        for scenario, pins in parsed.cells.items()
        for pin in pins
        for dialect in pin.dialects
    }
    return ReferencePins(parsed.langchain_core, cells, source)


def check_pinned_names(
    pins: ReferencePins, scenarios: Iterable[str], dialects: Iterable[str]
) -> None:
    """Refuse a pin that names an unknown scenario or dialect (a typo never pins).

    Raises:
        TooltapeUsageError: Naming the file and the unknown name.
    """
    from tooltape.harness.name_checks import check_names

    where = f"{pins.source}: "
    check_names("scenario", sorted({s for s, _ in pins.cells}), set(scenarios), prefix=where)
    check_names("dialect", sorted({d for _, d in pins.cells}), set(dialects), prefix=where)


def differential_changes(rows: Iterable[Any], pins: ReferencePins) -> list[str]:
    """Where ``tooltape differential``'s langchain-core calls are not the pinned ones.

    ``rows`` are :class:`~tooltape.fake_providers.DifferentialRow` of bundled
    scenarios; a langchain-core result is compared with the pinned valid and
    invalid calls of its cell (a cell not pinned, or skipped, is not compared).
    """
    found = []
    for row in rows:
        for result in row.results:
            pinned = pins.cells.get((row.scenario, result.dialect))
            if result.accumulator != "langchain-core" or result.calls is None or not pinned:
                continue
            if pinned["status"] in ("n/a", "crashes"):
                continue
            valid = [c for c in result.calls if isinstance(c["args"], dict)]
            invalid = [c for c in result.calls if not isinstance(c["args"], dict)]
            want = (pinned.get("calls", []), pinned.get("invalid", []))
            if (valid, invalid) != want:
                found.append(
                    f"{row.scenario} x {result.dialect}: langchain-core "
                    f"{installed_langchain_core()} merged {_brief(valid + invalid)}, "
                    f"{pins.source} pins {_brief(want[0] + want[1])}"
                )
    return found


_HEADER = """\
# langchain-core's outcome in every `tooltape matrix` cell (bundled scenario x dialect), lossy
# scenarios included: the reference row's status, its valid and invalid calls, and its hazards by
# kind and count (a crash: the exception type and a `message:` regular expression). A release of
# langchain-core that changes any cell, for worse or for better, fails `tooltape matrix`, which
# names the cells. Regenerate after a deliberate change with `tooltape matrix --update-reference`
# and review the diff. Format: plugin/cli/reference_pins.py.
"""


_ORDER = ("status", "error", "message", "calls", "invalid", "hazards")


def _ordered(outcome: dict[str, Any]) -> dict[str, Any]:
    return {key: outcome[key] for key in _ORDER if key in outcome}


def updated_reference(cells: Sequence[Any], previous: ReferencePins | None) -> str:
    """The file's new text: the cells that ran, and the previous pins of the cells that did not."""
    outcomes = dict(previous.cells) if previous is not None else {}
    for cell in cells:
        outcome = cell_outcome(cell)
        if outcome["status"] == "crashes":
            outcome["message"] = re.escape(outcome["message"][:120])
        outcomes[cell.scenario.name, cell.dialect] = outcome
    by_scenario: dict[str, dict[str, tuple[dict[str, Any], list[str]]]] = {}
    for (scenario, dialect), outcome in outcomes.items():
        key = json.dumps(outcome, sort_keys=True, ensure_ascii=False, default=str)
        groups = by_scenario.setdefault(scenario, {})
        groups.setdefault(key, (outcome, []))[1].append(dialect)
    document = {
        "langchain_core": installed_langchain_core(),
        "cells": {
            scenario: [
                {"dialects": dialects, **_ordered(outcome)} for outcome, dialects in groups.values()
            ]
            for scenario, groups in by_scenario.items()
        },
    }
    body = yaml.safe_dump(
        document, sort_keys=False, width=100, allow_unicode=True, default_flow_style=None
    )
    return _HEADER + body
