"""Each package's __all__ is its public surface: sorted, complete, importable."""

import importlib

import pytest

PACKAGES = ["tooltape.harness", "tooltape.fake_providers", "tooltape.plugin", "tooltape.cassettes"]


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
