"""The fixtures under pytest-asyncio and anyio, with async clients."""

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

ASYNC_TESTS = """
import openai
import pytest
from tooltape.harness import Plan, assert_merge

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])


async def merged(model):
    message = None
    async for chunk in model.astream("hi"):
        message = chunk if message is None else message + chunk
    return message


@pytest.mark.asyncio
async def test_asyncio_sdk(fake_openai):
    fake_openai.stream(PLAN)
    client = openai.AsyncOpenAI(api_key="sk-test")
    stream = await client.chat.completions.create(model="m", messages=[], stream=True)
    names = [c.function.name async for chunk in stream if chunk.choices
             for c in chunk.choices[0].delta.tool_calls or [] if c.function.name]
    assert names == ["get_weather"]


@pytest.mark.asyncio
async def test_asyncio_langchain(fake_anthropic):
    fake_anthropic.stream(Plan(calls=[{"name": "f", "args": {"x": 1}, "id": "toolu_1"}]))
    message = await merged(fake_anthropic.chat_model())
    assert message.tool_calls[0]["args"] == {"x": 1}


@pytest.mark.anyio
async def test_anyio_langchain(fake_responses):
    fake_responses.stream(PLAN)
    assert_merge(await merged(fake_responses.chat_model()), PLAN)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.asyncio
@pytest.mark.tooltape_scenarios(names=["parallel_interleaved"], dialects=["openai_chat"])
async def test_asyncio_case(tooltape_case):
    tooltape_case.assert_merge(await merged(tooltape_case.chat_model()))
"""


def test_async_clients_under_pytest_asyncio_and_anyio(pytester: pytest.Pytester):
    pytester.makepyfile(ASYNC_TESTS)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function"
    )
    result.assert_outcomes(passed=4)
