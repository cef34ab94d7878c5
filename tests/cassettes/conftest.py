"""Fixtures of the cassette tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _leaky import leaky_app, provider_wires

from tooltape.fake_providers import Wire, serve_in_thread


@pytest.fixture
def leaky_provider() -> Iterator[tuple[str, dict[str, Wire]]]:
    """The leaky provider's URL on 127.0.0.1 and the wires it serves."""
    wires = provider_wires()
    with serve_in_thread(leaky_app(wires)) as url:
        yield url, wires
