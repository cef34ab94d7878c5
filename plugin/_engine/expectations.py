"""Known matrix outcomes: which cells differ or crash on purpose, and why.

``tooltape matrix`` exits non-zero on an *unexpected* result. What is expected
lives in a small YAML file (``matrix_expectations.yaml`` beside this module by
default, ``--expectations PATH`` otherwise)::

    expectations:
      - adapter: openai-sdk
        dialects: [openai_chat]          # optional: every dialect the adapter runs on
        scenarios: [no_index_whole_calls, no_index_split_args]
        outcome: crashes                 # or: differs
        error: TypeError                 # optional, crashes only: the exception type
        message: "has no attribute"      # optional, crashes only: a pattern (re.search)
        reason: "ChatCompletionStreamState cannot accumulate index-less deltas (openai-python#2806)"

A result is expected when it passes (``pass`` or ``hazard``) and no entry names
it, or when it differs or crashes and an entry names it with that outcome (and
error type). An entry that names a cell which now passes makes that cell
unexpected too, like a strict xfail: fixed behaviour must update the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tooltape.plugin._engine.data_files import parse_data_file, read_data_file

__all__ = [
    "DEFAULT_EXPECTATIONS",
    "Expectation",
    "Expectations",
    "Verdict",
    "load_expectations",
]

DEFAULT_EXPECTATIONS = "matrix_expectations.yaml"
"""The bundled file's name inside ``tooltape.plugin``."""


class Expectation(BaseModel):
    """One known outcome, for one adapter over some scenarios and dialects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    adapter: str
    """The subject (``reference``, ``langchain-openai``, ``openai-sdk``...)."""
    scenarios: tuple[str, ...] = Field(min_length=1)
    """The scenarios it covers, by name."""
    dialects: tuple[str, ...] | None = None
    """The dialects it covers; ``None``: every dialect the adapter runs on."""
    outcome: Literal["differs", "crashes", "hangs", "memory"]
    """What the subject does there."""
    error: str | None = None
    """For ``crashes``: the exception's type name, when it matters."""
    message: str | None = None
    """For ``crashes``: a regular expression the exception's message must match (``re.search``)."""
    reason: str = Field(min_length=1)
    """Why: the quirk, the adapter's behaviour, the issue or test that pins it."""

    @field_validator("message")
    @classmethod
    def _pattern(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"not a regular expression: {error}") from None
        return value

    def covers(self, adapter: str, dialect: str, scenario: str) -> bool:
        """True when this entry speaks about that result."""
        return (
            adapter == self.adapter
            and scenario in self.scenarios
            and (self.dialects is None or dialect in self.dialects)
        )


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expectations: list[Expectation] = []


@dataclass(frozen=True)
class Verdict:
    """What the expectations say about one result."""

    expected: bool
    """False: the matrix must fail."""
    reason: str
    """The entry's reason, or why the result is unexpected."""


@dataclass(frozen=True)
class Expectations:
    """The loaded file."""

    entries: tuple[Expectation, ...]
    """Every entry, in file order."""
    source: str
    """Where they came from (for messages)."""

    def judge(
        self,
        adapter: str,
        dialect: str,
        scenario: str,
        status: str,
        error: str | None,
        detail: str = "",
    ) -> Verdict:
        """Decide whether a result with ``status`` (and exception type ``error``) is expected.

        ``detail`` is the crash's ``Type: message``, which an entry's ``message``
        pattern must match. A ``better`` result passes, like ``pass``.

        Any entry that covers the result and names its outcome (and error type)
        makes it expected, so entries appended by ``--pin`` take effect next to old ones.
        """
        covering = [e for e in self.entries if e.covers(adapter, dialect, scenario)]
        if status in ("pass", "hazard", "better", "n/a"):
            if not covering:
                return Verdict(True, "")
            entry = covering[0]
            return Verdict(
                False, f"now {status}, but {self.source} expects {entry.outcome}: {entry.reason}"
            )
        for entry in covering:
            matches = entry.message is None or re.search(entry.message, detail)
            if entry.outcome == status and entry.error in (None, error) and matches:
                return Verdict(True, entry.reason)
        if not covering:
            return Verdict(False, f"{status}, and {self.source} does not expect it")
        entry = covering[0]
        if entry.outcome != status:
            return Verdict(False, f"{status}, but {self.source} expects {entry.outcome}")
        if entry.error not in (None, error):
            return Verdict(False, f"raised {error}, but {self.source} expects {entry.error}")
        return Verdict(
            False, f"{detail!r} does not match the message {entry.message!r} {self.source} expects"
        )

    def check_names(self, scenarios: Iterable[str], adapters: Iterable[str]) -> None:
        """Refuse an entry that names an unknown scenario or adapter (a typo never pins).

        Raises:
            TooltapeUsageError: Naming the entry and the unknown name.
        """
        from tooltape.harness.name_checks import check_names

        known_scenarios, known_adapters = set(scenarios), set(adapters)
        for number, entry in enumerate(self.entries):
            where = f"{self.source}: entry {number}: "
            check_names("adapter", [entry.adapter], known_adapters, prefix=where)
            where = f"{self.source}: entry {number} ({entry.adapter}): "
            check_names("scenario", entry.scenarios, known_scenarios, prefix=where)


def load_expectations(path: Path | None = None) -> Expectations:
    """Load an expectations file (the bundled one when ``path`` is None).

    Raises:
        TooltapeUsageError: The file is missing, not YAML, or not shaped as above.
    """
    text, source = read_data_file(
        path, bundled=DEFAULT_EXPECTATIONS, what="expectations file", option="--expectations"
    )
    entries = parse_data_file(text, source, _File).expectations
    return Expectations(tuple(entries), source)


def pinned_entries(
    results: Sequence[tuple[str, str, str, str, str | None]],
) -> list[dict[str, Any]]:
    """Expectation entries that pin the given ``(adapter, dialect, scenario, status, error)``.

    Results are grouped by adapter, outcome and error, so one entry covers every
    scenario (and every dialect) that fails the same way; ``tooltape matrix
    --pin`` prints them for a maintainer to give each a reason.
    """
    by_dialect: dict[tuple[str, str, str, str | None], list[str]] = {}
    for adapter, dialect, scenario, status, error in results:
        by_dialect.setdefault((adapter, dialect, status, error), []).append(scenario)
    # Dialects whose adapter fails the same scenarios the same way share one entry.
    groups: dict[tuple[str, str, str | None, tuple[str, ...]], list[str]] = {}
    for (adapter, dialect, status, error), scenarios in by_dialect.items():
        groups.setdefault((adapter, status, error, tuple(scenarios)), []).append(dialect)
    entries = []
    for (adapter, status, error, names), dialects in groups.items():
        entry: dict[str, Any] = {
            "adapter": adapter,
            "dialects": dialects,
            "scenarios": list(names),
            "outcome": status,
        }
        if error is not None:
            entry["error"] = error
        entry["reason"] = "TODO: say why (quirk, adapter behaviour, test that pins it)"
        entries.append(entry)
    return entries
