"""Secrets by shape as well as by name: issue 21's second round, one test per case.

Each case records through a real client (httpx, httpx2, the ``openai`` SDK)
against the provider of ``_minted`` on 127.0.0.1, with every request header
kept, then counts the secret bytes the written file holds in any form,
compressed or split across fragments: 0. Where replay is part of the case (a
compressed body, a random multipart boundary, fragments joined again), the
cassette is replayed with live calls blocked and the client gets what it got
while recording, secrets masked. The first round's cases are in
``test_secrets.py``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _minted import (
    ACCESS_KEY_ID,
    CASES,
    CREDENTIAL,
    SPLIT_KEY,
    Case,
    _joined_arguments,
    minted_app,
    secret_bytes,
    split_stream,
)

from tooltape.cassettes import (
    Cassette,
    Interaction,
    RecordedRequest,
    RecordedResponse,
    load_cassette,
    record,
    use_cassette,
)
from tooltape.cassettes._content_coding import decode_body
from tooltape.cassettes._multipart import fields
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._secret_shapes import shaped
from tooltape.cassettes._split_secrets import mask_split
from tooltape.fake_providers import serve_in_thread


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    with serve_in_thread(minted_app()) as url:
        yield url


def _masked(value: Any, secrets: tuple[str, ...]) -> Any:
    text = json.dumps(value)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "*" * len(secret))
    return json.loads(text)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_secret_byte_reaches_the_file(tmp_path, service, case: Case):
    path = tmp_path / f"{case.name}.yaml"
    with record(path, request_headers="all") as session:
        first = case.run(service)
    assert session.recorded and path.exists()
    assert secret_bytes(path, case.secrets) == 0
    if not case.replays:
        return
    with use_cassette(path, request_headers="all") as replayed:
        again = case.run(service)
    assert all(replayed.player.play_counts), replayed.player.play_counts
    assert again == _masked(first, case.secrets)


def test_a_minted_token_is_masked_in_place_and_the_rest_kept(tmp_path, service):
    path = tmp_path / "oauth.yaml"
    with record(path):
        CASES[0].run(service)
    token = json.loads(load_cassette(path).interactions[0].response.body)
    assert token["token_type"] == "Bearer" and token["expires_in"] == 3600
    assert set(token["access_token"]) == set(token["refresh_token"]) == {"*"}


def test_compressed_bodies_are_stored_decoded_without_their_coding(tmp_path, service):
    by_name = {c.name: c for c in CASES}
    path = tmp_path / "c.yaml"
    with record(path, request_headers="all"):
        for name in ("zstd_body", "gzip_gzip_body", "gzip_request"):
            by_name[name].run(service)
    interactions = load_cassette(path).interactions
    for interaction in interactions[:2]:
        headers = dict(interaction.response.headers)
        assert "content-encoding" not in headers and "content-length" not in headers
        assert json.loads(interaction.response.body)["object"] == "chat.completion"
    request = interactions[2].request
    assert "content-encoding" not in dict(request.headers)
    assert request.json() == {"model": "m", "input": "hi"}  # user_api_key removed


def test_stacked_and_unknown_codings():
    text = b'{"a": 1}' * 50
    assert decode_body(gzip.compress(gzip.compress(text)), "gzip, gzip") == text
    assert decode_body(gzip.compress(text) + gzip.compress(text), "gzip") == text * 2
    assert decode_body(text, "identity") is None  # nothing to undo
    assert decode_body(text, "compress") is None  # cannot: kept as it came
    assert decode_body(b"not gzip at all", "gzip") is None


def test_multipart_requests_match_on_fields_not_the_boundary():
    one = httpx.Request("POST", "http://x/", data={"a": "1"}, files={"f": ("n.txt", b"v")})
    two = httpx.Request("POST", "http://x/", data={"a": "1"}, files={"f": ("n.txt", b"v")})
    three = httpx.Request("POST", "http://x/", data={"a": "2"}, files={"f": ("n.txt", b"v")})
    parts = [fields(r.headers["content-type"], r.read()) for r in (one, two, three)]
    assert one.read() != two.read() and parts[0] == parts[1] != parts[2]
    assert fields("", one.read()) == parts[0]  # no content-type kept: read off the first line
    assert fields("application/json", b"{}") is None


def test_a_split_secret_is_masked_piece_by_piece_and_the_writer_checks_the_join():
    """``leaked_in`` is the writer's check: a split secret left makes it refuse the file."""
    scrubber = Scrubber()
    scrubber.secrets.add(SPLIT_KEY)
    body = split_stream(SPLIT_KEY)
    assert SPLIT_KEY.encode() not in body  # no single event holds it
    masked = mask_split(body, scrubber.finder())
    assert len(masked) == len(body) and masked.count(b"\n") == body.count(b"\n")
    assert SPLIT_KEY[:10].encode() not in masked
    assert json.loads(_joined_arguments(masked)) == {
        "api_key": "*" * len(SPLIT_KEY),
        "label": "prod",
    }
    assert scrubber.leaked_in(_one(body)) == [
        f"sk-…({len(SPLIT_KEY)} chars, split across fragments)"
    ]
    assert scrubber.leaked_in(_one(masked)) == []


def _one(body: bytes) -> Cassette:
    response = RecordedResponse(headers=(("content-type", "text/event-stream"),), body=body)
    return Cassette((Interaction(RecordedRequest("POST", "http://x/"), response),))


@pytest.mark.parametrize(
    "value",
    ["sk-proj-Hx4Lp9Wq2Zm7Vk3Rt8Nb5Yc", "sk-ant-api03-Hy6Tg3Rf0EdWs2Qa1Zx", ACCESS_KEY_ID,
     "ASIAQ3EGUTSHZRX7WN5D", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
     "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hI6", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
     "xoxb-123456789012-abcdefABCDEF", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"],
)  # fmt: skip
def test_credential_shapes(value):
    assert shaped(f'{{"x": "{value}"}}') == [value]


@pytest.mark.parametrize(
    "text",
    ["call_abc123def456ghi789jkl", "task-runner-0123456789abcdefghij",
     "chatcmpl-AbC123dEf456GhI789", "toolu_01A2b3C4d5E6f7G8h9I0j1K2",
     "msg_01XFDUDYJgAACzvnptvVoYEL", "AKIA is a prefix",
     "EqQBCkgIARABGAIiQL0bRS1gX3jXz2k", "ask-me-anything-at-all-today-please"],
)  # fmt: skip
def test_ids_and_words_are_not_credential_shapes(text):
    assert shaped(text) == []


def test_the_access_key_id_of_a_credential_is_remembered_on_its_own():
    scrubber = Scrubber()
    scrubber.clean("GET", f"https://s3.test/o?X-Amz-Credential={CREDENTIAL}", [], b"")
    assert {CREDENTIAL, ACCESS_KEY_ID} <= scrubber.secrets
    auth = f"AWS4-HMAC-SHA256 Credential={CREDENTIAL}, SignedHeaders=host, Signature=abc"
    other = Scrubber()
    other.clean_headers([("authorization", auth)], None)
    assert ACCESS_KEY_ID in other.secrets


def test_response_names_need_a_credential_looking_value():
    scrubber = Scrubber()
    body = {
        "logprobs": {"content": [{"token": "internationalization", "logprob": -0.1}]},
        "arguments": json.dumps({"secret_message": "meet me at noon", "password": "hunter2"}),
        "session_token": "st-Kq8Wz3Lm6Xv1Rp4",
    }
    scrubber.remember_minted(RecordedResponse(body=json.dumps(body).encode()))
    assert scrubber.secrets == {"st-Kq8Wz3Lm6Xv1Rp4"}


def test_tool_schemas_and_ordinary_fields_are_untouched(tmp_path, service):
    schema = {
        "type": "object",
        "properties": {"api_key": {"type": "string"}, "code": {"type": "string"}},
    }
    path = tmp_path / "schema.yaml"
    with record(path), httpx.Client() as client:
        client.post(
            service + "/v1/tools", json={"parameters": schema, "code": "print(1)", "key": "k"}
        )
    assert load_cassette(path).interactions[0].request.json() == {
        "parameters": schema,
        "code": "print(1)",
        "key": "k",
    }
