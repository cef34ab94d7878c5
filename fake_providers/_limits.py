"""What keeps a long-running fake provider server up: timeouts, size caps, a bounded log.

A :class:`ServerLimits` travels with a :class:`~tooltape.fake_providers.FakeProviderApp`;
:func:`~tooltape.fake_providers.serve_in_thread` reads it to configure uvicorn.
Uvicorn (h11) leaves three holes that :func:`guarded_protocol` closes, each for
the one connection concerned:

- it arms its keep-alive timer only after a response, so a client that connects
  and sends half its headers would hold a connection forever: the connection is
  closed when its headers are not whole within ``header_timeout`` of its first
  byte (or of the connection);
- h11's size limit counts only headers that are still incomplete, so a 100 KB
  head that arrives in one read passes: the head's bytes are counted as they
  arrive, and one over ``max_header_bytes`` gets a 431;
- it has no write timeout, so a client that reads nothing holds its connection
  and the response forever: when the connection's send buffer stays full for
  ``write_timeout`` seconds, the connection is reset (``SO_LINGER`` 0, so the
  kernel drops what is queued at once).

The app itself reads each body within ``body_timeout`` and ``max_body_bytes`` and
answers the provider's 408 or 413 otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import socket
import struct
from dataclasses import dataclass
from typing import Any

__all__ = ["ServerLimits", "guarded_protocol", "trim_log"]


@dataclass(frozen=True)
class ServerLimits:
    """Limits of a fake provider server. ``None`` turns a log limit off."""

    header_timeout: float = 10.0
    """Seconds a connection may take to send a request's line and headers."""
    body_timeout: float = 30.0
    """Seconds a request may take to send its whole body (408 after that)."""
    keep_alive_timeout: float = 5.0
    """Seconds an idle keep-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
    max_body_bytes: int = 32 * 1024 * 1024
    """A body over this many bytes gets the provider's 413 (32 MiB, Anthropic's limit)."""
    max_header_bytes: int = 64 * 1024
    """The request line and headers may not exceed this (431 and the connection closes)."""
    write_timeout: float = 30.0
    """Seconds a response may wait on a client that reads nothing before the connection
    is reset."""
    log_requests: int | None = None
    """Keep only the last N requests in each provider's log (``None``: all of them)."""
    log_body_bytes: int | None = None
    """Keep at most this many bytes of each logged body (``None``: whole bodies)."""


def trim_log(entries: list[Any], keep: int | None) -> None:
    """Drop the oldest entries of a log list beyond ``keep`` (in place)."""
    if keep is not None and len(entries) > keep:
        del entries[: len(entries) - keep]


def cut_body(request: Any, limit: int | None) -> Any:
    """``request`` with its body cut to ``limit`` bytes, for the log."""
    if limit is None or len(request.body) <= limit:
        return request
    return dataclasses.replace(request, body=request.body[:limit])


_HEAD_END = re.compile(rb"\n\r?\n")
"""Where a request head ends (h11 takes a bare LF as a line end too)."""
_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
)
_LOG = logging.getLogger("uvicorn.error")


def reset(transport: asyncio.WriteTransport) -> None:
    """Close ``transport`` with a TCP reset: the kernel drops what it still queues."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):  # already gone: aborting is all that is left
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def guarded_protocol(limits: ServerLimits) -> type[asyncio.Protocol]:
    """Uvicorn's h11 protocol, guarded by ``limits``' header and write limits."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    header_timeout, write_timeout = limits.header_timeout, limits.write_timeout
    max_head = limits.max_header_bytes

    class GuardedH11Protocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None
        _write_timer: asyncio.TimerHandle | None = None
        _head_seen = 0
        """Bytes of the current request head received so far."""
        _head_tail = b""
        """The last bytes of those, where a head end may begin."""
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._refused or self.transport.is_closing():
                return  # the 431 is out: what the client still sends is dropped
            if self.conn.their_state is h11.IDLE and self._head_too_large(data):
                self._refuse_head()
                return
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                if self._header_timer is None:  # the deadline runs from the first byte
                    self._arm()
            else:
                self._disarm()
                self._head_seen, self._head_tail = 0, b""

        def _head_too_large(self, data: bytes) -> bool:
            """Count ``data`` into the request head; whether the head is over the limit."""
            window = self._head_tail + data
            end = _HEAD_END.search(window)
            if end is not None:
                return self._head_seen + end.end() - len(self._head_tail) > max_head
            self._head_seen += len(data)
            self._head_tail = window[-2:]
            return self._head_seen > max_head

        def _refuse_head(self) -> None:
            self._refused = True
            text = f"request line and headers over {max_head} bytes (max_header_bytes)\n"
            body = text.encode()
            self.transport.write(_TOO_LARGE + b"content-length: %d\r\n\r\n" % len(body) + body)
            # Half-close, and read on until the client closes (or header_timeout): closing
            # with its bytes unread would reset the connection before it reads the 431.
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self._disarm()
            self._header_timer = self.loop.call_later(header_timeout, self.transport.close)

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._write_timer is None:
                self._write_timer = self.loop.call_later(write_timeout, self._write_stalled)

        def resume_writing(self) -> None:
            self._cancel_write_timer()
            super().resume_writing()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._cancel_write_timer()
            super().connection_lost(exc)

        def _write_stalled(self) -> None:
            self._write_timer = None
            if not self.transport.is_closing():
                _LOG.warning(
                    "tooltape: reset a connection whose client read nothing for %g s "
                    "(write_timeout)",
                    write_timeout,
                )
                reset(self.transport)

        def _cancel_write_timer(self) -> None:
            if self._write_timer is not None:
                self._write_timer.cancel()
                self._write_timer = None

        def _arm(self) -> None:
            self._header_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol
