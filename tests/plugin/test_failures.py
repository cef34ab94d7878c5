"""When tooltape is why a test failed, the report leads with tooltape's message at the user's line.

Run in a subprocess through pytester, with the real ChatOpenAI, openai SDK and cassettes:
an unmatched request under the adapter's own 404 error, inside an exception group, a
usage error raised deep in tooltape, and marker arguments refused at collection.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

UNMATCHED = """
import asyncio
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr
from tooltape.cassettes import library_path, use_cassette

CHAT = library_path("parallel_sequential", "openai_chat")

def model():
    return ChatOpenAI(
        model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0, streaming=True,
        base_url="https://api.openai.com/v2",  # the recording is /v1: nothing matches
    )

def test_under_the_adapters_404():
    with use_cassette(CHAT):
        model().invoke("hi")

def test_inside_a_task_group():
    async def ask():
        with use_cassette(CHAT):
            await model().ainvoke("hi")

    async def main():
        async with asyncio.TaskGroup() as group:
            group.create_task(ask())

    asyncio.run(main())

@pytest.fixture
def answered():
    with use_cassette(CHAT):
        return model().invoke("hi")

def test_in_a_fixture(answered):
    pass
"""


def test_an_unmatched_request_is_the_headline_whatever_wraps_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("CI", raising=False)  # CI=true prints whole failure lines in the summary
    monkeypatch.setenv("COLUMNS", "200")
    pytester.makepyfile(test_unmatched=UNMATCHED)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE")
    result.assert_outcomes(failed=2, errors=1)
    out = result.stdout.str()
    for test in ("test_under_the_adapters_404", "test_inside_a_task_group"):
        assert f"FAILED test_unmatched.py::{test} - tooltape.cassettes._errors.Unmatched" in out
    assert "ERROR test_unmatched.py::test_in_a_fixture - tooltape.cassettes._errors.Unm" in out
    assert out.count("matches POST https://api.openai.com/v2/chat/completions") == 3
    assert out.count("Nearest: interaction 0, POST https://api.openai.com/v1/chat/") == 3
    # what the adapter raised is a note under tooltape's message, not the first traceback
    assert out.count("the code under test first raised OpenAIModelNotFoundError: Error co") == 2
    assert "the code under test raised ExceptionGroup: unhandled errors in a TaskGroup" in out
    assert "During handling of the above exception" not in out
    assert "The above exception was the direct cause" not in out
    assert "openai.NotFoundError" not in out and "\nE   openai." not in out


USAGE = """
from tooltape.harness import Plan

def test_a_quirk_the_dialect_cannot_say(fake_anthropic):
    fake_anthropic.stream(Plan(calls=[{"name": "f", "args": {}}]), quirks=["shared_index"])
"""


def test_a_usage_error_ends_on_the_users_line_without_tooltapes_frames(
    pytester: pytest.Pytester,
):
    pytester.makepyfile(test_usage=USAGE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "TooltapeUsageError: quirk shared_index cannot be rendered by dialect" in out
    assert '>       fake_anthropic.stream(Plan(calls=[{"name": "f", "args": {}}]), quirks=' in out
    for internal in ("fake_providers/_provider.py", "harness/", "/tooltape/"):
        assert internal not in out, internal
    full = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fulltrace")
    assert "fake_providers/_provider.py" in full.stdout.str()  # --fulltrace keeps them


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'tooltape_cassette("x", record_mod="all")',
            "unknown argument 'record_mod' (did you mean 'record_mode'?)",
        ),
        (
            'tooltape_cassette("x", record_mode="onse")',
            "unknown record mode 'onse' (did you mean 'once'",
        ),
        ('tooltape_cassette("x", "y")', "got 2 positional arguments"),
        ("tooltape_cassette(name=3)", "name must be a string, got int"),
        ('tooltape_cassette(block_network="sometimes")', "'sometimes' is not a boolean"),
    ],
)
def test_a_bad_cassette_marker_argument_fails_collection(pytester, marker, message):
    pytester.makepyfile(
        test_marked=f"""
        import pytest

        RAN = []

        @pytest.mark.{marker}
        def test_x():
            RAN.append(1)
            raise AssertionError("the test ran")

        def test_other():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_marked.py*", "*1 error during coll*"])
    assert message in out and "test_marked.py::test_x" in out
    assert "the test ran" not in out and "Traceback" not in out
