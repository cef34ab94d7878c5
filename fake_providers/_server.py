"""Run fake providers on a real HTTP server (uvicorn) in a background thread.

Any client in any language or HTTP library can then be tested against the
same scenarios. The server binds loopback only unless told otherwise: a fake
provider answers whoever asks, and has no business on a network.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from tooltape.fake_providers._asgi import FakeProviderApp
from tooltape.fake_providers._limits import ServerLimits, guarded_protocol
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers.loopback import is_loopback
from tooltape.harness import TooltapeUsageError

__all__ = ["serve_in_thread"]

_STARTUP_TIMEOUT = 30.0
_INCOMPLETE = "ASGI callable returned without completing response."
"""What uvicorn logs when an app drops a response on purpose (a cut wire)."""


class _QuietAborts(logging.Filter):
    """Drop uvicorn's complaint about a response the app cut on purpose."""

    def __init__(self, app: FakeProviderApp) -> None:
        super().__init__()
        self._app = app

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.msg == _INCOMPLETE and self._app.take_abort())


def _wait_started(started: threading.Event, thread: threading.Thread, where: str) -> None:
    for _ in range(int(_STARTUP_TIMEOUT / 0.05)):
        if started.wait(0.05):
            return
        if not thread.is_alive():
            break
    raise RuntimeError(f"the fake provider server on {where} did not start")


def _as_app(app_or_providers: Any) -> Callable[..., Any]:
    if isinstance(app_or_providers, FakeProvider):
        return FakeProviderApp(app_or_providers)
    if isinstance(app_or_providers, Iterable) and not callable(app_or_providers):
        return FakeProviderApp(*app_or_providers)
    if callable(app_or_providers):
        return app_or_providers  # type: ignore[no-any-return]
    raise TooltapeUsageError(
        "serve_in_thread needs an ASGI app, a FakeProvider or a list of them; "
        f"got {app_or_providers!r}"
    )


@contextmanager
def serve_in_thread(
    app_or_providers: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    allow_non_loopback: bool = False,
    limits: ServerLimits | None = None,
) -> Iterator[str]:
    """Serve an ASGI app (or fake providers) with uvicorn in a background thread.

    The socket is bound before the context yields, so the URL is usable at
    once; leaving the context stops the server and joins the thread.

    Args:
        app_or_providers: An ASGI app, a :class:`FakeProvider`, or a list of providers.
        host: The address to bind; loopback (``127.0.0.1``, ``::1``, ``localhost``) only
            unless ``allow_non_loopback``.
        port: The port; 0 picks a free one.
        allow_non_loopback: Allow binding a non-loopback address (``0.0.0.0`` ...).
        limits: Timeouts, body cap and log bounds (default: the app's own, else
            :class:`ServerLimits`'s defaults); given, they replace a FakeProviderApp's.

    Yields:
        The base URL, e.g. ``http://127.0.0.1:54321`` (add ``/v1`` for OpenAI SDKs).

    Raises:
        TooltapeUsageError: A non-loopback host without ``allow_non_loopback``.
        RuntimeError: The server did not start.
    """
    import uvicorn

    if not allow_non_loopback and not is_loopback(host):
        raise TooltapeUsageError(
            f"refusing to serve fake providers on {host!r}: it is not a loopback address; "
            "use 127.0.0.1 or ::1, or pass allow_non_loopback=True to expose them"
        )
    app = _as_app(app_or_providers)
    if limits is not None and isinstance(app, FakeProviderApp):
        app.limits = limits
    limits = limits or getattr(app, "limits", None) or ServerLimits()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family)
    # Accepted connections inherit it on Linux: small stream writes go out at once
    # instead of waiting ~40 ms on the client's delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    bound_port = sock.getsockname()[1]
    started = threading.Event()

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            started.set()

    config = uvicorn.Config(
        app,
        http=guarded_protocol(limits),
        timeout_keep_alive=max(1, round(limits.keep_alive_timeout)),
        h11_max_incomplete_event_size=limits.max_header_bytes,
        loop="asyncio",
        ws="none",
        lifespan="off",
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=5,
    )
    server = _Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="tooltape-server", daemon=True
    )
    quiet = _QuietAborts(app) if isinstance(app, FakeProviderApp) else None
    error_logger = logging.getLogger("uvicorn.error")
    if quiet is not None:
        error_logger.addFilter(quiet)
    thread.start()
    try:
        _wait_started(started, thread, f"{host}:{bound_port}")
        url_host = f"[{host}]" if family == socket.AF_INET6 else host
        yield f"http://{url_host}:{bound_port}"
    finally:
        server.should_exit = True
        thread.join()
        sock.close()
        if quiet is not None:
            error_logger.removeFilter(quiet)
