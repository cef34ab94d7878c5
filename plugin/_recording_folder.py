"""pytest-recording's cassette folder, read from ``node.path`` instead of ``node.fspath``.

pytest-recording's ``vcr_cassette_dir`` reads ``request.node.fspath``, a property
that pytest's legacypath plugin adds when pytest configures and takes away when it
unconfigures. HypoFuzz (``hypothesis fuzz``) collects the tests with pytest, which
unconfigures, then sets up their fixtures itself: pytest-recording's autouse ``vcr``
fixture then raises ``AttributeError`` on every test, and HypoFuzz reports "a
failing input for every test". This module is registered (see
:func:`~tooltape.plugin._hooks.pytest_configure`) only where pytest-recording is,
after it, so its fixture takes the place of pytest-recording's and returns the same
folder; a conftest's own ``vcr_cassette_dir`` still wins, as it did before.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["vcr_cassette_dir"]


@pytest.fixture(scope="module")
def vcr_cassette_dir(request: pytest.FixtureRequest) -> str:
    """``cassettes/<module name>`` beside the test module, as pytest-recording's own."""
    module = request.node.path
    return os.path.join(module.parent, "cassettes", module.stem)
