"""What keeps a long-running fake provider server up: timeouts, a body cap, a bounded log.

A :class:`ServerLimits` travels with a :class:`~tooltape.fake_providers.FakeProviderApp`;
:func:`~tooltape.fake_providers.serve_in_thread` reads it to configure uvicorn.
Uvicorn (h11) arms its keep-alive timer only after a response, so a client that
connects and sends half its headers would hold a connection forever;
:func:`guarded_protocol` closes such a connection when its headers are not
whole within ``header_timeout`` of its first byte (or of the connection). The
app itself reads each body within ``body_timeout`` and ``max_body_bytes`` and
answers the provider's 408 or 413 otherwise. Other connections are not touched.
"""

from __future__ import annotations

import asyncio
import dataclasses
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
    """The request line and headers may not exceed this (h11's incomplete-event limit)."""
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


def guarded_protocol(header_timeout: float) -> type[asyncio.Protocol]:
    """Uvicorn's h11 protocol, closing connections whose headers are late."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                if self._header_timer is None:  # the deadline runs from the first byte
                    self._arm()
            else:
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

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
