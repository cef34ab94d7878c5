"""tooltape.plugin: the pytest plugin (entry point ``pytest11: tooltape``).

Importing this module costs almost nothing: the hooks here import their
implementations (and pytest) when pytest first calls them, the fixtures load
when pytest first looks them up, and the dialects, transports and LangChain are
imported inside the fixtures that need them; so ``tooltape inspect`` and the
other commands never import pytest. The public classes below load on first access.

Fixtures: ``fake_openai``, ``fake_responses``, ``fake_anthropic``,
``fake_provider`` (factory), ``tooltape_case`` (with the ``tooltape_scenarios``
marker), ``tooltape_cassette`` (with the ``tooltape_cassette`` marker),
``tooltape_snapshot``, ``tooltape_config``, ``tooltape_cassette_dir``,
``tooltape_record_mode``, ``tooltape_seed``, ``tooltape_fakes``.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing
from collections.abc import Generator as _Generator

import pluggy as _pluggy

# The fixtures pytest finds on this module load when pytest first looks them up (for
# pytest, not public API), and the hooks below import pytest only when pytest calls
# them: the command line (``tooltape.plugin.cli``) imports this package, never pytest.
_FIXTURES = frozenset(
    {
        "fake_anthropic",
        "fake_openai",
        "fake_provider",
        "fake_responses",
        "tooltape_case",
        "tooltape_cassette",
        "tooltape_cassette_autouse",
        "tooltape_cassette_dir",
        "tooltape_config",
        "tooltape_fakes",
        "tooltape_record_mode",
        "tooltape_seed",
        "tooltape_snapshot",
    }
)

_hookimpl = _pluggy.HookimplMarker("pytest")
_Wrapper = _Generator[None, _typing.Any, _typing.Any]


def pytest_addhooks(pluginmanager: _typing.Any) -> None:
    """Register tooltape's hook specifications."""
    _hook_module().pytest_addhooks(pluginmanager)


def pytest_addoption(parser: _typing.Any) -> None:
    """Add the ``tooltape`` option group and its ini keys."""
    _hook_module().pytest_addoption(parser)


def pytest_configure(config: _typing.Any) -> None:
    """Register the markers and check every setting once, before collection."""
    _hook_module().pytest_configure(config)


def pytest_report_header(config: _typing.Any) -> str:
    """The effective tooltape settings."""
    header: str = _hook_module().pytest_report_header(config)
    return header


def pytest_generate_tests(metafunc: _typing.Any) -> None:
    """Parametrize ``tooltape_case`` from the ``tooltape_scenarios`` marker."""
    _hook_module().pytest_generate_tests(metafunc)


@_hookimpl(wrapper=True)
def pytest_runtest_call(item: _typing.Any) -> _Wrapper:
    """A request no recording answers fails the test itself (see ``_hooks``)."""
    return (yield from _hook_module().pytest_runtest_call(item))


@_hookimpl(wrapper=True)
def pytest_runtest_makereport(item: _typing.Any, call: _typing.Any) -> _Wrapper:
    """Keep each phase's report on the item (see ``_hooks``)."""
    return (yield from _hook_module().pytest_runtest_makereport(item, call))


def _hook_module() -> _typing.Any:
    # Not named _hooks: importing the submodule binds that name on this package.
    return _importlib.import_module("tooltape.plugin._hooks")


__all__ = [
    "FakeSession",
    "NetworkBlocked",
    "ScenarioCase",
    "ScriptedProvider",
    "TooltapeSnapshotExtension",
    "describe_for_snapshot",
]

_LAZY = {
    "FakeSession": "tooltape.plugin._fakes",
    "ScriptedProvider": "tooltape.plugin._fakes",
    "ScenarioCase": "tooltape.plugin._cases",
    "NetworkBlocked": "tooltape.plugin._network",
    "TooltapeSnapshotExtension": "tooltape.plugin._snapshot",
    "describe_for_snapshot": "tooltape.plugin._snapshot",
}


def __getattr__(name: str) -> _typing.Any:
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    if name in _FIXTURES:
        return getattr(_importlib.import_module("tooltape.plugin._fixtures"), name)
    raise AttributeError(f"module 'tooltape.plugin' has no attribute {name!r}")


def __dir__() -> list[str]:
    # pytest finds fixtures by walking dir() of the plugin module.
    return sorted({*globals(), *_LAZY, *_FIXTURES})
