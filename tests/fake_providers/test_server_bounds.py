"""A long-running server holds what its bounded log shows, not one turn per request.

Real uvicorn on 127.0.0.1, the openai SDK as the client; the provider is fed one
turn per request, as ``tooltape serve --repeat`` feeds it.
"""

from __future__ import annotations

import dataclasses
import json
import select
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import openai
import pytest

from tooltape.fake_providers import (
    FakeProvider,
    FakeProviderApp,
    ServerLimits,
    Wire,
    serve_in_thread,
)
from tooltape.harness import Plan, PlannedCall
from tooltape.harness._errors import TooltapeAssertionError

ONE_CALL = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])
GIVEN = Plan(calls=[PlannedCall(name="get_time", id="call_3")])


def test_fresh_ids_start_at_first_free_and_skip_given_ids() -> None:
    two = Plan(calls=[{"name": "a"}, {"name": "b", "id": "mine"}, {"name": "c"}])
    moved = two.with_fresh_ids({"call_5"}, first_free=4)
    assert [c.id for c in moved.calls] == ["call_4", "mine", "call_6"]
    assert moved.first_free_after(4) == 7
    assert GIVEN.first_free_after(4) == 4  # a given id moves nothing on
    assert ONE_CALL.with_fresh_ids(set(), first_free=0) is ONE_CALL


def test_a_provider_serving_many_turns_holds_only_the_played_turns_its_log_keeps() -> None:
    provider = FakeProvider("openai_chat", base_url="http://tooltape.invalid")
    limits = ServerLimits(log_requests=5)
    streamed: list[str] = []
    with serve_in_thread(FakeProviderApp(provider, limits=limits)) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        for number in range(300):
            provider.stream(GIVEN if number == 150 else ONE_CALL)
            stream = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            streamed += [
                call.id
                for chunk in stream
                for call in (chunk.choices[0].delta.tool_calls or [] if chunk.choices else [])
                if call.id
            ]
    assert provider.played == provider.scripted == 300
    assert len(provider.turns) == 5 and len(provider.requests) == 5
    assert len(streamed) == 300
    assert len(set(streamed)) == 300  # no id handed out twice, with 295 turns forgotten
    assert "call_3" in streamed  # a given id is streamed as given
    provider.assert_all_played()
    provider.stream(ONE_CALL)
    with pytest.raises(TooltapeAssertionError, match="turn 301: stream calling get_weather"):
        provider.assert_all_played()


def test_without_a_log_limit_every_turn_is_kept() -> None:
    provider = FakeProvider("openai_chat")
    for _ in range(3):
        provider.stream(ONE_CALL)
    assert len(provider.turns) == provider.scripted == 3
    assert provider.tool_names == ("get_weather",)


# --- clients that misbehave: a huge head, a stream never read ---------------------------

DEADLINE = 10.0
"""Seconds a test waits for the server to act before it fails (never slept)."""
STREAM = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
TEN_MB = Wire(reads=(b"data: " + b"x" * 65_000 + b"\n\n",) * 160)


def _served(limits: ServerLimits, turns: int = 1) -> tuple[FakeProvider, FakeProviderApp]:
    provider = FakeProvider("openai_chat", base_url="http://tooltape.invalid")
    for _ in range(turns):
        provider.stream(TEN_MB if turns > 1 else ONE_CALL)
    return provider, FakeProviderApp(provider, limits=limits)


def _request(url: str, head: bytes = b"") -> bytes:
    body = json.dumps(STREAM).encode()
    host = urlsplit(url).netloc.encode()
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: "
        + host
        + b"\r\n"
        + head
        + b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        + body
    )


def _connect(url: str, receive_buffer: int | None = None) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:  # set before connecting, so the window stays small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(DEADLINE)
    sock.connect((parts.hostname, parts.port))
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):  # raises socket.timeout after DEADLINE
        data += chunk
    return data


@pytest.mark.parametrize("pieces", [1, 200], ids=["one_read", "200_reads"])
def test_a_head_over_max_header_bytes_gets_431(pieces: int) -> None:
    provider, app = _served(ServerLimits(max_header_bytes=64 * 1024))
    head = b"X-Big: " + b"a" * 100_000 + b"\r\n"
    with serve_in_thread(app) as url:
        sock = _connect(url)
        request = _request(url, head)
        size = -(-len(request) // pieces)
        for start in range(0, len(request), size):
            sock.sendall(request[start : start + size])
        answer = _read_all(sock)
        sock.close()
        with httpx2.Client(timeout=DEADLINE) as client:  # the server is still up
            fine = client.post(f"{url}/v1/chat/completions", json=STREAM)
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert answer.endswith(b"over 65536 bytes (max_header_bytes)\n")
    assert fine.status_code == 200
    assert provider.received == 1


def test_a_head_under_max_header_bytes_is_served() -> None:
    provider, app = _served(ServerLimits(max_header_bytes=64 * 1024))
    with serve_in_thread(app) as url, httpx2.Client(timeout=DEADLINE) as client:
        answer = client.post(
            f"{url}/v1/chat/completions", json=STREAM, headers={"x-big": "a" * 60_000}
        )
    assert answer.status_code == 200
    assert provider.requests[0].headers["x-big"] == "a" * 60_000


def test_clients_that_never_read_are_reset_after_the_write_timeout() -> None:
    provider, app = _served(ServerLimits(write_timeout=0.5), turns=21)
    with serve_in_thread(app) as url:
        stalled = [_connect(url, receive_buffer=4096) for _ in range(20)]
        for sock in stalled:
            sock.sendall(_request(url))
        for sock in stalled:
            poller = select.poll()
            poller.register(sock, select.POLLRDHUP)  # data waiting does not wake it
            events = poller.poll(DEADLINE * 1000)
            assert events and events[0][1] & (select.POLLERR | select.POLLHUP), events
            with pytest.raises(ConnectionResetError):
                _read_all(sock)
            sock.close()
        with httpx2.Client(timeout=DEADLINE) as client:  # a client that reads gets it all
            whole = client.post(f"{url}/v1/chat/completions", json=STREAM)
    assert whole.content == TEN_MB.body
    assert provider.played == 21


# --- cassette headers HTTP forbids: refused at load, hop-by-hop ones left out ------------

FORBIDDEN = {
    "nul": (("x-note", "a\x00b"), "holds NUL at offset 1"),
    "crlf": (("x-note", "a\r\nx-injected: 1"), "holds CR at offset 1"),
    "name": (("x note", "v"), "the name is not an HTTP token"),
    "negative_length": (("content-length", "-1"), "'-1' is not one non-negative decimal"),
    "wrong_length": (("content-length", "3"), "it declares 3 bytes, and the recorded body has"),
    "coding": (("transfer-encoding", "gzip"), "only 'chunked' can be replayed"),
    "latin1": (("x-note", "☕"), "which is not Latin-1"),
}


def _recorded(path: Path, headers: tuple[tuple[str, str], ...]) -> Path:
    """A one-interaction cassette: the golden OpenAI stream, with ``headers`` added."""
    from tooltape.cassettes import library_path, load_cassette, save_cassette

    golden = load_cassette(library_path("parallel_sequential", "openai_chat"))
    first = golden.interactions[0]
    response = dataclasses.replace(first.response, headers=first.response.headers + headers)
    changed = golden.with_interactions((dataclasses.replace(first, response=response),))
    return save_cassette(dataclasses.replace(changed, path=None), path)


@pytest.mark.parametrize("kind", FORBIDDEN)
def test_a_cassette_header_http_forbids_is_refused_at_load(kind: str, tmp_path: Path) -> None:
    from tooltape.cassettes import CassetteError, serve_cassette

    header, why = FORBIDDEN[kind]
    path = _recorded(tmp_path / "bad.yaml", (header,))
    with pytest.raises(CassetteError) as refused, serve_cassette(path):
        pass
    message = str(refused.value)
    assert message.startswith(f"{path}: interaction 0: response header {header[0]!r}: ")
    assert why in message
    assert "cannot be replayed: fix or remove it in the cassette" in message


def test_recorded_hop_by_hop_headers_are_left_out_when_served(tmp_path: Path) -> None:
    from tooltape.cassettes import serve_cassette

    hop = (("transfer-encoding", "chunked"), ("connection", "keep-alive"), ("keep-alive", "5"))
    path = _recorded(tmp_path / "hop.yaml", hop)
    with serve_cassette(path, match_on=("method", "path")) as served:
        client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="sk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        chunks = [chunk for chunk in raw.parse() if chunk.choices]
        calls = [c for chunk in chunks for c in chunk.choices[0].delta.tool_calls or []]
        headers = raw.headers
    assert calls  # the recorded stream arrived whole
    assert "keep-alive" not in headers and headers.get("connection") != "keep-alive"
    assert headers["transfer-encoding"] == "chunked"  # uvicorn's own framing
