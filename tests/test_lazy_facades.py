"""The cassettes and fake_providers facades import their names on first use.

Importing any submodule runs its package's ``__init__`` first, so an eager facade
made ``tooltape inspect`` load the chat model, the ASGI app and the recorder it
never uses. These tests pin that the facades stay complete and cheap.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import tooltape.cassettes
import tooltape.fake_providers
from tooltape.harness.lazy_facades import _type_checking_imports

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
        " 'tooltape.cassettes.transport_seam', 'langchain_core.language_models']\n"
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


ALL_FACADES = [
    "tooltape.cassettes",
    "tooltape.fake_providers",
    "tooltape.harness",
    "tooltape.plugin",
]


@pytest.mark.parametrize("package", ALL_FACADES)
def test_each_public_name_is_imported_once_under_type_checking_and_loads_from_there(package):
    facade = importlib.import_module(package)
    tree = ast.parse(Path(facade.__file__).read_text(encoding="utf-8"))
    defined_in = _type_checking_imports(tree, package)
    assert sorted(defined_in) == sorted(facade.__all__)
    for name, module in defined_in.items():
        assert getattr(facade, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="has no attribute 'reference_marge'"):
        _ = facade.reference_marge


def test_a_public_name_the_type_checking_block_does_not_import_fails_the_import(tmp_path):
    package = tmp_path / "halfdone"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import typing\n"
        "from tooltape.harness.lazy_facades import lazy_exports\n"
        "if not typing.TYPE_CHECKING:\n"
        "    __getattr__, __dir__ = lazy_exports(__name__, globals())\n"
        "if typing.TYPE_CHECKING:\n"
        "    from halfdone._made import made\n"
        '__all__ = ["made", "forgotten"]\n'
    )
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import halfdone"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert (
        "ImportError: halfdone.__all__ names forgotten, which its TYPE_CHECKING block "
        "does not import"
    ) in done.stderr


def test_loading_the_pytest_plugin_imports_neither_the_cassette_stack_the_fakes_nor_pydantic():
    # pytest loads the plugin in every run, before pytest-cov starts measuring: what it
    # imports there costs every user's startup and goes unmeasured (a facade import of
    # RECORD_MODES once pulled in 152 modules and took coverage from 89% to 69%).
    code = (
        "import sys, tooltape.plugin._pytest_plugin\n"
        "heavy = ('tooltape.fake_providers', 'tooltape.cassettes._session', 'pydantic')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
