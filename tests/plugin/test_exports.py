"""tooltape.plugin's public surface: every name resolves, and the facade is cheap to import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tooltape.plugin as plugin


def test_every_facade_name_resolves() -> None:
    # the names themselves are pinned in tests/test_facades.py
    for name in plugin.__all__:
        assert getattr(plugin, name) is not None, name
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        _ = plugin.not_a_name


def test_importing_the_facade_loads_neither_the_engine_nor_pytest() -> None:
    code = (
        "import sys, tooltape.plugin\n"
        "print([m for m in ('tooltape.plugin._engine.run', 'pytest') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
