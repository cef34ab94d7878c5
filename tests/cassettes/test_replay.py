"""Replaying cassettes: lazily, read by read, through httpx2, httpx and a real server.

Subjects are real clients (httpx2, httpx, the openai SDK, ChatOpenAI, ChatAnthropic);
the expectation is the cassette itself (its reads, its body) and the reference merge.
"""

from __future__ import annotations

import asyncio

import httpx
import httpx2
import openai
import pytest
import respx
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import (
    CassetteError,
    CassetteTransport,
    UnmatchedRequest,
    UnplayedInteractions,
    add_cassette_routes,
    library_path,
    load_cassette,
    save_cassette,
    serve_cassette,
    use_cassette,
)
from tooltape.fake_providers import get_dialect
from tooltape.fake_providers.framing import PEER_CLOSED
from tooltape.harness import reference_merge

CHAT = library_path("parallel_sequential", "openai_chat")
URL = "https://api.openai.com/v1/chat/completions"
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "stream": True}


def _merged(chunks: list) -> list[dict]:
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    return [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in full.tool_calls]


def _reference(path) -> list[dict]:
    cassette = load_cassette(path)
    return reference_merge(
        get_dialect(cassette.info.dialect).parse(cassette.interactions[0].response.body)
    ).calls()


def test_httpx2_sync_gets_the_recorded_reads_one_by_one():
    recorded = load_cassette(CHAT).interactions[0].response
    with (
        use_cassette(CHAT),
        httpx2.Client() as client,
        client.stream("POST", URL, json=BODY) as response,
    ):
        reads = list(response.iter_raw())
    assert reads == list(recorded.reads())
    assert len(reads) == len(recorded.boundaries) + 1 > 5


def test_httpx2_async_gets_the_recorded_reads():
    recorded = load_cassette(CHAT).interactions[0].response

    async def main() -> list[bytes]:
        async with httpx2.AsyncClient() as client, client.stream("POST", URL, json=BODY) as r:
            return [read async for read in r.aiter_raw()]

    with use_cassette(CHAT):
        reads = asyncio.run(main())
    assert reads == list(recorded.reads())


@pytest.mark.parametrize("asynchronous", [False, True])
def test_httpx_clients_replay_too(asynchronous):
    recorded = load_cassette(CHAT).interactions[0].response

    async def main() -> list[bytes]:
        async with httpx.AsyncClient() as client, client.stream("POST", URL, json=BODY) as r:
            return [read async for read in r.aiter_raw()]

    with use_cassette(CHAT):
        if asynchronous:
            reads = asyncio.run(main())
        else:
            with httpx.Client() as client, client.stream("POST", URL, json=BODY) as response:
                reads = list(response.iter_raw())
    assert reads == list(recorded.reads())


@pytest.mark.parametrize("asynchronous", [False, True])
def test_respx_routes_replay_to_httpx_clients(asynchronous):
    recorded = load_cassette(CHAT).interactions[0].response

    async def main() -> list[bytes]:
        async with httpx.AsyncClient() as client, client.stream("POST", URL, json=BODY) as r:
            return [read async for read in r.aiter_raw()]

    with respx.mock(assert_all_called=False) as router:
        player = add_cassette_routes(router, CHAT)
        if asynchronous:
            reads = asyncio.run(main())
        else:
            with httpx.Client() as client, client.stream("POST", URL, json=BODY) as response:
                reads = list(response.iter_raw())
    assert reads == list(recorded.reads())
    player.assert_all_played()


def test_chat_openai_sync_and_async_merge_to_the_reference():
    expected = _reference(CHAT)
    model = ChatOpenAI(model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0)
    with use_cassette(CHAT, allow_repeats=True):
        sync_calls = _merged(list(model.stream("hi")))

        async def main() -> list:
            return [c async for c in model.astream("hi")]

        async_calls = _merged(asyncio.run(main()))
    assert sync_calls == async_calls == expected
    assert [c["id"] for c in expected] == ["call_paris_01", "call_oslo_02"]


@pytest.mark.parametrize("scenario", ["tool_after_thinking", "parallel_interleaved"])
def test_chat_anthropic_replays_a_library_cassette(scenario):
    path = library_path(scenario, "anthropic_messages")
    model = ChatAnthropic(
        model="claude-sonnet-4-6", api_key=SecretStr("sk-test"), max_retries=0
    ).bind_tools([{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}])
    with use_cassette(path):
        calls = _merged(list(model.stream("hi")))
    assert calls == _reference(path)
    assert len(calls) == 2


def test_the_real_server_replays_to_the_openai_sdk_sync_and_async():
    expected = _reference(CHAT)
    with serve_cassette(CHAT, allow_repeats=True) as served:
        client = openai.OpenAI(api_key="sk-test", base_url=served.url + "/v1", max_retries=0)
        stream = client.chat.completions.create(model="m", messages=[], stream=True)
        names = [
            call.function.name
            for chunk in stream
            for choice in chunk.choices
            for call in choice.delta.tool_calls or []
            if call.function and call.function.name
        ]

        async def main() -> list:
            model = ChatOpenAI(
                model="m", api_key=SecretStr("sk-test"), base_url=served.url + "/v1", max_retries=0
            )
            return [c async for c in model.astream("hi")]

        async_calls = _merged(asyncio.run(main()))
    assert names == ["get_weather", "get_weather"]
    assert async_calls == expected
    assert served.player.play_counts == [2]


def test_an_explicit_transport_replays_without_patching():
    transport = CassetteTransport(CHAT)
    client = openai.OpenAI(api_key="sk-test", http_client=httpx2.Client(transport=transport))
    chunks = list(client.chat.completions.create(model="m", messages=[], stream=True))
    assert chunks[0].choices[0].delta.role == "assistant"
    transport.assert_all_played()

    async def main() -> list:
        async_transport = CassetteTransport(CHAT)
        async_client = openai.AsyncOpenAI(
            api_key="sk-test", http_client=httpx2.AsyncClient(transport=async_transport)
        )
        stream = await async_client.chat.completions.create(model="m", messages=[], stream=True)
        return [chunk async for chunk in stream]

    assert len(asyncio.run(main())) == len(chunks)
    with pytest.raises(openai.NotFoundError, match="no recorded interaction"):
        client.chat.completions.create(model="m", messages=[], stream=True)
    with pytest.raises(UnmatchedRequest, match="already played"):
        transport.assert_all_played()


def test_a_framing_quirk_recuts_the_reads_and_keeps_the_bytes():
    recorded = load_cassette(CHAT).interactions[0].response
    with (
        use_cassette(CHAT, quirks=["split_reads"], seed=3),
        httpx2.Client() as client,
        client.stream("POST", URL, json=BODY) as response,
    ):
        reads = list(response.iter_raw())
    assert b"".join(reads) == recorded.body
    assert len(reads) > len(recorded.reads())
    model = ChatOpenAI(model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0)
    with use_cassette(CHAT, quirks=[{"kind": "split_utf8"}, "events_per_read"]):
        assert _merged(list(model.stream("hi"))) == _reference(CHAT)


def test_a_stream_quirk_is_refused_on_replay_with_a_pointer_to_mutate():
    with (
        pytest.raises(CassetteError, match=r"mutate\(\)"),
        use_cassette(CHAT, quirks=["split_name"]),
    ):
        pass


def test_a_dropped_connection_replays_as_the_read_error():
    path = library_path("framing_close_mid_event", "openai_chat")
    with (
        use_cassette(path),
        httpx2.Client() as client,
        client.stream("POST", URL, json=BODY) as response,
        pytest.raises(httpx2.RemoteProtocolError, match="peer closed"),
    ):
        list(response.iter_raw())
    assert load_cassette(path).interactions[0].response.aborted == PEER_CLOSED


def test_an_unmatched_request_fails_with_the_nearest_recording_and_a_diff(tmp_path):
    cassette = load_cassette(CHAT)
    two = cassette.with_interactions(cassette.interactions * 2)
    path = save_cassette(two, tmp_path / "two.yaml")
    answers = []

    def requests() -> None:
        with use_cassette(path, allow_unplayed=True), httpx2.Client() as client:
            client.post(URL, json=BODY)
            answers.append(
                client.post(URL.replace("/v1/", "/v2/"), json={**BODY, "model": "gpt-5"})
            )

    with pytest.raises(UnmatchedRequest) as failure:
        requests()
    (answer,) = answers
    assert answer.status_code == 404
    assert "no recorded interaction" in answer.json()["error"]["message"]
    message = str(failure.value)
    assert "POST https://api.openai.com/v2/chat/completions" in message
    assert "record mode 'none' replays only and blocks live calls" in message
    assert "Nearest: interaction 1, POST https://api.openai.com/v1/chat/completions" in message
    assert "differs on path" in message
    assert '-  "model": "gpt-4o-mini",' in message and '+  "model": "gpt-5",' in message


def test_a_request_the_sdk_retries_fails_the_test_not_just_the_sdk(tmp_path):
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key=SecretStr("sk-test"),
        base_url="https://other.example/v1",
        max_retries=0,
    )
    with pytest.raises(UnmatchedRequest, match="differs on host"), use_cassette(CHAT):
        list(model.stream("hi"))


def test_unplayed_interactions_fail_with_counts_and_indexes(tmp_path):
    cassette = load_cassette(CHAT)
    path = save_cassette(
        cassette.with_interactions(cassette.interactions * 3), tmp_path / "three.yaml"
    )
    with (
        pytest.raises(UnplayedInteractions) as failure,
        use_cassette(path),
        httpx2.Client() as client,
    ):
        client.post(URL, json=BODY)
    message = str(failure.value)
    assert "2 of 3 recorded interaction(s) were not played (1 played)" in message
    assert "#1 POST" in message and "#2 POST" in message and "#0" not in message
    with use_cassette(path, allow_unplayed=True) as session, httpx2.Client() as client:
        client.post(URL, json=BODY)
    assert session.player.play_counts == [1, 0, 0]


def test_body_matching_picks_the_recording_with_the_same_json(tmp_path):
    cassette = load_cassette(CHAT)
    other = load_cassette(library_path("openai_golden", "openai_chat")).interactions[0]
    first = cassette.interactions[0]
    twisted = type(first.request)(
        first.request.method, first.request.uri, first.request.headers, b'{"model": "other"}'
    )
    mixed = cassette.with_interactions((type(first)(twisted, other.response), first))
    path = save_cassette(mixed, tmp_path / "bodies.yaml")
    by_body = ("method", "uri", "body")
    with (
        use_cassette(path, match_on=by_body, allow_unplayed=True) as session,
        httpx2.Client() as client,
    ):
        # the recorded body, key order and spacing changed: JSON compares equal
        sent = first.request.json()
        client.post(URL, json=dict(reversed(list(sent.items()))))
    assert session.player.play_counts == [0, 1]
