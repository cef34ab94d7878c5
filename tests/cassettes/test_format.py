"""The cassette format: vcrpy reads it (and pytest-recording plays it); people can read it too."""

from __future__ import annotations

import re

import httpx2
import pytest
import vcr
import yaml
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import (
    Cassette,
    Interaction,
    RecordedRequest,
    RecordedResponse,
    library_path,
    load_cassette,
    save_cassette,
)
from tooltape.cassettes.body_framing import split_frames
from tooltape.fake_providers import get_dialect
from tooltape.harness import reference_merge

pytestmark = pytest.mark.slow

CHAT = library_path("parallel_sequential", "openai_chat")


def _calls(chunks: list) -> list[dict]:
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    return [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in full.tool_calls]


def test_plain_vcrpy_replays_a_tooltape_cassette_into_chat_openai():
    expected = load_cassette(CHAT).info.reference["tool_calls"]
    model = ChatOpenAI(model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0)
    with vcr.VCR().use_cassette(str(CHAT), record_mode="none") as cassette:
        calls = _calls(list(model.stream("hi")))
    assert calls == [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in expected]
    assert cassette.play_count == 1


@pytest.mark.parametrize(
    ("scenario", "dialect"),
    [
        ("unicode_args", "openai_chat"),
        ("parallel_sequential", "bedrock_converse"),
        ("framing_crlf", "anthropic_messages"),
        ("framing_close_mid_event", "openai_responses"),
    ],
)
def test_vcrpy_gives_httpx2_the_same_bytes(scenario, dialect):
    path = library_path(scenario, dialect)
    interaction = load_cassette(path).interactions[0]
    with vcr.VCR().use_cassette(str(path), record_mode="none"), httpx2.Client() as client:
        response = client.post(interaction.request.uri, content=interaction.request.body)
    assert response.content == interaction.response.body  # vcrpy joins the reads into one
    assert response.headers["content-type"] == interaction.response.content_type


def test_an_sse_body_is_a_literal_block_with_one_event_per_paragraph():
    text = CHAT.read_text(encoding="utf-8")
    body = load_cassette(CHAT).interactions[0].response.body.decode()
    assert "      string: |+\n" in text
    indented = "".join(f"        {line}\n" if line else "\n" for line in body[:-1].split("\n"))
    assert indented in text
    events = split_frames(body.encode(), "text/event-stream")
    assert len(events) == body.count("\n\n") >= 10
    assert re.search(r"\n      reads: \[\d+(, \d+)+\]\n", text)
    assert text.startswith("interactions:\n")
    assert text.index("\ntooltape:") < text.index("\nversion: 1")


def test_non_ascii_stays_readable_and_binary_bodies_are_base64():
    unicode_text = library_path("unicode_args", "anthropic_messages").read_text(encoding="utf-8")
    assert "北京" in unicode_text and "\\u5317" not in unicode_text
    bedrock = library_path("openai_golden", "bedrock_converse").read_text(encoding="utf-8")
    assert "      string: !!binary |\n" in bedrock
    data = yaml.safe_load(bedrock)
    assert isinstance(data["interactions"][0]["response"]["body"]["string"], bytes)


@pytest.mark.parametrize(
    "body",
    [
        b"data: {}\r\n\r\ndata: [DONE]\r\n\r\n",
        b"data: trailing space \n\n",
        b"\tdata: tab\n\n",
        b"  data: leading blanks\n\n",
        'data: {"t": "caf\u00e9\u2028x\u0085"}\n\n'.encode(),
        b"\xff\xfe not utf-8",
        b"data: a\n\ndata: b",
        b"",
    ],
)
def test_any_body_reads_back_byte_for_byte(tmp_path, body):
    boundaries = (1, 3) if len(body) > 3 else ()
    interaction = Interaction(
        RecordedRequest("POST", "https://api.openai.com/v1/chat/completions", (), b'{"a": 1}'),
        RecordedResponse(
            headers=(("content-type", "text/event-stream"),), body=body, boundaries=boundaries
        ),
    )
    path = save_cassette(Cassette((interaction,)), tmp_path / "c.yaml")
    again = load_cassette(path).interactions[0].response
    assert again.body == body and again.boundaries == boundaries
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert raw["version"] == 1 and raw["tooltape"]["format"] == 1


def test_pytest_recording_plays_a_library_cassette(pytester):
    folder = pytester.path / "cassettes" / "test_weather"
    folder.mkdir(parents=True)
    (folder / "test_stream.yaml").write_bytes(CHAT.read_bytes())
    pytester.makepyfile(
        test_weather="""
        import pytest
        from langchain_openai import ChatOpenAI

        @pytest.mark.vcr
        def test_stream():
            model = ChatOpenAI(model="gpt-4o-mini", api_key="sk-test", max_retries=0)
            full = None
            for chunk in model.stream("hi"):
                full = chunk if full is None else full + chunk
            assert [c["id"] for c in full.tool_calls] == ["call_paris_01", "call_oslo_02"]
        """
    )
    result = pytester.runpytest_subprocess("--record-mode=none", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_the_reference_in_the_file_is_what_the_dialect_reads():
    cassette = load_cassette(CHAT)
    merged = reference_merge(
        get_dialect("openai_chat").parse(cassette.interactions[0].response.body)
    )
    assert cassette.info.reference["tool_calls"] == merged.calls()
