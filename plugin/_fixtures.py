"""The fixtures. Heavy imports (dialects, transports, LangChain) happen inside them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tooltape.plugin._hooks import (
    CASE_PROPERTY,
    CASSETTE_PROPERTY,
    FAKES_KEY,
    RECORDED_PROPERTY,
    REPORT_KEY,
    SESSION_KEY,
)
from tooltape.plugin._markers import USE_CASSETTE_KWARGS, cassette_marker_kwargs, check_config
from tooltape.plugin._settings import cassette_root, resolve, session_value

if TYPE_CHECKING:
    from tooltape.cassettes import CassetteSession
    from tooltape.plugin._cases import ScenarioCase
    from tooltape.plugin._fakes import FakeSession, ScriptedProvider

__all__ = [
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
]


@pytest.fixture
def tooltape_config() -> dict[str, Any]:
    """Per-test tooltape settings and cassette options (pytest-recording's ``vcr_config``).

    Override it in a conftest: ``record_mode``, ``block_network``, and every
    :func:`tooltape.cassettes.use_cassette` option (``seed``, ``match_on``, vcrpy's
    ``filter_headers`` and ``before_record_request``...). The CLI and markers win;
    scrubbing rules of the marker add to these.
    """
    return {}


@pytest.fixture(scope="session")
def tooltape_record_mode(pytestconfig: pytest.Config) -> str:
    """The session's cassette record mode (``none`` unless the CLI or ini says otherwise)."""
    return str(session_value(pytestconfig, "record_mode"))


@pytest.fixture(scope="module")
def tooltape_cassette_dir(request: pytest.FixtureRequest) -> Path:
    """Where this module's cassettes live: ``<cassette dir>/<test module name>/``."""
    value = session_value(request.config, "cassette_dir")
    return cassette_root(request.config, Path(str(request.path)), value)


@pytest.fixture
def tooltape_seed(request: pytest.FixtureRequest, tooltape_config: dict[str, Any]) -> int:
    """The seed quirks render with when a test gives none."""
    problem = None
    try:
        check_config(tooltape_config, request.node.nodeid)
    except pytest.UsageError as error:
        problem = str(error)
    if problem is not None:  # outside the except block: no "during handling" noise
        pytest.fail(problem, pytrace=False)
    return int(resolve(request.config, "seed", fixture_config=tooltape_config))


def _passed(item: pytest.Item) -> bool:
    reports = item.stash.get(REPORT_KEY, {})
    return all(r.passed for r in reports.values()) and "call" in reports


@pytest.fixture
def tooltape_fakes(
    request: pytest.FixtureRequest, tooltape_config: dict[str, Any], tooltape_seed: int
) -> Iterator[FakeSession]:
    """The test's fake providers, served on httpx2 and httpx; unplayed turns fail the test."""
    from tooltape.cassettes import block_network
    from tooltape.plugin._fakes import FakeSession

    session = FakeSession(seed=tooltape_seed)
    request.node.stash[FAKES_KEY] = session
    with ExitStack() as stack:
        if resolve(request.config, "block_network", fixture_config=tooltape_config):
            subprocesses = resolve(
                request.config, "block_subprocess", fixture_config=tooltape_config
            )
            stack.enter_context(block_network(subprocesses=subprocesses))
        try:
            yield session
        finally:
            session.close(check=_passed(request.node))


@pytest.fixture
def fake_provider(tooltape_fakes: FakeSession) -> Callable[..., ScriptedProvider]:
    """A factory: ``fake_provider("gemini", base_url=None)`` serves a fake of any dialect."""
    return tooltape_fakes.provider


@pytest.fixture
def fake_openai(tooltape_fakes: FakeSession) -> ScriptedProvider:
    """A fake OpenAI Chat Completions API at https://api.openai.com/v1, for this test."""
    return tooltape_fakes.provider("openai_chat")


@pytest.fixture
def fake_responses(tooltape_fakes: FakeSession) -> ScriptedProvider:
    """A fake OpenAI Responses API at https://api.openai.com/v1, for this test."""
    return tooltape_fakes.provider("openai_responses")


@pytest.fixture
def fake_anthropic(tooltape_fakes: FakeSession) -> ScriptedProvider:
    """A fake Anthropic Messages API at https://api.anthropic.com, for this test."""
    return tooltape_fakes.provider("anthropic_messages")


@pytest.fixture
def tooltape_case(request: pytest.FixtureRequest, tooltape_fakes: FakeSession) -> ScenarioCase:
    """The scenario x dialect case of a ``tooltape_scenarios`` test, already being served."""
    case: ScenarioCase | None = getattr(request, "param", None)
    if case is None:
        raise pytest.UsageError(
            "tooltape: the tooltape_case fixture needs @pytest.mark.tooltape_scenarios(...) "
            f"on {request.node.nodeid}"
        )
    case.provider = tooltape_fakes.provider(case.dialect_name, optional=True).stream(case.wire)
    facts = {
        "scenario": case.scenario.name,
        "dialect": case.dialect_name,
        "hazards": sorted(case.reference.hazard_kinds()),
    }
    request.node.user_properties.append((CASE_PROPERTY, json.dumps(facts)))
    return case


@pytest.fixture
def tooltape_snapshot(snapshot: Any) -> Any:
    """The ``snapshot`` fixture with tooltape's extension: calls, hazards, lanes; ids normalised."""
    from tooltape.plugin._snapshot import TooltapeSnapshotExtension

    return snapshot.use_extension(TooltapeSnapshotExtension)


def cassette_file_name(test_name: str) -> str:
    """A file name for a test's cassette: file-safe, hashed when made safe or long."""
    from tooltape.cassettes.cassette_paths import safe_file_name

    return safe_file_name(test_name)


def _cassette_path(request: pytest.FixtureRequest, folder: Path, name: str | None) -> Path:
    """The marker's name (kept inside ``folder``) or one made from the test's name."""
    from tooltape.cassettes.cassette_paths import confined_path

    if name is not None:
        return confined_path(folder, f"{name}.yaml", "the cassette name")
    cls = getattr(request.node, "cls", None)
    test_name = f"{cls.__name__}.{request.node.name}" if cls else request.node.name
    return folder / cassette_file_name(test_name)


def _cassette_options(config: dict[str, Any], marker: dict[str, Any]) -> dict[str, Any]:
    """use_cassette's options: the marker's over ``tooltape_config``'s; scrubbing rules add up."""
    from tooltape.cassettes.scrub_rules import merge_options

    base, mine = ({k: d[k] for k in d if k in USE_CASSETTE_KWARGS} for d in (config, marker))
    return {**base, **mine, **merge_options(base, mine)}


@pytest.fixture
def tooltape_cassette(
    request: pytest.FixtureRequest,
    tooltape_config: dict[str, Any],
    tooltape_cassette_dir: Path,
) -> Iterator[CassetteSession]:
    """The cassette of ``@pytest.mark.tooltape_cassette``, replayed (or recorded) for the test."""
    from tooltape.cassettes import CassetteError, CassetteSession, block_network
    from tooltape.cassettes.transport_seam import patched_transports
    from tooltape.harness import TooltapeUsageError

    mark = request.node.get_closest_marker("tooltape_cassette")
    if mark is None:
        pytest.fail(
            f"tooltape: the tooltape_cassette fixture needs @pytest.mark.tooltape_cassette on "
            f"{request.node.nodeid}",
            pytrace=False,
        )
    problem = None
    try:
        check_config(tooltape_config, request.node.nodeid)
        kwargs = cassette_marker_kwargs(mark, request.node.nodeid)
        mode = resolve(
            request.config, "record_mode", marker_kwargs=kwargs, fixture_config=tooltape_config
        )
        block = resolve(
            request.config, "block_network", marker_kwargs=kwargs, fixture_config=tooltape_config
        )
        subprocesses = resolve(
            request.config, "block_subprocess", marker_kwargs=kwargs, fixture_config=tooltape_config
        )
    except pytest.UsageError as error:
        problem = str(error)
    if problem is not None:  # outside the except block: no "during handling" noise
        pytest.fail(problem, pytrace=False)
    name = kwargs.get("name")
    options = _cassette_options(tooltape_config, kwargs)
    try:
        path = _cassette_path(request, tooltape_cassette_dir, name)
        session = CassetteSession(path, record_mode=mode, **options)
    except TooltapeUsageError as error:
        problem = f"tooltape: @pytest.mark.tooltape_cassette on {request.node.nodeid}: {error}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    request.node.stash[SESSION_KEY] = session
    with ExitStack() as stack:
        if block or session.replays:
            stack.enter_context(block_network(subprocesses=subprocesses))
        stack.enter_context(patched_transports(session))
        try:
            yield session
        finally:
            request.node.user_properties.append((CASSETTE_PROPERTY, str(path)))
    # A test that failed (an unmatched request included) is not failed again for unplayed ones.
    try:
        session.close(failed=not _passed(request.node))
    except CassetteError as error:  # a write the file system refused: one paragraph, no traceback
        problem = f"tooltape: @pytest.mark.tooltape_cassette on {request.node.nodeid}: {error}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    if session.written:
        request.node.user_properties.append((RECORDED_PROPERTY, str(path)))


@pytest.fixture(autouse=True)
def tooltape_cassette_autouse(request: pytest.FixtureRequest) -> None:
    """Install the cassette for tests marked ``tooltape_cassette`` that do not ask for it."""
    if request.node.get_closest_marker("tooltape_cassette") is not None:
        request.getfixturevalue("tooltape_cassette")
