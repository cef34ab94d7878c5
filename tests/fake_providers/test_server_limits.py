"""The server stays up: slow clients time out alone, malformed bodies get the provider's 4xx,
the request log stays bounded. Real uvicorn on 127.0.0.1, raw sockets for the misbehaving
clients; every wait is a socket read with a deadline, never a sleep."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import (
    FakeProvider,
    FakeProviderApp,
    ServerLimits,
    dialect_names,
    get_dialect,
    serve_in_thread,
)

DEADLINE = 10.0
"""Seconds a test waits for the server to act before it fails (never slept)."""
SHORT = ServerLimits(header_timeout=0.3, body_timeout=0.3)
BINDING_STATUS = {"mistral_native": 422}
"""Providers that answer a body they cannot bind with something other than 400."""
MALFORMED = {
    "invalid": b'{"model": "m", "messages": [',
    "deep": b"[" * 100_000,
    "not_utf8": b'{"model": "\xff"}',
}


PROMPT = "tooltape: where the prompt goes"


def wrong_typed(dialect: str) -> dict[str, Any]:
    """The dialect's own sample request with its prompt-carrying field (``messages``,
    ``input``, ``contents``) a number: well-formed JSON that cannot bind."""
    body = get_dialect(dialect).request_body(PROMPT, [])
    (field,) = [k for k, v in body.items() if PROMPT in json.dumps(v)]
    return {**body, field: 5}


def _path(dialect: str) -> str:
    return re.sub(r"\{[^}]+\}", "m", get_dialect(dialect).path)


@contextmanager
def served(dialect: str = "openai_chat", limits: ServerLimits = SHORT) -> Iterator[Any]:
    provider = FakeProvider(dialect, base_url="http://tooltape.invalid")
    provider.stream(get_scenario("openai_golden"))
    with serve_in_thread(FakeProviderApp(provider, limits=limits)) as url:
        yield provider, url


def raw_socket(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=DEADLINE)
    return sock


def read_until_closed(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took."""
    started, data = time.monotonic(), b""
    while chunk := sock.recv(65536):  # raises socket.timeout after DEADLINE
        data += chunk
    return data, time.monotonic() - started


def assert_provider_shape(dialect: str, response: httpx2.Response, status: int) -> None:
    assert response.status_code == status, response.text[:300]
    body = response.json()
    family = get_dialect(dialect)
    name = getattr(family, "base", family).name
    if name.startswith("openai"):
        assert set(body["error"]) == {"message", "type", "param", "code"}
    elif name == "anthropic_messages":
        assert body["type"] == "error" and isinstance(body["error"]["message"], str)
    elif name == "gemini":
        assert set(body["error"]) == {"code", "message", "status"}
        assert body["error"]["code"] == status
    elif name == "ollama":
        assert set(body) == {"error"}
    elif name == "mistral_native":
        assert set(body) == {"object", "message", "type", "param", "code"}
    else:  # cohere, bedrock: a top-level message
        assert set(body) == {"message"}
    if name.startswith("bedrock"):
        assert response.headers["x-amzn-errortype"].split(":")[0].endswith("Exception")


def test_half_sent_headers_are_cut_off_while_another_client_is_served() -> None:
    with served() as (provider, url):
        slow = raw_socket(url)
        slow.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Ty")
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        with httpx2.Client(timeout=DEADLINE) as client:
            answer = client.post(f"{url}/v1/chat/completions", json=body)
        assert answer.status_code == 200 and b"[DONE]" in answer.content
        data, waited = read_until_closed(slow)
        slow.close()
    assert data == b""  # closed without an answer: no request line was whole
    assert waited < DEADLINE
    assert provider.played == 1


def test_a_silent_connection_is_closed() -> None:
    with served() as (_, url):
        sock = raw_socket(url)
        data, _ = read_until_closed(sock)
        sock.close()
    assert data == b""


def test_a_body_that_never_completes_gets_the_providers_408() -> None:
    with served("anthropic_messages") as (provider, url):
        sock = raw_socket(url)
        head = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
        sock.sendall(head + b'{"model": "m"')
        data, _ = read_until_closed(sock)
        sock.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in head.lower()
    assert json.loads(body)["type"] == "error"
    assert provider.received == 0  # never dispatched, no turn consumed


def test_a_declared_body_over_the_limit_gets_the_providers_413_unread() -> None:
    limits = ServerLimits(max_body_bytes=1000)
    with served("anthropic_messages", limits) as (_, url), httpx2.Client() as client:
        answer = client.post(f"{url}/v1/messages", content=b"x" * 5000)
    assert_provider_shape("anthropic_messages", answer, 413)
    assert answer.json()["error"]["type"] == "request_too_large"


# Go's JSON decoder replaces invalid UTF-8, so Ollama accepts a not_utf8 body.
@pytest.mark.parametrize(
    ("kind", "dialect"),
    [
        (kind, dialect)
        for kind in [*MALFORMED, "wrong_type"]
        for dialect in dialect_names()
        if (dialect, kind) != ("ollama", "not_utf8")
    ],
)
def test_malformed_bodies_get_the_providers_400(dialect: str, kind: str) -> None:
    body = json.dumps(wrong_typed(dialect)).encode() if kind == "wrong_type" else MALFORMED[kind]
    with served(dialect) as (provider, url), httpx2.Client(timeout=DEADLINE) as client:
        answer = client.post(url + _path(dialect), content=body)
        assert_provider_shape(dialect, answer, BINDING_STATUS.get(dialect, 400))
    assert provider.played == 0


def test_the_request_log_stays_bounded() -> None:
    limits = ServerLimits(log_requests=3, log_body_bytes=1000)
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 200_000}]}
    with served(limits=limits) as (provider, url), httpx2.Client(timeout=DEADLINE) as client:
        for _ in range(10):
            client.post(f"{url}/v1/chat/completions", json=big)  # 1 plays, 9 find no turn
    assert provider.received == 10
    assert len(provider.requests) == 3
    assert sum(len(r.body) for r in provider.requests) <= 3 * 1000
    assert sum(len(r.body) for r, _ in provider.rejected) <= 3 * 1000


@pytest.mark.parametrize("body", MALFORMED.values(), ids=list(MALFORMED))
def test_a_served_cassette_refuses_malformed_bodies_without_a_500(body: bytes) -> None:
    from tooltape.cassettes import library_path, serve_cassette

    path = library_path("parallel_sequential", "openai_chat")
    with serve_cassette(path, allow_unplayed=True, match_on=("method", "path", "body")) as served:
        with httpx2.Client(timeout=DEADLINE) as client:
            answer = client.post(f"{served.url}/v1/chat/completions", content=body)
        served.player.unmatched.clear()  # the 404 is the point; do not fail on leaving
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "tooltape_no_recording"


def test_binding_status_names_only_registered_dialects() -> None:
    assert set(BINDING_STATUS) <= set(dialect_names())
