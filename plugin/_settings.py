"""Settings: every option, its ini twin, and the one resolver that decides its value.

Precedence, highest first: the command line, the test's marker, the
``tooltape_config`` fixture (a conftest may override it), the ini file, the
default. Only pytest, the standard library and the record modes are imported here
(tooltape's name checks load only when a value is wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tooltape.cassettes import RECORD_MODES

__all__ = ["RECORD_MODES", "SETTINGS", "Setting", "add_options", "resolve", "session_value"]


def _record_mode(value: str) -> str:
    if value not in RECORD_MODES:
        from tooltape.harness.name_checks import unknown_name  # only on a mistake

        raise unknown_name(
            "record mode", value, RECORD_MODES, error=pytest.UsageError, prefix="tooltape: "
        )
    return value


def _dialects(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    names = value.split(",") if isinstance(value, str) else list(value)
    return tuple(n.strip() for n in names if n.strip())


def _boolean(value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise pytest.UsageError(f"tooltape: {value!r} is not a boolean (use true or false)")


def _seconds(value: str | float) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if seconds < 0:
        raise pytest.UsageError(f"tooltape: {value!r} is not a number of seconds (0: no limit)")
    return seconds


def _seed(value: str | int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"tooltape: seed {value!r} is not an integer") from None


@dataclass(frozen=True)
class Setting:
    """One tooltape setting: its command-line flag, ini key, default and parser."""

    name: str
    flag: str
    help: str
    default: Any
    parse: Callable[[Any], Any]
    metavar: str = "VALUE"

    @property
    def dest(self) -> str:
        """Where argparse stores the command-line value."""
        return f"tooltape_{self.name}"

    @property
    def ini(self) -> str:
        """The ini key."""
        return f"tooltape_{self.name}"


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting(
            "record_mode",
            "--tooltape-record-mode",
            "Cassette record mode: none (replay only, the default), once, new_episodes, all.",
            "none",
            _record_mode,
            "MODE",
        ),
        Setting(
            "cassette_dir",
            "--tooltape-cassette-dir",
            "Directory for cassettes (default: cassettes/<test module> beside each test file).",
            None,
            str,
            "DIR",
        ),
        Setting(
            "dialects",
            "--tooltape-dialects",
            "Comma-separated dialects that tooltape_scenarios parametrizes over (default: all).",
            (),
            _dialects,
            "NAMES",
        ),
        Setting(
            "block_network",
            "--tooltape-block-network",
            "Refuse connections beyond 127.0.0.1 in tests that use tooltape "
            "(true or false; default: true unless recording).",
            None,
            _boolean,
            "BOOL",
        ),
        Setting(
            "block_subprocess",
            "--tooltape-block-subprocess",
            "While the network is blocked, also refuse to start child processes, which "
            "would have the network (true or false; default: false).",
            False,
            _boolean,
            "BOOL",
        ),
        Setting(
            "seed",
            "--tooltape-seed",
            "Seed for quirk rendering when a test gives none (default 0).",
            0,
            _seed,
            "N",
        ),
        Setting(
            "case_timeout",
            "--tooltape-case-timeout",
            "Seconds a tooltape_case test may run before it fails as hanging "
            "(default 60; 0: none).",
            60.0,
            _seconds,
            "SECONDS",
        ),
    )
}


def add_options(parser: pytest.Parser) -> None:
    """Register every setting as a command-line option and an ini key."""
    group = parser.getgroup("tooltape", "tooltape: fake LLM providers and tool-call checks")
    for setting in SETTINGS.values():
        group.addoption(
            setting.flag,
            dest=setting.dest,
            default=None,
            metavar=setting.metavar,
            help=setting.help,
        )
        parser.addini(setting.ini, help=setting.help, default=None)


def _from_ini(config: pytest.Config, setting: Setting) -> Any:
    value = config.getini(setting.ini)
    return None if value in (None, "", []) else value


def session_value(config: pytest.Config, name: str) -> Any:
    """A setting's value from the command line, the ini file or its default (no test context)."""
    setting = SETTINGS[name]
    for raw in (config.getoption(setting.dest), _from_ini(config, setting)):
        if raw is not None:
            return setting.parse(raw)
    return _default(config, setting)


def _default(config: pytest.Config, setting: Setting) -> Any:
    if setting.name == "block_network":
        return session_value(config, "record_mode") == "none"
    return setting.default


def resolve(
    config: pytest.Config,
    name: str,
    *,
    marker_kwargs: Mapping[str, Any] | None = None,
    fixture_config: Mapping[str, Any] | None = None,
) -> Any:
    """A setting's value for one test: CLI > marker > ``tooltape_config`` > ini > default.

    ``tooltape_config``'s keys are checked by the fixtures that read it
    (:func:`~tooltape.plugin._markers.check_config`): it also holds cassette options.
    """
    setting = SETTINGS[name]
    cli = config.getoption(setting.dest)
    if cli is not None:
        return setting.parse(cli)
    for layer in (marker_kwargs or {}, fixture_config or {}):
        if layer.get(name) is not None:
            return setting.parse(layer[name])
    ini = _from_ini(config, setting)
    if ini is not None:
        return setting.parse(ini)
    if name == "block_network":
        mode = resolve(
            config, "record_mode", marker_kwargs=marker_kwargs, fixture_config=fixture_config
        )
        return mode == "none"
    return setting.default


def cassette_root(config: pytest.Config, test_path: Path, value: str | None) -> Path:
    """The directory a test's cassettes live in: ``<value or cassettes>/<test module>``."""
    base = Path(value) if value else test_path.parent / "cassettes"
    if not base.is_absolute():
        base = (config.rootpath / base) if value else base
    return base / test_path.stem
