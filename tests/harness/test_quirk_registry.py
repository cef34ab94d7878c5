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


def test_a_class_keyword_that_is_no_class_attribute_is_refused() -> None:
    with pytest.raises(TypeError, match=r"\['pirority'\] are not class attributes of a quirk"):

        class _Typo(Quirk, kind="_typo_keyword", stage=Stage.LATE, pirority=3):
            """A misspelt priority."""


def test_needs_names_only_capabilities_that_exist() -> None:
    with pytest.raises(TypeError, match=r"unknown capability 'name_fragment' \(did you mean"):

        class _Typo(Quirk, kind="_typo_needs", stage=Stage.LATE, needs={"name_fragment"}):
            """A misspelt capability."""


def test_class_keywords_set_the_kind_field_and_the_class_attributes() -> None:
    from tooltape.harness.quirks import NoIndex

    assert NoIndex.model_fields["kind"].default == "no_index"
    assert (NoIndex.stage, NoIndex.lossless, NoIndex.needs) == (
        Stage.INDEX,
        False,
        frozenset({"optional_index"}),
    )
    with pytest.raises(ValueError, match="no_index"):
        NoIndex.model_validate({"kind": "shared_index"})


def test_evidence_expands_short_github_links() -> None:
    from tooltape.harness import evidence

    @evidence("who", "a/b#1 a/b/pull/2", "https://example.com/x")
    class _Cited(Quirk, stage=Stage.LATE):
        """Not registered: no kind."""

    assert _Cited.cites == (
        "who",
        "https://github.com/a/b/issues/1",
        "https://github.com/a/b/pull/2",
        "https://example.com/x",
    )
