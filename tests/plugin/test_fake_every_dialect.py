"""Every dialect, through the fake_provider fixture: its LangChain chat model and its SDK client.

Each dialect's ``chat_model()`` (its real LangChain adapter) streams a tool
call from the fake and merges to what langchain-core makes of the dialect's
parse; boto3 clients built with no ``endpoint_url`` reach the fake over
127.0.0.1 (the fixture reroutes botocore), never AWS.
"""

import pytest

from tooltape.fake_providers import dialect_names

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

EVERY_DIALECT = """
import boto3
import pytest
from botocore.config import Config
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.tools import tool

from tooltape.fake_providers import dialect_names
from tooltape.harness import Plan, reference_merge

PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])
NO_MERGE = {"cohere_v2": "langchain-cohere gives every fragment a fresh uuid id (matrix C1)"}


@tool
def get_weather(city: str) -> str:
    \"\"\"The weather in a city.\"\"\"
    return "sunny"


def calls(message):
    return [(c["name"], c["args"]) for c in message.tool_calls], [
        (c.get("name"), c.get("args")) for c in message.invalid_tool_calls
    ]


@pytest.mark.parametrize("dialect", dialect_names())
def test_chat_model_streams_a_tool_call(fake_provider, dialect):
    provider = fake_provider(dialect).stream(PLAN)
    chunks = list(provider.chat_model().bind_tools([get_weather]).stream("weather in Paris?"))
    merged = add_ai_message_chunks(chunks[0], *chunks[1:])
    reference = reference_merge(provider.dialect.parse(provider.turns[0].wire.body))
    assert calls(merged) == (
        [(c["name"], c["args"]) for c in reference.tool_calls],
        [(c.get("name"), c.get("args")) for c in reference.invalid_tool_calls],
    )
    if dialect not in NO_MERGE:
        assert calls(merged) == ([("get_weather", {"city": "Paris"})], [])
    assert provider.played == 1


def aws(service="bedrock-runtime"):
    return boto3.client(
        service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x",
        config=Config(retries={"total_max_attempts": 1}),
    )


def test_boto3_converse_stream_reaches_the_fake_on_loopback(fake_provider):
    provider = fake_provider("bedrock_converse").stream(PLAN)
    answer = aws().converse_stream(
        modelId="anthropic.claude-sonnet-4-5-v1",
        messages=[{"role": "user", "content": [{"text": "weather?"}]}],
    )
    events = list(answer["stream"])
    starts = [e["contentBlockStart"]["start"] for e in events if "contentBlockStart" in e]
    starts = [s["toolUse"] for s in starts]
    assert [s["name"] for s in starts] == ["get_weather"]
    (request,) = provider.requests
    assert request.headers["host"].startswith("127.0.0.1:")
    assert request.path.endswith("/converse-stream")


@pytest.mark.parametrize("region", ["us-west-2", "eu-central-1", None])
def test_boto3_in_any_region_or_none_reaches_the_fake(fake_provider, monkeypatch, region):
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")  # no region from ~/.aws either
    provider = fake_provider("bedrock_converse").stream(PLAN)
    client = boto3.client(
        "bedrock-runtime", region_name=region, aws_access_key_id="x", aws_secret_access_key="x"
    )
    answer = client.converse_stream(
        modelId="anthropic.claude-sonnet-4-5-v1",
        messages=[{"role": "user", "content": [{"text": "weather?"}]}],
    )
    assert any("contentBlockStart" in event for event in answer["stream"])
    assert provider.played == 1


def test_boto3_invoke_stream_and_converse_share_one_test(fake_provider):
    converse = fake_provider("bedrock_converse").stream(PLAN)
    invoke = fake_provider("bedrock_invoke").stream(PLAN)
    body = '{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": []}'
    answer = aws().invoke_model_with_response_stream(
        modelId="anthropic.claude-sonnet-4-5-v1", body=body
    )
    assert any(b"tool_use" in e["chunk"]["bytes"] for e in answer["body"])
    assert list(converse.chat_model().stream("weather?"))
    assert (converse.played, invoke.played) == (1, 1)


def test_a_boto3_call_the_script_does_not_serve_errors_at_teardown(fake_provider):
    fake_provider("bedrock_converse")
    with pytest.raises(Exception, match="no turn left"):
        aws().converse_stream(modelId="m", messages=[{"role": "user", "content": [{"text": "x"}]}])
"""


def test_every_dialect_is_served_to_its_chat_model_and_sdk(pytester: pytest.Pytester):
    pytester.makepyfile(EVERY_DIALECT)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=len(dialect_names()) + 6, errors=1)
    result.stdout.fnmatch_lines(
        ["*fake bedrock_converse provider at https://bedrock-runtime.us-east-1.amazonaws.com: "
         "request #1 (POST /model/m/converse-stream) found no turn left*"]
    )  # fmt: skip
