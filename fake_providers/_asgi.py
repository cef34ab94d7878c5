"""An ASGI app that serves fake providers over real HTTP.

Each read of a :class:`Wire` goes out as its own body chunk, without
buffering, so a client reading the socket sees the same boundaries the mock
transports give (or finer ones, never coarser: HTTP/1.1 chunks are not
merged by h11). A cut wire (``close_mid_event``) ends the connection without
the final chunk, so the client's HTTP stack reports a dropped connection. A
client that hangs up mid-stream ends the stream quietly.

The server is reached at its own address, so requests are routed by path
only; run it with :func:`tooltape.fake_providers.serve_in_thread`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

import anyio
from anyio.lowlevel import checkpoint

from tooltape.fake_providers._framing import AbortedWire
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
from tooltape.fake_providers._wire import ProviderRequest, Wire

__all__ = ["FakeProviderApp"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class FakeProviderApp:
    """ASGI 3 application serving fake providers, routed by path."""

    def __init__(self, *providers: FakeProvider) -> None:
        """Serve ``providers`` (the first whose dialect path matches wins)."""
        self.router = ProviderRouter(providers, match_host=False)
        self.client_disconnects = 0
        """Streams the client hung up on before their end."""
        self.aborted = 0
        """Connections dropped on purpose, for cut wires."""
        self._lock = threading.Lock()
        self._unlogged_aborts = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope."""
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = await _read_request(scope, receive)
        wire = self.router.dispatch(request, _url(scope))
        await send(
            {
                "type": "http.response.start",
                "status": wire.status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in wire.headers],
            }
        )
        await self._stream(wire, receive, send)

    async def _stream(self, wire: Wire, receive: Receive, send: Send) -> None:
        gone = anyio.Event()

        async def watch_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch_disconnect)
            for read in wire.reads:
                await send({"type": "http.response.body", "body": read, "more_body": True})
                await checkpoint()  # let the watcher see a hang-up
                if gone.is_set():
                    with self._lock:
                        self.client_disconnects += 1
                    break
            else:
                if isinstance(wire, AbortedWire):
                    # Returning without the last chunk makes the server drop the connection.
                    with self._lock:
                        self.aborted += 1
                        self._unlogged_aborts += 1
                else:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
            tasks.cancel_scope.cancel()

    def take_abort(self) -> bool:
        """Claim one intentional abort (the server's log filter uses this to stay quiet)."""
        with self._lock:
            if self._unlogged_aborts:
                self._unlogged_aborts -= 1
                return True
            return False


async def _read_request(scope: Scope, receive: Receive) -> ProviderRequest:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    return ProviderRequest(
        method=scope["method"],
        path=scope["path"],
        headers={k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]},
        body=bytes(body),
        query=dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))),
    )


def _url(scope: Scope) -> str:
    host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
    if host is None and scope.get("server"):
        host = "{}:{}".format(*scope["server"])
    query = scope.get("query_string", b"").decode("latin-1")
    return f"{scope.get('scheme', 'http')}://{host or 'localhost'}{scope['path']}" + (
        f"?{query}" if query else ""
    )


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
