"""An ASGI app that serves fake providers over real HTTP.

Each read of a :class:`Wire` goes out as its own body chunk, without
buffering, so a client reading the socket sees the same boundaries the mock
transports give (or finer ones, never coarser: HTTP/1.1 chunks are not
merged by h11). A cut wire (``close_mid_event``) ends the connection without
the final chunk, so the client's HTTP stack reports a dropped connection. A
client that hangs up mid-stream ends the stream quietly.

The server is reached at its own address, so requests are routed by path
only; run it with :func:`tooltape.fake_providers.serve_in_thread`.

The app's :class:`~tooltape.fake_providers.ServerLimits` guard it for long runs:
a body over ``max_body_bytes`` (by ``content-length`` or as it arrives) gets the
dialect's 413, a body not whole within ``body_timeout`` its 408, both with
``connection: close``; the providers' request logs keep what ``log_requests``
and ``log_body_bytes`` allow.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

import anyio
from anyio.lowlevel import checkpoint

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._limits import ServerLimits, trim_log
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.framing import AbortedWire
from tooltape.fake_providers.http_objects import json_wire

__all__ = ["FakeProviderApp"]

HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-connection", "te", "trailer"}
    | {"transfer-encoding", "upgrade"}
)
"""Fields about one connection (https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1): a
wire replayed from a recording may hold the recorded ones; the server frames each
body itself and leaves them out, all but ``connection: close`` (uvicorn then closes
the connection after the response, as a refusal asks)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class FakeProviderApp:
    """ASGI 3 application serving fake providers, routed by path."""

    def __init__(self, *providers: FakeProvider, limits: ServerLimits | None = None) -> None:
        """Serve ``providers`` (the first whose dialect path matches wins) within ``limits``."""
        self.router = ProviderRouter(providers, match_host=False)
        self._limits = ServerLimits()
        self.limits = limits or ServerLimits()
        self.client_disconnects = 0
        """Streams the client hung up on before their end."""
        self.aborted = 0
        """Connections dropped on purpose, for cut wires."""
        self._lock = threading.Lock()
        self._unlogged_aborts = 0

    @property
    def limits(self) -> ServerLimits:
        """The server's limits (setting them applies the log limits to every provider)."""
        return self._limits

    @limits.setter
    def limits(self, limits: ServerLimits) -> None:
        self._limits = limits
        for provider in self.router.providers:
            provider.limit_log(limits.log_requests, limits.log_body_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope."""
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = await _read_body(scope, receive, self.limits)
        if body is None:
            return  # the client left before its body was whole: no one to answer
        if isinstance(body, BodyProblem):
            wire = self._refusal(scope, body)
        else:
            wire = self.router.dispatch(_request(scope, body), _url(scope))
            self._trim_router_logs()
        headers = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in wire.headers
            if k.lower() not in HOP_BY_HOP or (k.lower(), v.lower()) == ("connection", "close")
        ]
        await send({"type": "http.response.start", "status": wire.status, "headers": headers})
        await self._stream(wire, receive, send)

    def _refusal(self, scope: Scope, problem: BodyProblem) -> Wire:
        """The provider's 413/408 for a body too large or too slow; the connection then closes."""
        provider = self.router.provider_for(scope["method"], _url(scope))
        if provider is not None:
            error = provider.dialect.body_error(problem)
        else:
            message = f"tooltape: request body refused ({problem.kind}: {problem.detail})"
            error = ProviderError(problem.status, {"error": {"message": message}})
        return json_wire(error.status, error.body, (*error.headers, ("connection", "close")))

    def _trim_router_logs(self) -> None:
        keep = self.limits.log_requests
        trim_log(self.router.unrouted, keep)
        unmatched = getattr(self.router, "unmatched", None)  # a cassette player's
        if isinstance(unmatched, list):
            trim_log(unmatched, keep)

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


async def _read_body(
    scope: Scope, receive: Receive, limits: ServerLimits
) -> bytes | BodyProblem | None:
    """The whole body; a problem when too large or too slow; ``None`` when the client left."""
    limit = limits.max_body_bytes
    too_large = BodyProblem("too_large", f"more than {limit} bytes")
    declared = next((v for k, v in scope["headers"] if k == b"content-length"), b"0")
    if declared.strip().isdigit() and int(declared) > limit:
        return too_large
    body = bytearray()
    with anyio.move_on_after(limits.body_timeout):
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            body += message.get("body", b"")
            if len(body) > limit:
                return too_large
            if not message.get("more_body", False):
                return bytes(body)
    return BodyProblem("timeout", f"not whole after {limits.body_timeout:g} s")


def _request(scope: Scope, body: bytes) -> ProviderRequest:
    return ProviderRequest(
        method=scope["method"],
        path=scope["path"],
        headers={k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]},
        body=body,
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
