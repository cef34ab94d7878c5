"""tooltape.plugin's public surface: what users type, pinned, and cheap to import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tooltape.plugin as plugin

FACADE = [
    "Cell",
    "FakeSession",
    "Result",
    "ScenarioCase",
    "ScriptedProvider",
    "Subject",
    "TooltapeSnapshotExtension",
    "Turn",
    "check_subject",
    "describe_for_snapshot",
    "differential",
    "differential_table",
    "run_matrix",
]


def test_the_facade_is_pinned_and_every_name_resolves() -> None:
    assert plugin.__all__ == FACADE
    for name in FACADE:
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
