"""The bundled scenario library: where it lives and how to load it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tooltape.harness import Scenario, load_scenarios

__all__ = ["SCENARIOS_FILE", "bundled_scenarios", "get_scenario"]

SCENARIOS_FILE = Path(__file__).with_name("scenarios.yaml")
"""The YAML file that defines every bundled scenario."""


@cache
def _load() -> tuple[Scenario, ...]:
    import tooltape.fake_providers  # noqa: F401  # registers the EVENTS and WIRE quirk kinds

    return tuple(load_scenarios(SCENARIOS_FILE))


def bundled_scenarios() -> list[Scenario]:
    """Every bundled scenario, in library order."""
    return list(_load())


def get_scenario(name: str) -> Scenario:
    """The bundled scenario called ``name``.

    Raises:
        TooltapeUsageError: No bundled scenario has that name; the message lists them.
    """
    from tooltape.harness import select_scenarios

    return select_scenarios(_load(), names=[name])[0]
