"""The network block: connect, UDP and DNS beyond loopback refused; loopback in every spelling.

The block is the one every replay installs, whatever the record mode: a
``once`` run over an existing cassette replays, so it blocks too.
"""

from __future__ import annotations

import socket

import pytest

from tooltape.cassettes import NetworkBlocked, block_network
from tooltape.cassettes._network import is_local

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

TEST_NET = "192.0.2.1"  # TEST-NET-1: never routed, so nothing leaves even if a guard failed


@pytest.fixture
def listener():
    servers = []

    def listen(family: int, host: str) -> int:
        server = socket.socket(family)
        server.bind((host, 0))
        server.listen()
        servers.append(server)
        return int(server.getsockname()[1])

    yield listen
    for server in servers:
        server.close()


def _ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


def test_a_connect_beyond_loopback_is_refused():
    with block_network(), pytest.raises(NetworkBlocked, match="a connection to"):
        socket.create_connection((TEST_NET, 443), timeout=1)
    with block_network(), socket.socket() as raw, pytest.raises(NetworkBlocked):
        raw.connect_ex((TEST_NET, 80))


@pytest.mark.parametrize("name", ["example.com", "api.openai.com", "localhost.example.com"])
def test_dns_lookups_are_refused(name):
    with block_network():
        for look_up in (socket.getaddrinfo, socket.gethostbyname, socket.gethostbyname_ex):
            with pytest.raises(NetworkBlocked, match="a DNS look-up of"):
                look_up(name, *((443,) if look_up is socket.getaddrinfo else ()))


def test_udp_datagrams_beyond_loopback_are_refused():
    with block_network(), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        with pytest.raises(NetworkBlocked, match="a datagram to"):
            udp.sendto(b"x", (TEST_NET, 53))
        with pytest.raises(NetworkBlocked, match="a datagram to"):
            udp.sendto(b"x", 0, (TEST_NET, 53))
        with pytest.raises(NetworkBlocked):
            udp.connect((TEST_NET, 53))
        with pytest.raises(NetworkBlocked, match="a datagram to"):
            udp.sendmsg([b"x"], [], 0, (TEST_NET, 53))


def test_loopback_is_reached_in_every_spelling(listener):
    port = listen4 = listener(socket.AF_INET, "127.0.0.1")
    with block_network():
        for host in ("127.0.0.1", "localhost", "LOCALHOST", "0.0.0.0"):
            socket.create_connection((host, port), timeout=2).close()
        other = listener(socket.AF_INET, "127.0.0.2")  # all of 127.0.0.0/8 is loopback
        socket.create_connection(("127.0.0.2", other), timeout=2).close()
        assert socket.getaddrinfo("localhost", port)
        assert socket.gethostbyname("127.0.0.1") == "127.0.0.1"
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"x", ("127.0.0.1", listen4))
    if _ipv6():
        port6 = listener(socket.AF_INET6, "::")  # dual stack: takes IPv4-mapped addresses too
        with block_network():
            for host in ("::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"):
                with socket.socket(socket.AF_INET6) as client:
                    client.settimeout(2)
                    client.connect((host, port6, 0, 0))


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("[::1]", True),
        ("::1%lo", True),
        ("Localhost.", True),
        ("api.localhost", True),
        (b"127.0.0.1", True),
        ("10.0.0.1", False),
        ("::ffff:8.8.8.8", False),
        ("192.0.2.1", False),
        ("127.0.0.1.example.com", False),
        ("example.com", False),
    ],
)
def test_what_counts_as_local(host, local):
    assert is_local(host) is local


def test_the_block_is_lifted_afterwards():
    real = socket.socket.connect, socket.getaddrinfo
    with block_network():
        assert socket.getaddrinfo is not real[1]
    assert (socket.socket.connect, socket.getaddrinfo) == real


REPLAY_IN_ONCE_MODE = """
import socket
import pytest
from tooltape.cassettes import NetworkBlocked

@pytest.mark.tooltape_cassette("existing")
def test_replay_blocks(tooltape_cassette):
    tooltape_cassette.player.play_counts[:] = [1] * len(tooltape_cassette.player.play_counts)
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(NetworkBlocked):
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("192.0.2.1", 53))
"""


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_replay_blocks_the_network_in_every_mode(pytester: pytest.Pytester, mode):
    from tooltape.cassettes import library_path

    folder = pytester.path / "cassettes" / "test_replay"
    folder.mkdir(parents=True)
    (folder / "existing.yaml").write_bytes(
        library_path("openai_golden", "openai_chat").read_bytes()
    )
    pytester.makepyfile(test_replay=REPLAY_IN_ONCE_MODE)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--tooltape-record-mode={mode}"
    )
    result.assert_outcomes(passed=1)
