"""Recording: record modes, read boundaries, secrets, no overwrite, drift.

The "real provider" is tooltape's own fake served over real HTTP on 127.0.0.1
(``serve_in_thread``); the clients are real (httpx2, httpx, ChatOpenAI).
"""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import httpx
import httpx2
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import (
    CassetteError,
    UnmatchedRequest,
    drift,
    library_path,
    load_cassette,
    record,
    save_cassette,
    use_cassette,
)
from tooltape.fake_providers import FakeProvider, get_dialect, serve_in_thread
from tooltape.harness import Plan, PlannedCall

PLAN = Plan(calls=[PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_1")])
TWO = Plan(
    calls=[
        PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_1"),
        PlannedCall(name="get_time", args={"tz": "CET"}, id="call_2"),
    ]
)
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "stream": True}


def _post(url: str, body: dict | None = None) -> bytes:
    with httpx2.Client() as client:
        return client.post(url + "/v1/chat/completions", json=body or BODY).content


def test_once_records_the_reads_the_client_saw_then_replays_without_the_server(tmp_path):
    path = tmp_path / "weather.yaml"
    wire = get_dialect("openai_chat").render(PLAN, ["split_reads"], seed=2)
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(wire)
    with serve_in_thread(provider) as url:
        with use_cassette(path, record_mode="once") as session:
            body = _post(url)
        assert session.written and len(provider.requests) == 1
        response = load_cassette(path).interactions[0].response
        assert response.body == body == wire.body
        assert list(response.boundaries) == wire.boundaries  # split_reads: mid-event cuts
        with use_cassette(path, record_mode="once") as session:
            assert _post(url) == wire.body
        assert len(provider.requests) == 1 and session.player.play_counts == [1]


def test_chat_openai_async_records_through_httpx2_and_httpx_records_too(tmp_path):
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(TWO).stream(PLAN)
    with serve_in_thread(provider) as url:
        model = ChatOpenAI(
            model="gpt-4o-mini", api_key=SecretStr("sk-x"), base_url=url + "/v1", max_retries=0
        )

        async def main() -> list:
            return [c async for c in model.astream("hi")]

        with record(tmp_path / "a.yaml"):
            chunks = asyncio.run(main())
            with httpx.Client() as client:
                client.post(url + "/v1/chat/completions", json=BODY)
    cassette = load_cassette(tmp_path / "a.yaml")
    assert len(cassette.interactions) == 2
    assert sum(len(c.tool_call_chunks) for c in chunks) > 2
    assert cassette.info.dialect == "openai_chat"
    with use_cassette(tmp_path / "a.yaml", match_on=("method", "path"), allow_unplayed=True):
        again = asyncio.run(main())
    assert [c.tool_call_chunks for c in again] == [c.tool_call_chunks for c in chunks]


def test_record_mode_none_needs_the_cassette_and_blocks_live_calls(tmp_path):
    with (
        pytest.raises(CassetteError, match="no such cassette; record it first"),
        use_cassette(tmp_path / "absent.yaml"),
    ):
        pass
    path = save_cassette(
        load_cassette(library_path("openai_golden", "openai_chat")), tmp_path / "c.yaml"
    )
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with (
        serve_in_thread(provider) as url,
        pytest.raises(UnmatchedRequest, match="blocks live"),
        use_cassette(path, allow_unplayed=True),
    ):
        _post(url)
    assert provider.requests == []  # nothing reached the server


def test_no_mode_overwrites_an_existing_cassette_unless_it_says_so(tmp_path):
    path = save_cassette(
        load_cassette(library_path("openai_golden", "openai_chat")), tmp_path / "c.yaml"
    )
    before = path.read_bytes()
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url:
        with pytest.raises(CassetteError, match="exists and is kept"), record(path):
            pass
        with pytest.raises(UnmatchedRequest), use_cassette(path, record_mode="once"):
            _post(url, {**BODY, "model": "another"})
        with pytest.raises(CassetteError, match="pass overwrite=True"):
            save_cassette(load_cassette(path), path)
    assert path.read_bytes() == before
    assert provider.requests == []
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_new_episodes_adds_and_all_replaces_keeping_what_was_not_rerecorded(tmp_path):
    path = tmp_path / "c.yaml"
    by_body = ("method", "uri", "body")
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    with serve_in_thread(provider) as url:
        provider.stream(PLAN)
        with record(path):
            _post(url)
        provider.stream(TWO)
        with use_cassette(path, record_mode="new_episodes", match_on=by_body):
            assert b"call_1" in _post(url)  # replayed
            _post(url, {**BODY, "model": "second"})  # recorded
        assert len(load_cassette(path).interactions) == 2
        provider.stream(TWO)
        with use_cassette(path, record_mode="all", match_on=by_body) as session:
            _post(url)  # re-records interaction 0 only
        assert len(provider.requests) == 3
    interactions = load_cassette(path).interactions
    assert [json.loads(i.request.body)["model"] for i in interactions] == ["second", "gpt-4o-mini"]
    assert b"get_time" in interactions[1].response.body
    assert session.drift_lines[0] == "interaction 0: tool calls: 1 -> 2"


def test_a_rerecording_that_changes_the_shape_prints_a_drift_report(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    with serve_in_thread(provider) as url:
        provider.stream(TWO)
        with record(path):
            _post(url)
        provider.stream(TWO)
        with use_cassette(path, record_mode="all") as same:
            _post(url)
        assert same.drift_lines == []
        assert "changed the stream's shape" not in capsys.readouterr().err
        provider.stream(TWO, ["id_on_every_chunk", "interleave_calls"], seed=3)
        with use_cassette(path, record_mode="all") as changed:
            _post(url)
    report = capsys.readouterr().err
    assert f"tooltape: re-recording {path} changed the stream's shape" in report
    assert "where ids appear (per index lane): [first, first] -> [every, every]" in report
    assert changed.drift_lines and all(line in report for line in changed.drift_lines)


def test_drift_between_library_recordings_names_what_moved():
    golden = library_path("parallel_sequential", "anthropic_messages")
    assert drift(golden, golden) == []
    lines = drift(golden, library_path("tool_after_thinking", "anthropic_messages"))
    assert "interaction 0: index pattern: [0, 1] -> [2, 3]" in lines
    assert any(line.startswith("interaction 0: event types:") for line in lines)
    lines = drift(
        library_path("openai_golden", "openai_chat"),
        library_path("parallel_sequential", "openai_chat"),
    )
    assert "interaction 0: tool calls: 1 -> 2" in lines


def test_a_client_that_stops_early_still_records_the_whole_body(tmp_path):
    wire = get_dialect("openai_chat").render(TWO)
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(wire).stream(wire)

    async def first_read_async(url: str) -> bytes:
        async with (
            httpx2.AsyncClient() as client,
            client.stream("POST", url + "/v1/chat/completions", json=BODY) as response,
        ):
            async for read in response.aiter_raw():
                return read
        raise AssertionError("no read")

    with serve_in_thread(provider) as url, record(tmp_path / "c.yaml"):
        with (
            httpx2.Client() as client,
            client.stream("POST", url + "/v1/chat/completions", json=BODY) as response,
        ):
            first = next(response.iter_raw())
        first_async = asyncio.run(first_read_async(url))
    assert first == first_async == wire.reads[0]
    recorded = load_cassette(tmp_path / "c.yaml").interactions
    assert [i.response.body for i in recorded] == [wire.body, wire.body]
    assert [i.response.aborted for i in recorded] == [None, None]


async def _gzip_app(scope, receive, send):
    """A server that compresses its event stream, flushing the compressor per event."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-type", b"text/event-stream"), (b"content-encoding", b"gzip")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    compressor = __import__("zlib").compressobj(9, 8, 16 + 15)
    for event in (b'data: {"a": 1}\n\n', b'data: {"b": 2}\n\n', b"data: [DONE]\n\n"):
        chunk = compressor.compress(event) + compressor.flush(2)  # Z_SYNC_FLUSH
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": compressor.flush(), "more_body": False})


def test_a_compressed_stream_is_recorded_as_the_client_decoded_it(tmp_path):
    with serve_in_thread(_gzip_app) as url, record(tmp_path / "g.yaml"), httpx2.Client() as c:
        text = c.post(url + "/v1/chat/completions", json=BODY).text
    response = load_cassette(tmp_path / "g.yaml").interactions[0].response
    assert response.body.decode() == text == 'data: {"a": 1}\n\ndata: {"b": 2}\n\ndata: [DONE]\n\n'
    assert list(response.boundaries) == [16, 32]
    assert "content-encoding" not in dict(response.headers)
    assert gzip.compress(b"x")  # the module really is the one compressing above


# --- secrets ---------------------------------------------------------------------------

SECRETS = {
    "authorization": "Bearer sk-secret-authorization-0001",
    "x-api-key": "sk-secret-x-api-key-0002",
    "api-key": "secret-azure-api-key-0003",
    "anthropic-api-key": "sk-ant-secret-0004",
    "openai-organization": "org-secret-0005",
    "cookie": "session=secret-cookie-0006",
}
QUERY = {
    "key": "secret-query-key-0007",
    "api_key": "secret-query-api-key-0008",
    "apikey": "secret-query-apikey-0009",
    "token": "secret-query-token-0010",
    "access_token": "secret-query-access-token-0011",
}
FIELDS = {
    "api_key": "secret-body-api-key-0012",
    "apiKey": "secret-body-apiKey-0013",
    "access_token": "secret-body-access-token-0014",
    "client_secret": "secret-body-client-secret-0015",
}
RESPONSE = {
    "set-cookie": "sid=secret-set-cookie-0016; HttpOnly",
    "openai-organization": "org-secret-response-0017",
}


def _leaky_app(wire):
    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(k.encode(), v.encode()) for k, v in [*wire.headers, *RESPONSE.items()]]
        headers.append((b"x-echo", SECRETS["x-api-key"].encode()))  # a copy under another name
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for read in wire.reads:
            await send({"type": "http.response.body", "body": read, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


@pytest.mark.parametrize("request_headers", [("content-type",), "all"])
def test_no_byte_of_any_secret_reaches_the_disk(tmp_path, request_headers):
    wire = get_dialect("openai_chat").render(PLAN)
    body = {**BODY, "metadata": {"nested": dict(FIELDS)}, **FIELDS}
    path = tmp_path / "secret.yaml"
    with (
        serve_in_thread(_leaky_app(wire)) as url,
        record(path, request_headers=request_headers),
        httpx2.Client() as client,
    ):
        client.post(
            url + "/v1/chat/completions",
            params={**QUERY, "api-version": "2024-10-21"},
            json=body,
            headers={**SECRETS, "x-debug": "copy " + FIELDS["api_key"]},
        )
    written = path.read_bytes()
    everything = [*SECRETS.values(), *QUERY.values(), *FIELDS.values(), *RESPONSE.values()]
    for secret in everything:
        for part in {secret, secret.split("=")[-1].split(";")[0], secret.removeprefix("Bearer ")}:
            assert part.encode() not in written, part
    for lock_or_temp in tmp_path.iterdir():
        assert lock_or_temp == path or not any(
            s.encode() in lock_or_temp.read_bytes() for s in everything
        )
    cassette = load_cassette(path)
    request = cassette.interactions[0].request
    assert "api-version=2024-10-21" in request.uri  # an innocent parameter stays
    assert request.json()["model"] == "gpt-4o-mini" and "api_key" not in request.json()
    assert "nested" in request.json()["metadata"] and not request.json()["metadata"]["nested"]
    assert cassette.interactions[0].response.body == wire.body


def test_recorded_files_are_written_whole_with_nothing_beside_them(tmp_path):
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url, record(tmp_path / "deep" / "c.yaml"):
        _post(url)
    names = sorted(p.name for p in (tmp_path / "deep").iterdir())
    assert names == ["c.yaml"]
    assert Path(tmp_path / "deep" / "c.yaml").read_text().startswith("interactions:")


def test_a_schema_property_named_like_a_secret_is_not_a_secret():
    from tooltape.cassettes._scrub import Scrubber

    scrubber = Scrubber()
    schema = {"type": "object", "properties": {"password": {"type": "string", "title": "Password"}}}
    body = json.dumps({"tools": [{"parameters": schema}], "api_key": "sk-real-secret-1"}).encode()
    request = scrubber.request("POST", "https://x.test/v1/chat", [], body)
    assert request.json() == {"tools": [{"parameters": schema}]}
    assert scrubber.leaked(b"Password string") == []
    assert scrubber.leaked(b"... sk-real-secret-1 ...") == ["sk-…(16 chars)"]
