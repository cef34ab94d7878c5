"""Scenario x dialect cases for the ``tooltape_scenarios`` marker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import Dialect, Wire, dialect_names, get_dialect
from tooltape.harness import (
    MergeResult,
    Plan,
    Scenario,
    SubjectLike,
    TooltapeUsageError,
    assert_merge,
    reference_merge,
    select_scenarios,
)

__all__ = ["ScenarioCase", "build_cases", "short_dialect_name"]

_SHORT = {
    "openai_chat": "openai",
    "openai_responses": "responses",
    "anthropic_messages": "anthropic",
}


def short_dialect_name(name: str) -> str:
    """The dialect as test ids show it: ``anthropic_messages`` -> ``anthropic``."""
    return _SHORT.get(name, name)


@dataclass
class ScenarioCase:
    """One scenario rendered in one dialect: what a ``tooltape_scenarios`` test receives.

    The fixture also serves the case on a fake provider (``case.provider``), so a
    client pointed at ``case.base_url`` (or ``case.chat_model()``) streams it.
    """

    scenario: Scenario
    """The scenario: plan, quirks, tags, cites."""
    dialect_name: str
    """The dialect (or profile) it is rendered in."""
    seed: int
    """The seed the wire was rendered with."""
    provider: Any = field(default=None, repr=False)
    """The fake provider serving this case (set by the ``tooltape_case`` fixture)."""

    @property
    def id(self) -> str:
        """``<scenario>-<dialect>``, as the test id shows it."""
        return f"{self.scenario.name}-{short_dialect_name(self.dialect_name)}"

    @property
    def plan(self) -> Plan:
        """The scenario's plan."""
        return self.scenario.plan

    @cached_property
    def dialect(self) -> Dialect:
        """The dialect object."""
        return get_dialect(self.dialect_name)

    @cached_property
    def wire(self) -> Wire:
        """The rendered bytes and read boundaries."""
        return self.dialect.render(self.scenario.plan, self.scenario.quirks, self.seed)

    @cached_property
    def reference(self) -> MergeResult:
        """What langchain-core makes of the deltas this dialect's adapter yields from the wire."""
        return reference_merge(self.dialect.parse(self.wire.body))

    @property
    def lossless(self) -> bool:
        """True when a correct consumer must reproduce the plan exactly."""
        return self.scenario.lossless

    @property
    def base_url(self) -> str:
        """Where the case is served."""
        return str(self.provider.base_url)

    def chat_model(self, **kwargs: Any) -> Any:
        """A LangChain chat model pointed at the case's fake provider (streaming on)."""
        return self.provider.chat_model(**kwargs)

    def assert_merge(self, subject: SubjectLike, *, ignore_ids: bool = False) -> MergeResult:
        """Assert the subject merged the stream as the reference did (hazards included)."""
        return assert_merge(subject, self.reference, allow_hazards=True, ignore_ids=ignore_ids)


def _renders(dialect: str, scenario: Scenario, seed: int) -> bool:
    try:
        get_dialect(dialect).render(scenario.plan, scenario.quirks, seed)
    except TooltapeUsageError:
        return False
    return True


def build_cases(
    *,
    names: Sequence[str] | None,
    dialects: Sequence[str] | None,
    tags: Sequence[str] | None,
    dialect_filter: Sequence[str],
    seed: int,
    extra_scenarios: Sequence[Scenario] = (),
) -> list[ScenarioCase]:
    """Every (scenario, dialect) pair the marker selects that the dialect can render."""
    pool = [*bundled_scenarios(), *extra_scenarios]
    scenarios = select_scenarios(pool, names=names, tags=tags)
    chosen = list(dialects) if dialects is not None else dialect_names()
    for name in chosen:
        get_dialect(name)  # raises a usage error naming the known dialects
    if dialect_filter:
        chosen = [
            d for d in chosen if d in dialect_filter or short_dialect_name(d) in dialect_filter
        ]
    cases = []
    for scenario in scenarios:
        allowed = scenario.dialects
        for dialect in chosen:
            if allowed is not None and dialect not in allowed:
                continue
            if _renders(dialect, scenario, scenario.seed or seed):
                cases.append(ScenarioCase(scenario, dialect, scenario.seed or seed))
    return cases
