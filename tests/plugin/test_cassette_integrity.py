"""The cassette fixture keeps its promises: own failures, confined names, no lost recording."""

from __future__ import annotations

import pytest

from tooltape.cassettes import load_cassette

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

LIVE = """
import httpx2, openai, pytest
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan

@pytest.fixture(scope="module")
def live():
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    for n in range(64):
        provider.stream(Plan(calls=[{"name": "f", "args": {"n": n}, "id": f"c{n}"}]))
    with serve_in_thread(provider, port=PORT) as url:
        yield url

def ask(url, model="m"):
    with openai.OpenAI(api_key="sk-x", base_url=url + "/v1", max_retries=0) as client:
        return list(client.chat.completions.create(model=model, messages=[], stream=True))
"""


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _module(body: str, port: int | None = None) -> str:
    return LIVE.replace("PORT", str(_free_port() if port is None else port)) + body


def test_a_changed_request_is_the_tests_own_failure(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    # Under CI=true pytest prints full failure lines in the short summary too, which would
    # double the count of the message below.
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(
        test_turns=_module(
            """
@pytest.mark.tooltape_cassette("turns")
def test_sdk_raises(live, request):
    ask(live, model=request.config.getoption("--model", default="m"))

@pytest.mark.tooltape_cassette("turns2")
def test_code_swallows(live, request):
    try:
        ask(live, model=request.config.getoption("--model", default="m"))
    except openai.NotFoundError:
        pass
""",
        ),
        conftest="def pytest_addoption(parser):\n    parser.addoption('--model', default='m')\n",
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=changed")
    result.assert_outcomes(failed=2)  # failed in the call, not passed then errored at teardown
    out = result.stdout.str()
    assert "error at teardown" not in out.lower() and "ERROR" not in out
    assert out.count("UnmatchedRequest: tooltape: no recorded interaction") == 2
    assert "differs on body" in out and '+  "model": "changed"' in out
    assert "the code under test then raised NotFoundError" in out


def test_the_marker_takes_use_cassettes_options(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_opts=_module(
            """
@pytest.mark.tooltape_cassette("o", match_on=["method", "path"], allow_unplayed=True)
def test_options(live, tooltape_cassette):
    assert tooltape_cassette.player.match_on == ("method", "path")
    assert tooltape_cassette.allow_unplayed
"""
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/tooltape-abs", "a/../../b"])
def test_a_cassette_name_cannot_leave_the_folder(pytester: pytest.Pytester, name):
    pytester.makepyfile(
        test_escape=_module(
            f"""
@pytest.mark.tooltape_cassette({name!r})
def test_escape(live):
    ask(live)
"""
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*must stay inside*"])
    assert "Traceback" not in result.stdout.str()
    written = [p for p in pytester.path.parent.rglob("*.yaml") if "escaped" in p.name]
    assert written == []


def test_distinct_parametrize_ids_record_distinct_files(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_ids=_module(
            """
@pytest.mark.parametrize("x", ["a b", "a_b", "a/b", "a?b"], ids=lambda x: x)
@pytest.mark.tooltape_cassette
def test_id(live, x):
    ask(live, model=x)
"""
        )
    )
    recorded = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-record-mode=once"
    )
    recorded.assert_outcomes(passed=4)
    files = sorted((pytester.path / "cassettes" / "test_ids").iterdir())
    assert len(files) == 4
    models = {load_cassette(f).interactions[0].request.json()["model"] for f in files}
    assert models == {"a b", "a_b", "a/b", "a?b"}
    assert "test_id_a_b.yaml" in {f.name for f in files}  # an already safe id stays readable
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=4)


def test_once_under_xdist_records_every_passing_test_or_fails_loudly(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_many=_module(
            """
@pytest.mark.parametrize("n", range(8))
@pytest.mark.tooltape_cassette("shared", match_on=["method", "path", "body"])
def test_one(live, n):
    ask(live, model=f"m{n}")
""",
            port=0,  # one server per worker: the port differs, so it is not matched on
        )
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "-rA", "--tooltape-record-mode=once"
    )
    # A test that began after the cassette existed replays (vcrpy's once) and fails loudly;
    # every test that passed had its recording written: nothing is dropped in silence.
    out = result.stdout.str()
    passed = {line.split("[")[1].split("]")[0] for line in out.splitlines() if "PASSED" in line}
    failed = {line.split("[")[1].split("]")[0] for line in out.splitlines() if "FAILED" in line}
    assert passed and passed | failed == {str(n) for n in range(8)}
    assert out.count("UnmatchedRequest: tooltape: no recorded interaction") >= len(failed)
    folder = pytester.path / "cassettes" / "test_many"
    cassette = load_cassette(folder / "shared.yaml")
    models = sorted(i.request.json()["model"] for i in cassette.interactions)
    assert models == sorted(f"m{n}" for n in passed)
    assert [p.name for p in folder.iterdir()] == ["shared.yaml"]
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "-rA")
    assert {
        line.split("[")[1].split("]")[0] for line in replayed.stdout.lines if "PASSED" in line
    } == passed


def test_a_write_the_file_system_refuses_is_one_teardown_error_naming_the_file(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(
        test_unwritable=_module(
            """
@pytest.mark.tooltape_cassette("turn", record_mode="once")
def test_records(live):
    ask(live)
"""
        )
    )
    (pytester.path / "cassettes").mkdir()
    (pytester.path / "cassettes" / "test_unwritable").write_text("a file where a folder goes")

    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_records*",
            "tooltape: @pytest.mark.tooltape_cassette on test_unwritable.py::test_records: "
            "*test_unwritable/turn.yaml: cannot write the cassette: File exists*"
            "its 1 interaction(s) were not saved*",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*_store.py*")
