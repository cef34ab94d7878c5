"""Real recordings (the conformance corpus) as cassettes, replayed through the real adapters.

Each record converts to a cassette, is written and read back, then replayed by
``use_cassette`` into ChatOpenAI (Chat Completions and Responses) or
ChatAnthropic; what the adapter yields must equal what the same adapter yields
from the record's original bytes served by a bare httpx2 MockTransport.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from _corpus import CORPUS_DIR, corpus_files, corpus_params
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import (
    convert_corpus_files,
    convert_corpus_record,
    inspect_cassette,
    load_cassette,
    save_cassette,
    use_cassette,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings(
        "ignore:Pydantic serializer warnings:UserWarning",
        "ignore:Received unexpected tool content block:UserWarning",
    ),
]

SUFFIX = {"chat_completions": "/chat/completions", "responses": "/responses"}


def _model(record: dict[str, Any], client: httpx2.Client | None) -> Any:
    url = record["request_url"]
    if record["api"] == "anthropic_messages":
        parts = urlsplit(url)
        model = ChatAnthropic(
            model="claude-sonnet-4-6",
            api_key=SecretStr("sk-test"),
            max_retries=0,
            anthropic_api_url=f"{parts.scheme}://{parts.netloc}",
        )
        if client is not None:
            import anthropic

            vars(model)["_client"] = anthropic.Anthropic(**model._client_params, http_client=client)
        return model
    base = urlsplit(url)._replace(query="", fragment="").geturl()
    base = base.removesuffix(SUFFIX[record["api"]])
    return ChatOpenAI(
        model="gpt-4o-mini",
        api_key=SecretStr("sk-test"),
        base_url=base,
        max_retries=0,
        use_responses_api=record["api"] == "responses",
        http_client=client,
    )


def _stream(make: Callable[[], Any]) -> tuple[list[Any], str | None]:
    chunks: list[Any] = []
    try:
        chunks.extend(make().stream("hi"))
    except Exception as error:
        return [c.tool_call_chunks for c in chunks], type(error).__name__
    return [c.tool_call_chunks for c in chunks], None


def _original(record: dict[str, Any]) -> tuple[list[Any], str | None]:
    body = record["response_body"].encode("utf-8")
    content_type = record.get("response_content_type") or "text/event-stream"

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=[("content-type", content_type)], content=body)

    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return _stream(lambda: _model(record, client))


@pytest.mark.parametrize(
    "record", corpus_params("chat_completions", "responses", "anthropic_messages")
)
def test_a_converted_recording_replays_like_the_original_bytes(tmp_path, record):
    path = save_cassette(convert_corpus_record(record), tmp_path / "corpus.yaml")
    cassette = load_cassette(path)
    assert cassette.interactions[0].response.body == record["response_body"].encode()
    routed = urlsplit(record["request_url"]).path.endswith(SUFFIX.get(record["api"], "/messages"))
    match_on = ("method", "path") if routed else ("method",)  # e.g. Writer's /v1/chat
    with use_cassette(path, match_on=match_on) as session:
        replayed = _stream(lambda: _model(record, None))
    assert session.player.play_counts == [1]
    assert replayed == _original(record)
    inspection = inspect_cassette(path)
    names = [c["name"] for c in inspection.tool_calls + inspection.invalid_tool_calls]
    if replayed[1] is None:
        client_tools = [n for n in record["observed"]["tool_names"] if "(server:" not in n]
        assert all(any(n in name for name in names) for n in client_tools)


@pytest.mark.parametrize("record", corpus_params())
def test_every_record_converts_with_its_provenance_and_reference(record):
    cassette = convert_corpus_record(record)
    body = cassette.interactions[0].response.body
    if record.get("response_body_encoding") == "base64":
        assert body == base64.b64decode(record["response_body"])
    else:
        assert body == record["response_body"].encode()
    assert cassette.info.source["source_repo"] == record["source_repo"]
    assert cassette.info.reference is not None or record["response_status"] != 200
    assert cassette.interactions[0].response.boundaries is None  # corpus reads are unknown


def test_the_convert_command_writes_one_cassette_per_record(tmp_path):
    tooltape = Path(sys.executable).parent / "tooltape"
    done = subprocess.run(
        [str(tooltape), "corpus", "convert", str(CORPUS_DIR), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(tmp_path.glob("*/*.yaml"))
    assert len(written) == len(corpus_files())
    assert (
        convert_corpus_files(
            CORPUS_DIR / written[0].parent.name / (written[0].stem + ".json"), tmp_path / "one"
        )[0].read_bytes()
        == written[0].read_bytes()
    )
