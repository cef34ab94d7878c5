"""The tooltape_cassette marker and fixture: record through the real server, replay offline."""

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

RECORD_AND_REPLAY = """
import os

import openai
import pytest
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])


@pytest.fixture(scope="module")
def live_provider():
    # Stands in for the real provider: a fake one on 127.0.0.1 (tests reach nothing else).
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    for _ in range(5):
        provider.stream(PLAN)
    # A fixed port, so the replayed run asks the same URL the recorded run did.
    with serve_in_thread(provider, port=int(os.environ["LIVE_PORT"])) as url:
        yield url


@pytest.mark.tooltape_cassette("weather")
def test_weather(live_provider):
    client = openai.OpenAI(
        api_key="sk-secret-key-123", base_url=live_provider + "/v1", max_retries=0
    )
    chunks = list(client.chat.completions.create(model="m", messages=[], stream=True))
    deltas = [chunk.choices[0].delta for chunk in chunks if chunk.choices]
    calls = [call for delta in deltas for call in delta.tool_calls or []]
    assert calls[0].function.name == "get_weather"
"""


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_record_once_then_replay_offline(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("LIVE_PORT", str(free_port()))
    pytester.makepyfile(test_weather=RECORD_AND_REPLAY)
    recorded = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-record-mode=once"
    )
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(
        ["*tooltape cassettes recorded*", "*cassettes/test_weather/weather.yaml"]
    )
    cassette = pytester.path / "cassettes" / "test_weather" / "weather.yaml"
    text = cassette.read_text()
    assert "sk-secret-key-123" not in text
    assert "get_weather" in text

    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider")  # default mode: none
    replayed.assert_outcomes(passed=1)
    assert "tooltape cassettes recorded" not in replayed.stdout.str()


def test_replay_without_a_cassette_fails_clearly(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("LIVE_PORT", str(free_port()))
    pytester.makepyfile(test_weather=RECORD_AND_REPLAY)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*weather.yaml*"])


def test_marker_arguments_are_checked(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_cassette("a", mode="once")
        def test_x():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "unknown argument 'mode' (did you mean 'record_mode'?)" in out
    assert "known arguments: allow_repeats, allow_unplayed, " in out
    assert "match_on" in out and "allow_unplayed" in out and "dialect" in out
    assert "Traceback" not in result.stdout.str()


def test_file_names_are_sanitised_and_long_names_hashed():
    from tooltape.plugin._fixtures import cassette_file_name

    # Sanitising changed the name, so a short hash keeps distinct ids in distinct files.
    assert cassette_file_name("test_x[a/b c]").startswith("test_x_a_b_c-")
    assert cassette_file_name("test_x[a/b c]") != cassette_file_name("test_x[a_b c]")
    assert cassette_file_name("test_x[ab]") == "test_x_ab.yaml"
    long = cassette_file_name("test_" + "x" * 300)
    assert len(long) <= 105 and long.endswith(".yaml")
    assert long != cassette_file_name("test_" + "x" * 299)


def test_summary_lists_cassettes_no_test_used(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("LIVE_PORT", str(free_port()))
    pytester.makepyfile(test_weather=RECORD_AND_REPLAY)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    stale = pytester.path / "cassettes" / "test_weather" / "old_test.yaml"
    stale.write_text((stale.parent / "weather.yaml").read_text())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*tooltape cassettes not used by any test*", "*cassettes/test_weather/old_test.yaml"]
    )
    assert "weather.yaml" not in result.stdout.str().split("not used by any test")[1].replace(
        "old_test.yaml", ""
    )


def test_the_unused_summary_speaks_only_of_tooltape_cassettes_and_tests_that_ran(
    pytester: pytest.Pytester, monkeypatch
):
    monkeypatch.setenv("LIVE_PORT", str(free_port()))
    pytester.makepyfile(test_weather=RECORD_AND_REPLAY)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    folder = pytester.path / "cassettes" / "test_weather"
    # pytest-recording keeps its cassettes in the same folders: not tooltape's to report.
    (folder / "test_other_tool.yaml").write_text("interactions: []\nversion: 1\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "not used by any test" not in result.stdout.str()

    (folder / "weather_copy.yaml").write_text((folder / "weather.yaml").read_text())
    narrowed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "no_such_test")
    narrowed.assert_outcomes(deselected=1)
    assert "not used by any test" not in narrowed.stdout.str()


SCRUB_CONFTEST = """
import pytest


@pytest.fixture
def tooltape_config():
    return {"filter_headers": [("x-tenant", "TENANT")], "record_mode": "once"}
"""

SCRUB_TESTS = """
import httpx2
import pytest
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])


@pytest.mark.tooltape_cassette("scrubbed", request_headers="all", filter_query_parameters=["team"])
def test_rules_add_up():
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url:
        httpx2.post(url + "/v1/chat/completions?team=team-name-123",
                    json={"model": "m", "messages": [], "stream": True},
                    headers={"x-tenant": "tenant-name-456"})


class TestTypo:
    @pytest.fixture
    def tooltape_config(self):
        return {"filter_header": ["x"]}

    @pytest.mark.tooltape_cassette("typo")
    def test_typo(self):
        pass
"""


def test_marker_and_config_scrubbing_rules_add_up_and_config_names_are_checked(
    pytester: pytest.Pytester,
):
    pytester.makeconftest(SCRUB_CONFTEST)
    pytester.makepyfile(test_scrub=SCRUB_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    assert "unknown setting 'filter_header' (did you mean 'filter_headers'?)" in str(result.stdout)
    text = (pytester.path / "cassettes" / "test_scrub" / "scrubbed.yaml").read_text()
    assert "tenant-name-456" not in text and "TENANT" in text
    assert "team-name-123" not in text and "team=" not in text
