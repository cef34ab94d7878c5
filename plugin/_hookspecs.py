"""Hooks other plugins and conftests implement to extend tooltape."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["pytest_tooltape_scenarios"]


@pytest.hookspec
def pytest_tooltape_scenarios(config: pytest.Config) -> list[Any]:
    """Return extra :class:`tooltape.harness.Scenario` objects for ``tooltape_scenarios``.

    Every implementation's list is added to the bundled library, so a project can
    parametrize its tests over its own recorded or hand-written scenarios too.
    """
    raise NotImplementedError  # pragma: no cover - a specification
