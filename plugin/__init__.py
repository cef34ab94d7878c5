"""tooltape.plugin: the pytest plugin and the command line.

The plugin pytest loads is :mod:`tooltape.plugin._pytest_plugin` (entry point
``pytest11: tooltape``); the command line is :mod:`tooltape.plugin.cli`.
Importing this package costs almost nothing and imports no pytest: the public
classes below load on first access, and the dialects, transports and LangChain
are imported inside the fixtures that need them.

Fixtures: ``fake_openai``, ``fake_responses``, ``fake_anthropic``,
``fake_provider`` (factory), ``tooltape_case`` (with the ``tooltape_scenarios``
marker), ``tooltape_cassette`` (with the ``tooltape_cassette`` marker),
``tooltape_snapshot``, ``tooltape_config``, ``tooltape_cassette_dir``,
``tooltape_record_mode``, ``tooltape_seed``, ``tooltape_fakes``.
"""

from __future__ import annotations

import typing as _typing

from tooltape.harness.lazy_facades import lazy_exports as _lazy_exports

if not _typing.TYPE_CHECKING:  # the imports below say where each name lives
    __getattr__, __dir__ = _lazy_exports(__name__, globals())

if _typing.TYPE_CHECKING:
    from tooltape.plugin._cases import ScenarioCase
    from tooltape.plugin._engine.differential import differential, differential_table
    from tooltape.plugin._engine.run import Cell, Result, run_matrix
    from tooltape.plugin._fakes import FakeSession, ScriptedProvider
    from tooltape.plugin._snapshot import TooltapeSnapshotExtension, describe_for_snapshot
    from tooltape.plugin._subjects import Subject, Turn, check_subject

__all__ = [
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
