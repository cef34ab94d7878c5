"""tooltape's fakes beside vcrpy / pytest-recording cassettes and respx routes, in one test."""

import textwrap

import pytest

pytest_plugins = ["pytester"]

# A vcrpy cassette for a host tooltape does not serve, as pytest-recording would keep it.
_INTERACTION = """
- request:
    body: null
    headers: {}
    method: GET
    uri: http://weather.example/today
  response:
    body: {string: sunny}
    headers: {content-type: [text/plain]}
    status: {code: 200, message: OK}
"""
OTHER_CASSETTE = "interactions:" + _INTERACTION * 2 + "version: 1\n"  # one per client

CALLS = """
import httpx
import httpx2
import openai
import pytest
from tooltape.harness import Plan

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])


def sdk_call():
    client = openai.OpenAI(api_key="sk-test")
    chunks = list(client.chat.completions.create(model="gpt-4o", messages=[], stream=True))
    return next(c for c in chunks if c.choices and c.choices[0].delta.tool_calls)


def httpx_openai_call():
    client = openai.OpenAI(api_key="sk-test", http_client=httpx.Client())
    return list(client.chat.completions.create(model="gpt-4o", messages=[], stream=True))
"""


def _module(body: str) -> str:
    return CALLS + textwrap.dedent(body)


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_pytest_recording_cassettes_and_fakes_serve_one_test(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_mixed=_module(
            """
            @pytest.mark.vcr
            def test_both(fake_openai):
                fake_openai.stream(PLAN)
                assert sdk_call().choices[0].delta.tool_calls[0].function.name == "get_weather"
                assert httpx.get("http://weather.example/today").text == "sunny"
                assert httpx2.get("http://weather.example/today").text == "sunny"
            """
        )
    )
    folder = pytester.path / "cassettes" / "test_mixed"
    folder.mkdir(parents=True)
    (folder / "test_both.yaml").write_text(OTHER_CASSETTE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--record-mode=none")
    result.assert_outcomes(passed=1)
    assert "not used by any test" not in result.stdout.str()


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_respx_routes_and_fakes_serve_one_test(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_mixed=_module(
            """
            def test_both(fake_openai, respx_mock):
                respx_mock.get("http://weather.example/today").respond(text="sunny")
                fake_openai.stream(PLAN)
                assert httpx_openai_call()
                assert httpx.get("http://weather.example/today").text == "sunny"
                assert respx_mock.calls.call_count == 1
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_with_no_other_tool_another_host_gets_the_404_naming_the_routes(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(
        test_alone=_module(
            """
            def test_other_host(fake_openai):
                for response in (
                    httpx.get("http://weather.example/today"),
                    httpx2.get("http://weather.example/today"),
                ):
                    assert response.status_code == 404
                    assert "no fake provider serves GET http://weather.example" in response.text
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    # The requests are answered, and the test then fails for the unrouted requests.
    result.assert_outcomes(errors=1, passed=1)
    result.stdout.fnmatch_lines(["*no fake provider serves GET http://weather.example/today*"])


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_vcrpy_cassette_opened_after_the_fakes_leaves_the_sdk_hosts_to_tooltape(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(
        test_later=_module(
            """
            import vcr

            def test_cassette_inside(fake_openai):
                fake_openai.stream(PLAN).stream(PLAN)
                with vcr.use_cassette("other.yaml", record_mode="none") as cassette:
                    assert sdk_call().choices[0].delta.tool_calls[0].function.name == "get_weather"
                    assert httpx2.get("http://weather.example/today").text == "sunny"
                with vcr.use_cassette("other.yaml", record_mode="once"):  # records nothing
                    assert sdk_call().choices[0].delta.tool_calls
                assert cassette.play_count == 1
            """
        )
    )
    (pytester.path / "other.yaml").write_text(OTHER_CASSETTE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "other.yaml").read_text() == OTHER_CASSETTE


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_vcrpy_refusal_of_an_httpx_request_for_a_fake_says_how_to_leave_it_to_tooltape(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(
        test_httpx=_module(
            """
            import vcr

            def test_refused(fake_openai):
                fake_openai.stream(PLAN)
                with vcr.use_cassette("other.yaml", record_mode="none"):
                    httpx_openai_call()

            def test_ignored(fake_openai):
                fake_openai.stream(PLAN)
                with vcr.use_cassette(
                    "other.yaml", record_mode="none", ignore_hosts=["api.openai.com"]
                ):
                    assert httpx_openai_call()
                    assert httpx.get("http://weather.example/today").text == "sunny"
            """
        )
    )
    (pytester.path / "other.yaml").write_text(OTHER_CASSETTE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "E *TooltapeUsageError: tooltape: a vcrpy cassette took the POST request for"
            " https://api.openai.com/v1/chat/completions, which a fake provider of this test"
            " serves.*ignore_hosts=?'api.openai.com'?*",
            "E * the code under test raised CannotOverwriteExistingCassetteException: *",
        ]
    )


# tests/harness/test_hypofuzz.py shows the stand-in at work under HypoFuzz, where
# pytest-recording's own fixture raises; here it must give pytest-recording's folder.
FOLDER_CHECK = """
import os


def test_the_folder(vcr_cassette_dir, request):
    module = request.node.fspath  # what pytest-recording's own fixture reads
    assert vcr_cassette_dir == os.path.join(module.dirname, "cassettes", module.purebasename)
"""


def test_the_stand_in_for_pytest_recordings_folder_fixture_gives_its_folder(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(test_folder=FOLDER_CHECK)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_conftest_vcr_cassette_dir_still_wins_over_the_stand_in(pytester: pytest.Pytester):
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='module')\n"
        "def vcr_cassette_dir():\n    return 'mine'\n"
    )
    pytester.makepyfile("def test_it(vcr_cassette_dir):\n    assert vcr_cassette_dir == 'mine'\n")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
