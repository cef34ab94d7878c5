"""What a matrix run found: each subject's cell that is worse, crashes, hangs or runs out of memory.

Each finding carries the reason (the expectation's, or the diff's first line)
and one command line that reruns just that cell for just that subject beside
the reference, so whoever reads the page can reproduce it in seconds.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FINDING_STATUSES", "Finding", "cell_anchor", "findings"]

FINDING_STATUSES = ("differs", "crashes", "hangs", "memory")
"""The statuses that are findings: worse than the reference, or no answer at all."""


@dataclass(frozen=True)
class Finding:
    """One subject's outcome in one cell that is worse than the reference's."""

    scenario: str
    dialect: str
    subject: str
    status: str
    reason: str
    """The expectation's reason if the outcome is known, else the detail's first line."""
    expected: bool
    """Whether the expectations file (or the langchain-core pins) knew of it."""

    @property
    def command(self) -> str:
        """One shell line that reruns the cell for this subject beside the reference."""
        subjects = "reference" if self.subject == "reference" else f"reference,{self.subject}"
        return shlex.join(
            [
                "tooltape", "matrix", "--scenarios", self.scenario, "--dialects", self.dialect,
                "--adapters", subjects, "--grid",
            ]
        )  # fmt: skip


def cell_anchor(scenario: str, dialect: str) -> str:
    """The HTML id of a grid cell (scenario and dialect names are identifiers)."""
    return f"cell-{scenario}-{dialect}"


def _reason(result: Any) -> str:
    """The pinned reason of a known outcome; else what the detail's first line says."""
    if result.reason and result.expected:
        return str(result.reason)
    lines = [
        line
        for line in str(result.detail).strip().splitlines()
        if not line.startswith(("--- ", "+++ ", "@@ "))  # a diff's headers say nothing yet
    ]
    return lines[0] if lines else str(result.reason or result.status)


def findings(cells: Sequence[Any]) -> list[Finding]:
    """Every finding of a run, in grid order (scenario, dialect, subject)."""
    return [
        Finding(
            cell.scenario.name,
            cell.dialect,
            result.adapter,
            result.status,
            _reason(result),
            result.expected,
        )
        for cell in cells
        for result in cell.results
        if result.status in FINDING_STATUSES
    ]
