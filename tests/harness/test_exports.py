"""Each package's __all__ is its public surface: sorted, complete, importable."""

import importlib
import subprocess
import sys

import pytest

PACKAGES = [
    "tooltape.harness",
    "tooltape.harness.quirks",
    "tooltape.fake_providers",
    "tooltape.plugin",
    "tooltape.cassettes",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_importable(name):
    module = importlib.import_module(name)
    assert list(module.__all__) == sorted(module.__all__)
    for public in module.__all__:
        assert hasattr(module, public), public


def _is_fixture(value):
    """The plugin's fixtures: pytest 8.4+ wraps them, older pytest marks the function."""
    return type(value).__name__ == "FixtureFunctionDefinition" or hasattr(
        value, "_pytestfixturefunction"
    )


@pytest.mark.parametrize("name", PACKAGES)
def test_no_public_name_is_left_out_of_all(name):
    module = importlib.import_module(name)
    public = {
        n
        for n, value in vars(module).items()
        if not n.startswith(("_", "pytest_"))
        and not isinstance(value, type(importlib))
        and n != "annotations"
        and not _is_fixture(value)
    }
    assert public <= set(module.__all__), sorted(public - set(module.__all__))


def test_importing_the_harness_pulls_neither_hypothesis_nor_requests():
    # langchain-core's messages module imports requests; the facade loads names on use.
    code = (
        "import sys, tooltape.harness\n"
        "print(sorted(m for m in ('hypothesis', 'requests', 'langchain_core') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_harness_facade_keeps_what_writing_a_quirk_needs_and_no_quirk_class():
    import tooltape.harness as harness
    import tooltape.harness.quirks as catalogue

    assert {"Quirk", "Stage", "evidence", "CAPABILITIES", "parse_quirk", "quirk_kinds"} <= set(
        harness.__all__
    )
    assert not set(harness.__all__) & set(catalogue.__all__)


def test_the_quirk_catalogue_holds_every_tool_chunk_quirk_class_of_the_registry():
    import tooltape.harness.quirks as catalogue
    from tooltape.harness._quirks import _REGISTRY

    defined = {c.__name__ for c in _REGISTRY.values() if c.__module__ == "tooltape.harness._quirks"}
    assert list(catalogue.__all__) == sorted(defined)
    for name in catalogue.__all__:
        cls = getattr(catalogue, name)
        assert cls is _REGISTRY[cls.model_fields["kind"].default], name


def test_a_quirk_named_by_kind_is_the_catalogue_class():
    from tooltape.harness import parse_quirk
    from tooltape.harness.quirks import LateId, SplitArgs

    assert parse_quirk("late_id") == LateId()
    assert parse_quirk({"kind": "split_args", "pieces": 3}) == SplitArgs(pieces=3)
