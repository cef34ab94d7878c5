"""Block connections beyond the loopback interface while a tooltape test runs."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlocked", "block_network"]


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to reach a host beyond 127.0.0.1 while tooltape blocks the network."""


def _is_loopback(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other local families
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost


@contextmanager
def block_network() -> Iterator[None]:
    """Refuse ``socket.connect`` to anything but loopback addresses inside the block."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guard(address: Any) -> None:
        if not _is_loopback(address):
            raise NetworkBlocked(
                f"tooltape blocked a connection to {address!r}: tests that use tooltape may "
                "only reach 127.0.0.1 (record with --tooltape-record-mode=once, or pass "
                "--tooltape-block-network=false)"
            )

    def connect(self: socket.socket, address: Any) -> None:
        guard(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard(address)
        return real_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
