"""Block the network beyond the loopback interface while a tooltape test runs.

Guarded: ``connect``/``connect_ex`` (TCP and connected UDP), ``sendto`` and
``sendmsg`` (unconnected UDP), and name resolution (``getaddrinfo``,
``gethostbyname``, ``gethostbyname_ex``), so neither a request nor a DNS query
leaves the machine. Allowed: every spelling of loopback (``127.0.0.0/8``,
``::1``, ``::ffff:127.0.0.1``, ``localhost``, any case, a trailing dot, an
IPv6 scope), the unspecified address (which reaches this host only), Unix
sockets, and resolving IP literals (no query is sent for them).

Why not pytest-socket: it guards ``connect`` only (not DNS, not UDP
``sendto``), compares hosts against a list of literal strings (so
``::ffff:127.0.0.1`` or ``127.0.0.2`` must each be listed) and, installed, is a
plugin of its own with session-wide options; tooltape needs a block it turns on
per test, around replays.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlocked", "block_network", "is_local"]

_HINT = (
    "tests that use tooltape may only reach the loopback interface while replaying or "
    "faking (record with --tooltape-record-mode=once; fakes: --tooltape-block-network=false)"
)


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to reach or resolve a host beyond loopback while tooltape blocks the network."""


def _local_name(host: str) -> bool:
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def is_local(host: Any) -> bool:
    """True for a loopback, unspecified or ``localhost`` host, in any spelling."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host == "" or _local_name(host):
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0].strip("[]"))
    except ValueError:
        return False  # a name other than localhost
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _is_literal(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    try:
        ipaddress.ip_address(str(host).split("%", 1)[0].strip("[]"))
    except ValueError:
        return False
    return True


def _allowed(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other local families
    return is_local(address[0])


def _refuse(what: str, target: Any) -> NetworkBlocked:
    shown = repr(target)[:120]
    return NetworkBlocked(f"tooltape blocked {what} {shown}: {_HINT}")


@contextmanager
def block_network() -> Iterator[None]:
    """Refuse connections, UDP sends and DNS look-ups beyond loopback inside the block."""
    real = socket.socket
    saved_methods = {name: getattr(real, name) for name in ("connect", "connect_ex", "sendto")}
    has_sendmsg = hasattr(real, "sendmsg")
    if has_sendmsg:
        saved_methods["sendmsg"] = real.sendmsg
    saved_functions = {
        name: getattr(socket, name) for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex")
    }

    def connect(self: socket.socket, address: Any) -> None:
        if not _allowed(address):
            raise _refuse("a connection to", address)
        saved_methods["connect"](self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not _allowed(address):
            raise _refuse("a connection to", address)
        result: int = saved_methods["connect_ex"](self, address)
        return result

    def sendto(self: socket.socket, data: Any, *rest: Any) -> int:
        if rest and not _allowed(rest[-1]):
            raise _refuse("a datagram to", rest[-1])
        result: int = saved_methods["sendto"](self, data, *rest)
        return result

    def sendmsg(self: socket.socket, *args: Any) -> int:
        if len(args) >= 4 and args[3] is not None and not _allowed(args[3]):
            raise _refuse("a datagram to", args[3])
        result: int = saved_methods["sendmsg"](self, *args)
        return result

    def resolver(name: str) -> Any:
        def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
            if not is_local(host) and not _is_literal(host):
                raise _refuse("a DNS look-up of", host)
            return saved_functions[name](host, *args, **kwargs)

        return resolve

    patched_methods = {"connect": connect, "connect_ex": connect_ex, "sendto": sendto}
    if has_sendmsg:
        patched_methods["sendmsg"] = sendmsg
    for name, method in patched_methods.items():
        setattr(real, name, method)
    for name in saved_functions:
        setattr(socket, name, resolver(name))
    try:
        yield
    finally:
        for name, method in saved_methods.items():
            setattr(real, name, method)
        for name, function in saved_functions.items():
            setattr(socket, name, function)
