"""The quirk registry: one class per kind, and a module imported again is not a second class."""

from __future__ import annotations

import subprocess
import sys
from typing import Literal

import pytest

from tooltape.harness import Stage
from tooltape.harness._quirks import Quirk


def test_another_class_with_a_taken_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="quirk kind 'split_args' is registered twice"):

        class Impostor(Quirk):
            kind: Literal["split_args"] = "split_args"
            stage = Stage.SPLIT


def test_a_dialect_module_imported_again_keeps_its_quirks_parseable() -> None:
    # pytester's in-process runs drop the modules a run imported; the next import defines
    # the same classes again. In a child process: the registry is process-wide.
    script = """
import importlib, sys
from tooltape.harness import parse_quirk
name = "tooltape.fake_providers.dialects.anthropic._dialect"
importlib.import_module(name)
del sys.modules[name]
again = importlib.import_module(name)
print(type(parse_quirk("ping_events")).__module__ == again.__name__)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "True", done.stderr[-2000:]
