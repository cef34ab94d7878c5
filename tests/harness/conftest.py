"""Fixtures shared by the harness tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings


@pytest.fixture
def hypothesis_profile() -> Iterator[Callable[..., None]]:
    """Load a Hypothesis settings profile for one test; the suite's profile comes back after.

    Call it with a name and the settings, as ``settings.register_profile`` takes them.
    """
    previous = settings._current_profile

    def load(name: str, **options: Any) -> None:
        settings.register_profile(name, **options)
        settings.load_profile(name)

    yield load
    settings.load_profile(previous)
