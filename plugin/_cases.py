"""Scenario x dialect cases for the ``tooltape_scenarios`` marker."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
from tooltape.harness.name_checks import check_names

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
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        return assert_merge(subject, self.reference, allow_hazards=True, ignore_ids=ignore_ids)


def _renders(dialect: str, scenario: Scenario, seed: int) -> bool:
    try:
        get_dialect(dialect).render(scenario.plan, scenario.quirks, seed)
    except TooltapeUsageError:
        return False
    return True


def dialect_option_names() -> list[str]:
    """Every name ``--tooltape-dialects`` accepts: dialects, profiles and short names."""
    full = dialect_names(profiles=True)
    return sorted({*full, *(short_dialect_name(d) for d in full)})


def check_dialect_option(names: Sequence[str]) -> None:
    """Refuse a ``--tooltape-dialects`` name that is no dialect, profile or short name.

    Raises:
        TooltapeUsageError: Naming the closest known names.
    """
    check_names("dialect", names, dialect_option_names(), plural="dialects and profiles")


def build_cases(
    *,
    names: Sequence[str] | None,
    dialects: Sequence[str] | None,
    tags: Sequence[str] | None,
    dialect_filter: Sequence[str],
    seed: int,
    extra_scenarios: Sequence[Scenario] = (),
) -> list[ScenarioCase]:
    """Every (scenario, dialect) pair the marker selects that the dialect can render.

    An empty list means only that ``dialect_filter`` (``--tooltape-dialects``) leaves
    none of the marker's dialects: a deliberate narrowing, which the caller skips.

    Raises:
        TooltapeUsageError: A name is unknown, or the marker's own selection (names,
            tags, dialects) has no scenario any chosen dialect can render.
    """
    pool = [*bundled_scenarios(), *extra_scenarios]
    scenarios = select_scenarios(pool, names=names, tags=tags)
    chosen = list(dialects) if dialects is not None else dialect_names()
    for name in chosen:
        get_dialect(name)  # raises a usage error naming the closest known dialects
    check_dialect_option(dialect_filter)
    known = dialect_names(profiles=True)
    for scenario in scenarios:  # a scenario file's own list is typed by hand too
        where = f"scenario {scenario.name!r}, dialects: "
        check_names("dialect", scenario.dialects or (), known, prefix=where)
    cases = [
        ScenarioCase(scenario, dialect, scenario.seed or seed)
        for scenario in scenarios
        for dialect in chosen
        if (scenario.dialects is None or dialect in scenario.dialects)
        and _renders(dialect, scenario, scenario.seed or seed)
    ]
    if not cases:
        raise TooltapeUsageError(
            f"no scenario x dialect to run: the {len(scenarios)} selected scenario(s) "
            f"({_listed(s.name for s in scenarios)}) render in none of {_listed(chosen)}"
        )
    if dialect_filter:
        wanted = set(dialect_filter)
        cases = [
            c
            for c in cases
            if c.dialect_name in wanted or short_dialect_name(c.dialect_name) in wanted
        ]
    return cases


def _listed(names: Iterable[str], most: int = 8) -> str:
    shown = list(names)
    more = f" and {len(shown) - most} more" if len(shown) > most else ""
    return ", ".join(shown[:most]) + more
