"""Block the network beyond the loopback interface while tooltape replays or fakes.

Guarded, in ``socket`` and in the C module ``_socket`` under it:
``connect``/``connect_ex`` (TCP and connected UDP), ``sendto`` and ``sendmsg``
(unconnected UDP), name resolution (``getaddrinfo``, ``gethostbyname``,
``gethostbyname_ex``) and reverse look-ups (``gethostbyaddr``,
``getnameinfo``, and so ``getfqdn``), so neither a request nor a DNS query
leaves the machine. Allowed: every spelling of loopback (``127.0.0.0/8``,
``::1``, ``::ffff:127.0.0.1``), the unspecified address (which reaches this
host only), Unix sockets, and resolving IP literals (no query is sent for
them). ``localhost`` and every ``*.localhost`` name (RFC 6761) resolve to
loopback here, never through DNS, and a connect to one goes to loopback.

A child process is outside Python's reach: ``curl`` or another interpreter
started in the block has the network. ``block_network(subprocesses=True)``
(``--tooltape-block-subprocess``) refuses to start one through ``subprocess``
(``run``, ``Popen``, asyncio's subprocesses), ``os.system`` and
``os.posix_spawn``; ``os.fork`` followed by ``exec`` is not caught.

boto3 turns a refused connection into ``EndpointConnectionError``, whose message
drops the reason; inside the block, botocore raises :class:`NetworkBlocked`
itself (chained from botocore's error), so the hint reaches the test.

Why not pytest-socket: it guards ``connect`` only (not DNS, not UDP
``sendto``, not ``_socket``), compares hosts against a list of literal strings
(so ``::ffff:127.0.0.1`` or ``127.0.0.2`` must each be listed) and, installed,
is a plugin of its own with session-wide options; tooltape needs a block it
turns on per test, around replays, and in the library API outside pytest.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from tooltape.cassettes._botocore_send import Send, wrapped_botocore_send

__all__ = ["NetworkBlocked", "SubprocessBlocked", "block_network", "is_local"]

_HINT = (
    "tests that use tooltape may only reach the loopback interface while replaying or "
    "faking (record with --tooltape-record-mode=once; fakes: --tooltape-block-network=false)"
)
_SUBPROCESS_HINT = "a child process would have the network (--tooltape-block-subprocess=false)"


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to reach or resolve a host beyond loopback while tooltape blocks the network."""


class SubprocessBlocked(PermissionError):
    """A test tried to start a child process while tooltape blocks them (it would be online)."""


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


def _name(host: Any) -> str | None:
    """``host`` as text when it is a name, not an IP literal (``None`` for a literal)."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return None
    try:
        ipaddress.ip_address(host.split("%", 1)[0].strip("[]"))
    except ValueError:
        return host
    return None


def _loopback_name(host: Any) -> bool:
    name = _name(host)
    return name is not None and _local_name(name)


def _allowed(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other local families
    return is_local(address[0])


def _to_loopback(family: int, address: Any) -> Any:
    """A ``(localhost name, port...)`` address with the name replaced by a loopback literal."""
    if isinstance(address, tuple) and address and _loopback_name(address[0]):
        return ("::1" if family == socket.AF_INET6 else "127.0.0.1", *address[1:])
    return address


def _refuse(what: str, target: Any) -> NetworkBlocked:
    shown = repr(target)[:120]
    return NetworkBlocked(f"tooltape blocked {what} {shown}: {_HINT}")


def _loopback_addrinfo(real: Any, host: Any, *args: Any, **kwargs: Any) -> Any:
    """``getaddrinfo`` of a localhost name: loopback literals' answers, with no query sent."""
    answers: list[Any] = []
    for literal in ("127.0.0.1", "::1"):
        try:
            answers += real(literal, *args, **kwargs)
        except OSError:  # the family asked for excludes it, or no IPv6 here
            continue
    if not answers:
        raise socket.gaierror(socket.EAI_NONAME, f"{host!r} resolves to loopback only")
    return answers


def _guarded_functions(real: dict[str, Any]) -> dict[str, Any]:
    """The resolver functions, refusing look-ups beyond loopback."""

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if _loopback_name(host):
            return _loopback_addrinfo(real["getaddrinfo"], host, *args, **kwargs)
        if _name(host) is not None:
            raise _refuse("a DNS look-up of", host)
        return real["getaddrinfo"](host, *args, **kwargs)

    def gethostbyname(host: Any) -> Any:
        if _loopback_name(host):
            return "127.0.0.1"
        if _name(host) is not None:
            raise _refuse("a DNS look-up of", host)
        return real["gethostbyname"](host)

    def gethostbyname_ex(host: Any) -> Any:
        if _loopback_name(host):
            return (host, [], ["127.0.0.1"])
        if _name(host) is not None:
            raise _refuse("a DNS look-up of", host)
        return real["gethostbyname_ex"](host)

    def gethostbyaddr(address: Any) -> Any:
        if _loopback_name(address) or (_name(address) is None and is_local(address)):
            return ("localhost", [], ["127.0.0.1" if ":" not in str(address) else "::1"])
        raise _refuse("a reverse DNS look-up of", address)

    def getnameinfo(address: Any, flags: int) -> Any:
        host = address[0] if isinstance(address, tuple) and address else address
        if _name(host) is not None and not _loopback_name(host):
            raise _refuse("a DNS look-up of", host)  # even a numeric answer resolves it first
        if not is_local(host) and not flags & socket.NI_NUMERICHOST:
            raise _refuse("a reverse DNS look-up of", host)
        if is_local(host):  # a loopback address is named without a query
            flags |= socket.NI_NUMERICHOST
        return real["getnameinfo"](_to_loopback(socket.AF_INET, address), flags)

    return {
        "getaddrinfo": getaddrinfo,
        "gethostbyname": gethostbyname,
        "gethostbyname_ex": gethostbyname_ex,
        "gethostbyaddr": gethostbyaddr,
        "getnameinfo": getnameinfo,
    }


def _guarded_methods(real: dict[str, Any]) -> dict[str, Any]:
    """The socket methods that send, refusing destinations beyond loopback."""

    def connect(self: Any, address: Any) -> None:
        if not _allowed(address):
            raise _refuse("a connection to", address)
        real["connect"](self, _to_loopback(self.family, address))

    def connect_ex(self: Any, address: Any) -> int:
        if not _allowed(address):
            raise _refuse("a connection to", address)
        result: int = real["connect_ex"](self, _to_loopback(self.family, address))
        return result

    def sendto(self: Any, data: Any, *rest: Any) -> int:
        if rest and not _allowed(rest[-1]):
            raise _refuse("a datagram to", rest[-1])
        if rest:
            rest = (*rest[:-1], _to_loopback(self.family, rest[-1]))
        result: int = real["sendto"](self, data, *rest)
        return result

    def sendmsg(self: Any, *args: Any) -> int:
        if len(args) >= 4 and args[3] is not None and not _allowed(args[3]):
            raise _refuse("a datagram to", args[3])
        result: int = real["sendmsg"](self, *args)
        return result

    methods = {"connect": connect, "connect_ex": connect_ex, "sendto": sendto}
    if "sendmsg" in real:
        methods["sendmsg"] = sendmsg
    return methods


_FUNCTIONS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo")


def _unhidden(original: Send) -> Send:
    """Botocore's send, raising :class:`NetworkBlocked` where its own error would hide it."""

    def send(self: Any, request: Any) -> Any:
        try:
            return original(self, request)
        except Exception as error:
            cause: BaseException | None = error
            while cause is not None and not isinstance(cause, NetworkBlocked):
                cause = cause.__cause__ or cause.__context__
            if cause is None:
                raise
            raise NetworkBlocked(str(cause)) from error

    return send


def _refuse_child(*args: Any, **kwargs: Any) -> Any:
    shown = repr(args[1] if len(args) > 1 else args[0] if args else "")[:120]
    raise SubprocessBlocked(f"tooltape blocked starting {shown}: {_SUBPROCESS_HINT}")


@contextmanager
def _blocked_subprocesses() -> Iterator[None]:
    import os
    import subprocess

    spawners: dict[str, Any] = {
        name: _refuse_child
        for name in ("system", "posix_spawn", "posix_spawnp")
        if hasattr(os, name)
    }
    with (
        mock.patch.object(subprocess.Popen, "_execute_child", _refuse_child),
        mock.patch.multiple(os, **spawners),
    ):
        yield


@contextmanager
def block_network(*, subprocesses: bool = False) -> Iterator[None]:
    """Refuse connections, datagrams and DNS look-ups beyond loopback inside the block.

    Args:
        subprocesses: Also refuse to start child processes (they would be online),
            raising :class:`SubprocessBlocked`.
    """
    import _socket

    real_methods = {
        name: getattr(socket.socket, name) for name in ("connect", "connect_ex", "sendto")
    }
    if hasattr(socket.socket, "sendmsg"):
        real_methods["sendmsg"] = socket.socket.sendmsg
    methods = _guarded_methods(real_methods)
    functions = _guarded_functions({name: getattr(_socket, name) for name in _FUNCTIONS})
    # ``_socket.socket`` is a C type whose methods cannot be replaced: code that makes
    # one directly gets a guarded subclass (``socket.socket`` still inherits the C type).
    guarded_type = type("socket", (_socket.socket,), {**methods, "__module__": "_socket"})
    with ExitStack() as stack:
        stack.enter_context(mock.patch.multiple(socket.socket, **methods))
        stack.enter_context(mock.patch.multiple(socket, **functions))
        stack.enter_context(mock.patch.multiple(_socket, **functions, socket=guarded_type))
        stack.enter_context(wrapped_botocore_send(_unhidden))
        if subprocesses:
            stack.enter_context(_blocked_subprocesses())
        yield
