"""The cassettes and fake_providers facades import their names on first use.

Importing any submodule runs its package's ``__init__`` first, so an eager facade
made ``tooltape inspect`` load the chat model, the ASGI app and the recorder it
never uses. These tests pin that the facades stay complete and cheap.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import tooltape.cassettes
import tooltape.fake_providers

FACADES = [tooltape.cassettes, tooltape.fake_providers]


@pytest.mark.parametrize("facade", FACADES, ids=lambda m: m.__name__)
def test_every_exported_name_resolves_and_nothing_else_does(facade):
    assert set(dir(facade)) >= set(facade.__all__)
    for name in facade.__all__:
        assert getattr(facade, name) is not None, name
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        _ = facade.not_a_name


def test_inspect_imports_neither_the_chat_model_nor_the_server():
    code = (
        "import sys, tooltape.cassettes._inspect\n"
        "heavy = ['tooltape.fake_providers._chat_model', 'tooltape.fake_providers._asgi',"
        " 'tooltape.cassettes._recorder', 'langchain_core.language_models']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_command_line_imports_no_pytest():
    # The console script imports tooltape.plugin (the pytest plugin) as cli's parent package.
    code = (
        "import sys, tooltape.plugin.cli, tooltape.plugin.cli.inspect\n"
        "print([m for m in ('pytest', '_pytest') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_entry_point_is_the_plugin_module_with_every_hook_and_fixture(pytestconfig):
    from importlib.metadata import entry_points

    from tooltape.plugin import _pytest_plugin

    (entry,) = [e for e in entry_points(group="pytest11") if e.name == "tooltape"]
    assert entry.load() is _pytest_plugin
    assert pytestconfig.pluginmanager.get_plugin("tooltape") is _pytest_plugin
    assert {"fake_openai", "tooltape_cassette", "pytest_runtest_call"} <= set(dir(_pytest_plugin))
