"""The fake-provider fixtures, run in a subprocess through pytester."""

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

STREAM_TEST = """
import openai
from langchain_openai import ChatOpenAI
from tooltape.harness import Plan, assert_merge

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])

def test_sdk(fake_openai):
    fake_openai.stream(PLAN, quirks=["interleave_calls"])
    client = openai.OpenAI(api_key="sk-test")
    chunks = list(client.chat.completions.create(model="gpt-4o", messages=[], stream=True))
    assert any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert len(fake_openai.requests) == 1

def test_langchain(fake_openai):
    fake_openai.stream("repeated_name")
    model = fake_openai.chat_model()
    message = None
    for chunk in model.stream("hi"):
        message = chunk if message is None else message + chunk
    assert message.tool_calls[0]["name"] == "get_weather" * 3  # header + 2 argument pieces

def test_two_providers_in_one_test(fake_openai, fake_anthropic):
    fake_openai.stream(PLAN)
    fake_anthropic.stream(Plan(calls=[{"name": "f", "args": {}, "id": "toolu_1"}]))
    first = fake_openai.chat_model().invoke("hi")
    second = fake_anthropic.chat_model().invoke("hi")
    assert_merge(first, PLAN)
    assert second.tool_calls[0]["id"] == "toolu_1"

def test_generic_factory(fake_provider):
    responses = fake_provider("openai_responses").stream(PLAN).then(Plan(text_before="done"))
    model = responses.chat_model()
    assert model.invoke("hi").tool_calls[0]["args"] == {"city": "Paris"}
    assert model.invoke("again").text == "done"
"""


def test_fake_fixtures_serve_real_clients(pytester: pytest.Pytester):
    pytester.makepyfile(STREAM_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_unplayed_turns_fail_the_test_at_teardown(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        from tooltape.harness import Plan

        def test_forgets_the_second_turn(fake_openai):
            fake_openai.stream(Plan(text_before="one")).then(Plan(text_before="two"))
            fake_openai.chat_model().invoke("hi")
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*turn 2: stream was not played*"])


def test_a_request_without_a_turn_is_reported(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import openai, pytest

        def test_no_turn(fake_openai):
            client = openai.OpenAI(api_key="sk-test", max_retries=0)
            with pytest.raises(openai.BadRequestError, match="no turn left"):
                client.chat.completions.create(model="m", messages=[], stream=True)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*request #1 (POST /v1/chat/completions) found no turn left*"])


def test_network_beyond_loopback_is_blocked(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import socket, pytest
        from tooltape.cassettes import NetworkBlocked

        def test_blocked(fake_openai):
            with pytest.raises(NetworkBlocked, match="tooltape blocked a connection"):
                socket.create_connection(("192.0.2.1", 443), timeout=1)

        def test_loopback_allowed(fake_openai):
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen()
            socket.create_connection(server.getsockname(), timeout=1).close()
            server.close()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_blocking_can_be_turned_off(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import socket

        def test_unblocked(fake_openai):
            assert type(socket.socket.connect).__name__ == "method_descriptor"  # not patched
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-block-network=false"
    )
    result.assert_outcomes(passed=1)
