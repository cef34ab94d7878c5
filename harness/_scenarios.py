"""Scenarios: a named plan plus quirks, the unit of the scenario library.

Scenario files are YAML: a top-level ``scenarios`` list whose entries have
``name``, ``description``, ``plan``, ``quirks`` (kind names or
``{kind: ..., param: ...}`` mappings), ``tags``, ``cites`` and optionally
``dialects`` and ``seed``. A bad file gets one :class:`ScenarioFileError`
paragraph naming the file, the scenario and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from tooltape.harness._engine import stream_plan
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._models import Plan
from tooltape.harness._quirks import Quirk, parse_quirk
from tooltape.harness.name_checks import check_names
from tooltape.harness.user_files import read_text_file
from tooltape.harness.yaml_expansion import expanded_size, expansion_limit
from tooltape.harness.yaml_loader import BoundedSafeLoader, YamlTooLarge

__all__ = ["Scenario", "ScenarioFileError", "load_scenarios", "select_scenarios"]

QuirkSpec = str | dict[str, Any]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")


class ScenarioFileError(TooltapeUsageError):
    """A scenario file cannot be read; the message names the file, scenario and field."""


class Scenario(BaseModel):
    """A named plan plus the quirks that distort it on the wire."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """A slug, unique in its library: ``parallel_interleaved``."""
    description: str
    """One sentence: what the provider does."""
    plan: Plan
    """What the model meant to send."""
    quirks: tuple[QuirkSpec, ...] = ()
    """Kind names or ``{"kind": ..., **params}`` mappings, of any stage."""
    tags: tuple[str, ...] = ()
    """Free labels for selection: ``truncation``, ``ids``, ``framing``..."""
    cites: str = ""
    """Public evidence (links) for the shape the scenario reproduces."""
    dialects: tuple[str, ...] | None = None
    """The dialects it applies to; ``None``: every dialect that can express its quirks."""
    seed: int = Field(default=0, ge=0)
    """Fixes the random choices of its quirks."""

    @field_validator("name")
    @classmethod
    def _slug(cls, name: str) -> str:
        if not _NAME.match(name):
            raise ValueError(f"{name!r} is not a slug of lowercase letters, digits and underscores")
        return name

    def parsed_quirks(self) -> list[Quirk]:
        """The quirks as objects (EVENTS and WIRE kinds need tooltape.fake_providers imported)."""
        return [parse_quirk(q) for q in self.quirks]

    def tool_chunk_quirks(self) -> list[Quirk]:
        """Only the quirks :func:`stream_plan` applies (what a merger sees)."""
        from tooltape.harness._quirks import Stage

        chunk_kinds = []
        for spec in self.quirks:
            try:
                quirk = parse_quirk(spec)
            except TooltapeUsageError:
                continue  # an EVENTS or WIRE quirk whose dialect module is not loaded
            if quirk.stage < Stage.EVENTS:
                chunk_kinds.append(quirk)
        return chunk_kinds

    def stream(self) -> PlannedStream:
        """The scenario's tool-chunk stream (dialect-independent)."""
        return stream_plan(self.plan, self.tool_chunk_quirks(), seed=self.seed)

    @property
    def lossless(self) -> bool:
        """True when a correct consumer recovers the plan exactly."""
        return all(q.lossless for q in self.parsed_quirks())


def _field_path(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(top level)"


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Read a scenario file.

    Raises:
        ScenarioFileError: The file is missing, not YAML, not shaped as a scenario
            list, holds a bad field or quirk, or repeats a name.
    """
    path = Path(path)
    text = read_text_file(path, what="scenario file", error=ScenarioFileError)
    try:
        document = yaml.load(text, Loader=BoundedSafeLoader)  # libyaml bounds nesting too
    except RecursionError:
        raise ScenarioFileError(f"{path}: not usable YAML: it nests too deep to read") from None
    except ValueError as error:  # an integer past Python's int-string conversion limit
        raise ScenarioFileError(f"{path}: not usable YAML: {str(error)[:200]}") from None
    except YamlTooLarge as error:
        raise ScenarioFileError(f"{path}: not usable YAML: {error}") from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}, column {where.column + 1}" if where else ""
        raise ScenarioFileError(
            f"{path}: not valid YAML{line}: {str(getattr(error, 'problem', error))[:200]}"
        ) from None
    if expanded_size(document, limit=expansion_limit(text)) is None:
        raise ScenarioFileError(
            f"{path}: not usable YAML: its aliases (*name) expand it far beyond its "
            f"{len(text):,} characters (an alias bomb?)"
        )
    if not isinstance(document, dict) or not isinstance(document.get("scenarios"), list):
        raise ScenarioFileError(
            f"{path}: expected a mapping with a 'scenarios' list at the top, got "
            f"{type(document).__name__}"
        )
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for number, entry in enumerate(document["scenarios"]):
        label = entry.get("name", f"#{number}") if isinstance(entry, dict) else f"#{number}"
        scenario = _one(path, label, entry)
        if scenario.name in seen:
            raise ScenarioFileError(f"{path}: scenario {scenario.name!r} is defined twice")
        seen.add(scenario.name)
        scenarios.append(scenario)
    return scenarios


def _one(path: Path, label: str, entry: Any) -> Scenario:
    try:
        scenario = Scenario.model_validate(entry)
    except ValidationError as error:
        first = error.errors()[0]
        more = (
            f" (and {error.error_count() - 1} more problem(s))" if error.error_count() > 1 else ""
        )
        raise ScenarioFileError(
            f"{path}: scenario {label!r}, field {_field_path(first)}: {first['msg']}"
            f" (got {first.get('input')!r}){more}"
        ) from None
    for spec in scenario.quirks:
        try:
            parse_quirk(spec)
        except (TooltapeUsageError, ValidationError) as error:
            text = str(error).splitlines()[0] if isinstance(error, ValidationError) else str(error)
            raise ScenarioFileError(f"{path}: scenario {label!r}, quirk {spec!r}: {text}") from None
    return scenario


def select_scenarios(
    scenarios: Iterable[Scenario],
    *,
    names: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
) -> list[Scenario]:
    """Filter by name (exact, in the order given) and by tags (any of them).

    A filter that selects nothing is a mistake, never an empty run.

    Raises:
        TooltapeUsageError: A name or tag matches no scenario (the message suggests the
            closest known ones), or the names and tags together select nothing.
    """
    pool = everything = list(scenarios)
    if names is not None:
        by_name = {s.name: s for s in pool}
        check_names("scenario", names, by_name)
        pool = [by_name[n] for n in names]
    if tags is not None:
        check_names("tag", tags, {tag for s in everything for tag in s.tags})
        wanted = set(tags)
        pool = [s for s in pool if wanted & set(s.tags)]
        if not pool:
            raise TooltapeUsageError(
                f"no scenario among {', '.join(names or ())} has the tag(s) {', '.join(tags)}"
            )
    return pool
