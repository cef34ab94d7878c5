"""tooltape.plugin: the pytest plugin (entry point ``pytest11: tooltape``).

Importing this module costs almost nothing: hooks, options and fixtures are
defined here, and the dialects, transports and LangChain are imported inside
the fixtures that need them. The public classes below load on first access.

Fixtures: ``fake_openai``, ``fake_responses``, ``fake_anthropic``,
``fake_provider`` (factory), ``tooltape_case`` (with the ``tooltape_scenarios``
marker), ``tooltape_cassette`` (with the ``tooltape_cassette`` marker),
``tooltape_snapshot``, ``tooltape_config``, ``tooltape_cassette_dir``,
``tooltape_record_mode``, ``tooltape_seed``, ``tooltape_fakes``.
"""

from __future__ import annotations

import importlib
import typing as _typing

# Fixtures and hooks pytest finds on this module (re-exported for pytest, not public API).
from tooltape.plugin._fixtures import (
    fake_anthropic as fake_anthropic,
)
from tooltape.plugin._fixtures import (
    fake_openai as fake_openai,
)
from tooltape.plugin._fixtures import (
    fake_provider as fake_provider,
)
from tooltape.plugin._fixtures import (
    fake_responses as fake_responses,
)
from tooltape.plugin._fixtures import (
    tooltape_case as tooltape_case,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette as tooltape_cassette,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette_autouse as tooltape_cassette_autouse,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette_dir as tooltape_cassette_dir,
)
from tooltape.plugin._fixtures import (
    tooltape_config as tooltape_config,
)
from tooltape.plugin._fixtures import (
    tooltape_fakes as tooltape_fakes,
)
from tooltape.plugin._fixtures import (
    tooltape_record_mode as tooltape_record_mode,
)
from tooltape.plugin._fixtures import (
    tooltape_seed as tooltape_seed,
)
from tooltape.plugin._fixtures import (
    tooltape_snapshot as tooltape_snapshot,
)
from tooltape.plugin._hooks import (
    pytest_addhooks as pytest_addhooks,
)
from tooltape.plugin._hooks import (
    pytest_addoption as pytest_addoption,
)
from tooltape.plugin._hooks import (
    pytest_configure as pytest_configure,
)
from tooltape.plugin._hooks import (
    pytest_generate_tests as pytest_generate_tests,
)
from tooltape.plugin._hooks import (
    pytest_report_header as pytest_report_header,
)
from tooltape.plugin._hooks import (
    pytest_runtest_call as pytest_runtest_call,
)
from tooltape.plugin._hooks import (
    pytest_runtest_makereport as pytest_runtest_makereport,
)

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
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tooltape.plugin' has no attribute {name!r}")
