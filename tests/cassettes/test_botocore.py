"""boto3 (botocore, urllib3) is recorded and replayed like httpx: Bedrock cassettes work.

The "real provider" is tooltape's Bedrock fake, which botocore reaches on a real
127.0.0.1 server; the clients are boto3 and langchain-aws, unpatched but for
botocore's send, where vcrpy patches it too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml
from botocore.config import Config
from langchain_aws import ChatBedrockConverse

from tooltape.cassettes import UnmatchedRequest, load_cassette, record, use_cassette
from tooltape.fake_providers import FakeProvider
from tooltape.fake_providers.botocore_patch import patch_botocore
from tooltape.harness import Plan, PlannedCall

PLAN = Plan(calls=[PlannedCall("get_weather", {"city": "Paris"}, "tooluse_1")])
MODEL = "anthropic.claude-sonnet-4-5-v1"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
MESSAGES = [{"role": "user", "content": [{"text": "weather?"}]}]


def _client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key=SECRET,
        config=Config(retries={"total_max_attempts": 1}),
    )


def _tool_uses() -> list[tuple[str, str]]:
    answer = _client().converse_stream(modelId=MODEL, messages=MESSAGES)
    events = list(answer["stream"])
    starts = [
        e["contentBlockStart"]["start"]["toolUse"] for e in events if "contentBlockStart" in e
    ]
    deltas = [
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in events
        if "contentBlockDelta" in e
    ]
    return [(s["name"], "".join(deltas)) for s in starts]


@pytest.fixture
def provider() -> FakeProvider:
    return FakeProvider("bedrock_converse").stream(PLAN)


def test_a_converse_stream_is_recorded_then_replays_with_no_server(
    tmp_path: Path, provider: FakeProvider
) -> None:
    path = tmp_path / "bedrock.yaml"
    with patch_botocore(provider), record(path):
        live = _tool_uses()

    with use_cassette(path, record_mode="none") as session:
        replayed = _tool_uses()

    assert live == replayed == [("get_weather", '{"city": "Paris"}')]
    assert session.player.play_counts == [1] and len(provider.requests) == 1
    (interaction,) = load_cassette(path).interactions
    assert interaction.request.uri.startswith("https://bedrock-runtime.us-east-1.amazonaws.com/")
    assert interaction.response.body.startswith(b"\x00")  # the AWS event stream, kept binary
    text = path.read_text()
    assert SECRET not in text and "AKIAIOSFODNN7EXAMPLE" not in text
    assert "authorization" not in yaml.safe_load(text)["interactions"][0]["request"]["headers"]


def test_once_records_the_first_run_and_never_calls_out_again(
    tmp_path: Path, provider: FakeProvider
) -> None:
    path = tmp_path / "once.yaml"
    with patch_botocore(provider):
        for _ in range(3):
            with use_cassette(path, record_mode="once"):
                assert _tool_uses() == [("get_weather", '{"city": "Paris"}')]

    assert len(provider.requests) == 1


def test_chat_bedrock_converse_replays_its_tool_call(
    tmp_path: Path, provider: FakeProvider
) -> None:
    path = tmp_path / "converse.yaml"
    model = ChatBedrockConverse(model=MODEL, client=_client(), bedrock_client=_client())
    with patch_botocore(provider), record(path):
        live = model.invoke("weather?")

    with use_cassette(path, record_mode="none"):
        replayed = model.invoke("weather?")

    assert live.tool_calls == replayed.tool_calls
    assert [(c["name"], c["args"]) for c in replayed.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def test_an_unrecorded_boto3_request_fails_with_the_nearest_recording(
    tmp_path: Path, provider: FakeProvider
) -> None:
    path = tmp_path / "bedrock.yaml"
    with patch_botocore(provider), record(path):
        _tool_uses()

    time = [{"role": "user", "content": [{"text": "time?"}]}]
    with pytest.raises(UnmatchedRequest, match="differs on body") as caught, use_cassette(path):
        _client().converse_stream(modelId=MODEL, messages=time)

    assert "converse-stream" in str(caught.value) and len(provider.requests) == 1
