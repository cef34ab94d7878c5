"""Replay is offline everywhere: in the library API as under the marker, by every route out.

Each attempt targets TEST-NET-1 (192.0.2.1, never routed) or a name under
``.invalid`` (never resolvable), so nothing leaves the machine even if a guard
failed; each must be refused by tooltape with its hint, before a packet is sent.
"""

from __future__ import annotations

import _socket
import asyncio
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import openai
import pytest
import requests
from botocore.config import Config

from tooltape.cassettes import (
    NetworkBlocked,
    SubprocessBlocked,
    UnmatchedRequest,
    block_network,
    library_path,
    use_cassette,
)

TEST_NET = "192.0.2.1"
NAME = "api.tooltape.invalid"


@pytest.fixture
def replaying(tmp_path: Path) -> Iterator[None]:
    """A library-API replay (``use_cassette``, record mode ``none``) of a recorded cassette."""
    path = tmp_path / "recorded.yaml"
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    with use_cassette(path, record_mode="none", allow_unplayed=True):
        yield


def _raw_c_socket() -> None:
    raw = _socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        raw.connect((TEST_NET, 443))
    finally:
        raw.close()


def _udp() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"\x00" * 12, (TEST_NET, 53))


def _boto3() -> None:
    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=f"http://{TEST_NET}",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=1),
    )
    client.converse(modelId="m", messages=[{"role": "user", "content": [{"text": "x"}]}])


ATTEMPTS: dict[str, Callable[[], Any]] = {
    "urllib": lambda: urllib.request.urlopen(f"http://{TEST_NET}/", timeout=1),
    "requests": lambda: requests.get(f"http://{TEST_NET}/", timeout=1),
    "socket": lambda: socket.create_connection((TEST_NET, 443), timeout=1),
    "_socket": _raw_c_socket,
    "udp": _udp,
    "getaddrinfo": lambda: socket.getaddrinfo(NAME, 443),
    "_socket.getaddrinfo": lambda: _socket.getaddrinfo(NAME, 443),
    "gethostbyname": lambda: socket.gethostbyname(NAME),
    "gethostbyaddr": lambda: socket.gethostbyaddr(TEST_NET),
    "getnameinfo": lambda: socket.getnameinfo((TEST_NET, 443), 0),
    "getnameinfo of a name": lambda: socket.getnameinfo((NAME, 443), socket.NI_NUMERICHOST),
    "asyncio": lambda: asyncio.run(asyncio.open_connection(TEST_NET, 443)),
}


@pytest.mark.parametrize("attempt", list(ATTEMPTS), ids=list(ATTEMPTS))
def test_a_library_replay_refuses_every_route_out(replaying: None, attempt: str) -> None:
    with pytest.raises(Exception) as caught:
        ATTEMPTS[attempt]()

    chain = [caught.value]
    while chain[-1].__cause__ or chain[-1].__context__:
        chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore[arg-type]
    assert any(isinstance(e, NetworkBlocked) for e in chain), chain
    assert "tooltape blocked" in "".join(str(e) for e in chain)


def test_httpx_is_answered_by_the_cassette_and_never_sent(tmp_path: Path) -> None:
    path = tmp_path / "recorded.yaml"
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    with (
        pytest.raises(UnmatchedRequest, match="record mode 'none' replays only"),
        use_cassette(path, allow_unplayed=True),
    ):
        httpx.get(f"https://{NAME}/", timeout=1)


def test_boto3_keeps_the_hint_in_its_own_error() -> None:
    # Under a cassette botocore is answered by it (test_botocore); beside fakes it is not.
    with block_network(), pytest.raises(NetworkBlocked, match="tooltape blocked a connection to"):
        _boto3()


def test_getfqdn_answers_without_asking_dns() -> None:
    with block_network():
        assert socket.getfqdn(TEST_NET) == TEST_NET  # the look-up was refused, not sent


def test_localhost_names_resolve_to_loopback_only_and_reach_it() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with block_network():
            answers = socket.getaddrinfo("api.localhost", port, type=socket.SOCK_STREAM)
            assert {a[4][0] for a in answers} <= {"127.0.0.1", "::1"}
            assert socket.gethostbyname("Evil.Example.localhost.") == "127.0.0.1"
            with socket.create_connection(("tooltape.localhost", port), timeout=2):
                pass
            with socket.socket() as client:
                client.settimeout(2)
                client.connect(("x.localhost", port))  # the C resolver never sees the name


def test_a_replay_outside_pytest_is_offline_too(tmp_path: Path) -> None:
    path = tmp_path / "recorded.yaml"
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    script = f"""
import socket
from tooltape.cassettes import NetworkBlocked, use_cassette
with use_cassette({str(path)!r}, allow_unplayed=True):
    try:
        socket.create_connection(({TEST_NET!r}, 443), timeout=1)
    except NetworkBlocked as error:
        print("blocked:", error)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.startswith("blocked: tooltape blocked a connection to"), done.stderr


def test_a_child_process_is_refused_when_asked(tmp_path: Path) -> None:
    with block_network(subprocesses=True):
        with pytest.raises(SubprocessBlocked, match="curl"):
            subprocess.run(["curl", f"http://{TEST_NET}/"], check=False)
        with pytest.raises(SubprocessBlocked):
            os.system("true")

        async def spawn() -> None:
            await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")

        with pytest.raises(SubprocessBlocked):
            asyncio.run(spawn())
    assert subprocess.run([sys.executable, "-c", "pass"], check=True).returncode == 0


def test_the_block_leaves_loopback_servers_and_the_sdks_on_them_working() -> None:
    from tooltape.fake_providers import FakeProvider, serve_in_thread
    from tooltape.harness import Plan, PlannedCall

    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(
        Plan(calls=[PlannedCall("f", {"a": 1}, "c1")])
    )
    with serve_in_thread(provider) as url, block_network():
        client = openai.OpenAI(
            api_key="sk-x", base_url=url.replace("127.0.0.1", "api.localhost") + "/v1"
        )
        chunks = list(client.chat.completions.create(model="m", messages=[], stream=True))
    assert any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
