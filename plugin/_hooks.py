"""The pytest hooks: options, markers, header, parametrization and the terminal summary."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from tooltape.plugin import _hookspecs
from tooltape.plugin._failures import tooltape_failure
from tooltape.plugin._markers import MARKERS, cassette_marker_kwargs, scenarios_marker_kwargs
from tooltape.plugin._settings import SETTINGS, add_options, session_value

if TYPE_CHECKING:
    from tooltape.cassettes import CassetteSession
    from tooltape.plugin._fakes import FakeSession

__all__ = [
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_configure",
    "pytest_generate_tests",
    "pytest_report_header",
    "pytest_runtest_call",
    "pytest_runtest_makereport",
    "pytest_runtest_setup",
]

CASE_PROPERTY = "tooltape_case"
RECORDED_PROPERTY = "tooltape_recorded"
CASSETTE_PROPERTY = "tooltape_cassette"
REPORT_KEY = pytest.StashKey[dict[str, pytest.TestReport]]()
SESSION_KEY: pytest.StashKey[CassetteSession] = pytest.StashKey()
FAKES_KEY: pytest.StashKey[FakeSession] = pytest.StashKey()
"""The test's cassette session, so the call phase can fail on an unmatched request."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register tooltape's hook specifications."""
    pluginmanager.add_hookspecs(_hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``tooltape`` option group and its ini keys."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers and check every setting once, before collection."""
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    for name in SETTINGS:
        session_value(config, name)
    _check_dialect_option(config)
    if not hasattr(config, "workerinput"):  # xdist workers report; the controller summarizes
        config.pluginmanager.register(_Results(), "tooltape-results")
    if config.pluginmanager.has_plugin("recording"):  # pytest-recording, unless -p no:recording
        from tooltape.plugin import _recording_folder

        config.pluginmanager.register(_recording_folder, "tooltape-recording-folder")


def _check_dialect_option(config: pytest.Config) -> None:
    names = session_value(config, "dialects")
    if not names:
        return  # the dialects load only when a name needs checking
    from tooltape.harness import TooltapeUsageError
    from tooltape.plugin._cases import check_dialect_option

    try:
        check_dialect_option(names)
    except TooltapeUsageError as error:
        raise pytest.UsageError(
            f"tooltape: --tooltape-dialects / tooltape_dialects: {error}"
        ) from None


def pytest_report_header(config: pytest.Config) -> str:
    """Show the effective tooltape settings."""
    values = {name: session_value(config, name) for name in SETTINGS}
    dialects = ",".join(values["dialects"]) or "all"
    block = "on" if values["block_network"] else "off"
    return (
        f"tooltape: record_mode={values['record_mode']}, "
        f"cassette_dir={values['cassette_dir'] or 'cassettes/<module> beside each test'}, "
        f"dialects={dialects}, block_network={block}, seed={values['seed']}"
    )


def _check_cassette_marker(mark: pytest.Mark, name: str) -> None:
    """Refuse a ``tooltape_cassette`` marker's arguments at collection, not at setup."""
    try:
        kwargs = cassette_marker_kwargs(mark, name)
        for setting in ("record_mode", "block_network"):
            if kwargs.get(setting) is not None:
                SETTINGS[setting].parse(kwargs[setting])
    except pytest.UsageError as error:
        text = str(error)
        where = "" if "@pytest.mark" in text else f" (in @pytest.mark.tooltape_cassette on {name})"
        raise pytest.Collector.CollectError(text + where) from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Check ``tooltape_cassette``'s arguments; parametrize ``tooltape_case`` for scenarios."""
    # A CollectError shows its message without a traceback under the test's name.
    name = metafunc.definition.nodeid
    cassette = metafunc.definition.get_closest_marker("tooltape_cassette")
    if cassette is not None:
        _check_cassette_marker(cassette, name)
    mark = metafunc.definition.get_closest_marker("tooltape_scenarios")
    if mark is None:
        return
    try:
        kwargs = scenarios_marker_kwargs(mark, name)
    except pytest.UsageError as error:
        raise pytest.Collector.CollectError(str(error)) from None
    if "tooltape_case" not in metafunc.fixturenames:
        raise pytest.Collector.CollectError(
            f"tooltape: @pytest.mark.tooltape_scenarios on {name} parametrizes the "
            "'tooltape_case' argument; add it to the test's signature"
        )
    from tooltape.harness import TooltapeUsageError
    from tooltape.plugin._cases import build_cases

    config = metafunc.config
    extra = [s for group in config.hook.pytest_tooltape_scenarios(config=config) for s in group]
    try:
        cases = build_cases(
            names=kwargs["names"],
            dialects=kwargs["dialects"],
            tags=kwargs["tags"],
            dialect_filter=session_value(config, "dialects"),
            seed=session_value(config, "seed"),
            extra_scenarios=extra,
        )
    except TooltapeUsageError as error:
        raise pytest.Collector.CollectError(
            f"tooltape: {error} (in @pytest.mark.tooltape_scenarios on {name})"
        ) from None
    if not cases:  # --tooltape-dialects deselected every dialect this test runs on
        only = ",".join(session_value(config, "dialects"))
        reason = f"tooltape: --tooltape-dialects={only} leaves none of this test's dialects"
        metafunc.parametrize(
            "tooltape_case",
            [pytest.param(None, marks=pytest.mark.skip(reason=reason))],
            indirect=True,
        )
        return
    metafunc.parametrize("tooltape_case", cases, ids=[c.id for c in cases], indirect=True)


@contextmanager
def _case_limit(item: pytest.Item) -> Iterator[None]:
    """A ``tooltape_case`` test that spins fails as hanging, instead of hanging the run."""
    if "tooltape_case" not in getattr(item, "fixturenames", ()):
        yield
        return
    from tooltape.plugin._cell_limits import CellHangs, bounded

    seconds = session_value(item.config, "case_timeout")
    try:
        with bounded(seconds or None):
            yield
    except CellHangs as error:
        case = getattr(item, "callspec", None)
        where = case.id if case is not None else item.name
        raise pytest.fail.Exception(
            f"tooltape_case {where}: the test {error} (--tooltape-case-timeout)", pytrace=False
        ) from None


def _shown(item: pytest.Item, error: BaseException) -> BaseException:
    fakes = item.stash.get(FAKES_KEY, None)
    return tooltape_failure(
        error,
        keep_frames=item.config.getoption("fulltrace"),
        serves_host=fakes.serves_host if fakes is not None else None,
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    """A fixture's failure caused by tooltape reports tooltape's error (see ``_failures``)."""
    try:
        return (yield)
    except Exception as error:
        shown = _shown(item, error)
        if shown is error:
            raise
        raise shown from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """A request no recording answers fails the test itself, whatever the code under test did.

    The SDK saw a 404 and may have raised its own error (or the code swallowed it):
    the test's failure is the unmatched request, with the nearest recording and a diff.
    Any other failure tooltape caused reports tooltape's error (see ``_failures``).
    A ``tooltape_case`` test runs under ``--tooltape-case-timeout``.
    """
    try:
        with _case_limit(item):
            result = yield
    except Exception as error:
        session = item.stash.get(SESSION_KEY, None)
        failure = session.player.unmatched_failure(error) if session is not None else None
        if failure is not None:
            raise failure from None
        shown = _shown(item, error)
        if shown is error:
            raise
        raise shown from None
    session = item.stash.get(SESSION_KEY, None)
    failure = session.player.unmatched_failure() if session is not None else None
    if failure is not None:
        raise failure
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item, so fixtures can tell whether the test passed."""
    report = yield
    item.stash.setdefault(REPORT_KEY, {})[report.when] = report
    return report


class _Results:
    """Collects what tooltape tests reported and prints the terminal summary.

    Registered as a plugin object in ``pytest_configure``; ``pytest_runtest_logreport``
    runs on the xdist controller too, where worker reports arrive with their
    ``user_properties``.
    """

    def __init__(self) -> None:
        self.cases: dict[tuple[str, str], str] = {}
        self.recorded: list[str] = []
        self.cassettes: set[str] = set()
        self.narrowed = False
        """Whether the run left tests out (``-k``, ``-m``, node ids), so unused means nothing."""

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Remember that some tests did not run: their cassettes are not "unused"."""
        if items:
            self.narrowed = True

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Remember a run narrowed to node ids (``test_x.py::test_y``)."""
        if any("::" in str(arg) for arg in session.config.args):
            self.narrowed = True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect the tooltape facts a test reported."""
        for key, value in report.user_properties:
            if key == CASE_PROPERTY and (report.when == "call" or report.failed):
                from tooltape.harness.json_text import loads  # not at plugin load: pydantic-core

                facts = loads(str(value))
                outcome: str = report.outcome if report.when == "call" else "failed"
                if outcome == "passed" and facts["hazards"]:
                    outcome = "hazard"
                self.cases[(facts["scenario"], facts["dialect"])] = outcome
            elif key == RECORDED_PROPERTY and report.when == "teardown":
                self.recorded.append(str(value))
            elif key == CASSETTE_PROPERTY and report.when == "teardown":
                self.cassettes.add(str(value))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the scenario x dialect matrix and the cassettes recorded or left unused."""
        if self.cases:
            terminalreporter.section("tooltape scenario matrix")
            for line in _matrix_lines(self.cases):
                terminalreporter.write_line(line)
        if self.recorded:
            terminalreporter.section("tooltape cassettes recorded")
            for path in sorted(set(self.recorded)):
                terminalreporter.write_line(f"  {path}")
        unused = [] if self.narrowed else _unused_cassettes(self.cassettes)
        if unused:
            terminalreporter.section("tooltape cassettes not used by any test")
            for path in unused:
                terminalreporter.write_line(f"  {path}")


_CELL = {"passed": "pass", "failed": "FAIL", "hazard": "hazard", "skipped": "skip"}


def _matrix_lines(cases: dict[tuple[str, str], str]) -> list[str]:
    from tooltape.plugin._cases import short_dialect_name

    scenarios = sorted({s for s, _ in cases})
    dialects = sorted({d for _, d in cases})
    names = [short_dialect_name(d) for d in dialects]
    width = max(len(s) for s in scenarios)
    cells = [max(len(n), 6) for n in names]
    lines = [" " * width + "  " + "  ".join(n.ljust(c) for n, c in zip(names, cells, strict=True))]
    for scenario in scenarios:
        row = [
            _CELL.get(cases.get((scenario, d), ""), "·").ljust(c)
            for d, c in zip(dialects, cells, strict=True)
        ]
        lines.append(scenario.ljust(width) + "  " + "  ".join(row).rstrip())
    counts: dict[str, int] = defaultdict(int)
    for outcome in cases.values():
        counts[_CELL.get(outcome, outcome)] += 1
    lines.append(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return lines


def _unused_cassettes(used: set[str]) -> list[str]:
    """Tooltape cassettes beside the used ones that no test opened.

    Only files with tooltape's own ``tooltape:`` section count: vcrpy and
    pytest-recording keep their cassettes in the same folders.
    """
    from pathlib import Path

    folders = {Path(p).parent for p in used}
    on_disk = {p for folder in folders if folder.is_dir() for p in folder.glob("*.yaml")}
    return sorted(str(p) for p in on_disk if str(p) not in used and _is_tooltape_cassette(p))


_TOOLTAPE_SECTION = re.compile(rb"^tooltape:", re.MULTILINE)


def _is_tooltape_cassette(path: Any) -> bool:
    from tooltape.harness import TooltapeUsageError
    from tooltape.harness.user_files import read_regular_file

    try:
        return _TOOLTAPE_SECTION.search(read_regular_file(path)) is not None
    except (OSError, TooltapeUsageError):  # a link, a FIFO, too big: not reported as unused
        return False
