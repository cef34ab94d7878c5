"""Serve fake providers to httpx2 clients (the official openai 3.x and anthropic 2.x SDKs).

:class:`FakeTransport` is an httpx2 transport, sync and async in one class like
``httpx2.MockTransport``: pass it to ``httpx2.Client(transport=...)``. It
streams each :class:`Wire` read by read, lazily, so the client's decoders see
the same read boundaries a socket would give them, and a cut body ends with
the read error httpx2 raises for a dropped connection.

:func:`patch_httpx2` routes every httpx2 client instead, as respx does for httpx:
it replaces the clients' choice of transport for a URL while the context is
open, so clients built anywhere inside it (``openai.OpenAI()``, ``ChatOpenAI``)
need no change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import httpx2

from tooltape.fake_providers._passthrough import intercepted_below
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
from tooltape.fake_providers.http_objects import provider_request, wire_response

__all__ = ["FakeTransport", "patch_httpx2"]


class FakeTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An httpx2 transport that serves fake providers (sync and async).

    Example:
        >>> provider = FakeProvider("openai_chat").stream(plan)
        >>> client = openai.OpenAI(
        ...     api_key="sk-test", http_client=httpx2.Client(transport=FakeTransport(provider))
        ... )
    """

    def __init__(self, *providers: FakeProvider, router: ProviderRouter | None = None) -> None:
        """Serve ``providers`` (or an existing ``router``'s), routed by host and path."""
        self.router = router if router is not None else ProviderRouter(providers)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Answer a sync client's request."""
        return self._answer(request, request.read())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Answer an async client's request."""
        return self._answer(request, await request.aread())

    def _answer(self, request: httpx2.Request, body: bytes) -> httpx2.Response:
        wire = self.router.dispatch(provider_request(request, body), str(request.url))
        return wire_response(httpx2, wire)  # type: ignore[no-any-return]

    def assert_all_played(self) -> None:
        """Fail when a turn went unplayed, or a request found no route or turn left."""
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        self.router.assert_all_played()


_NETWORK_TRANSPORTS = (httpx2.HTTPTransport, httpx2.AsyncHTTPTransport)
_PATCHING: list[FakeTransport] = []
"""The transports of the open :func:`patch_httpx2` contexts, outermost first."""


@contextmanager
def patch_httpx2(
    *providers: FakeProvider, router: ProviderRouter | None = None
) -> Iterator[FakeTransport]:
    """Route every httpx2 client's requests to ``providers`` while the context is open.

    Requests for the providers' hosts are answered (a path no provider serves
    gets a 404 naming the routes). Requests for other hosts go on to the
    transport that would have sent them — vcrpy's, when a vcrpy or
    pytest-recording cassette is open — and, with no such tool, get the same
    404: nothing reaches the network. Clients given an explicit transport
    (``MockTransport`` ...) keep it. Pass ``router`` to share one router with
    other transports.

    The choice is made where a client picks its transport for a URL, above the
    transports vcrpy patches, so a vcrpy cassette opened before or after this
    context leaves the providers' hosts to tooltape.

    Yields:
        The transport serving the requests (``.router.unrouted``, ``.assert_all_played()``).
    """
    transport = FakeTransport(*providers, router=router)

    def answers(url: httpx2.URL) -> bool:
        if transport.router.serves_host(str(url)):
            return True
        handlers = (
            httpx2.HTTPTransport.handle_request,
            httpx2.AsyncHTTPTransport.handle_async_request,
        )
        return not intercepted_below("httpx2", handlers)

    def choosing(previous: Callable[[Any, httpx2.URL], Any]) -> Callable[[Any, httpx2.URL], Any]:
        def _transport_for_url(self: Any, url: httpx2.URL) -> Any:
            chosen = previous(self, url)
            if isinstance(chosen, _NETWORK_TRANSPORTS) and answers(url):
                return transport
            if any(chosen is outer for outer in _PATCHING) and transport.router.serves_host(
                str(url)
            ):
                return transport  # an enclosing patch_httpx2 chose; this one serves the host
            return chosen

        return _transport_for_url

    with ExitStack() as stack:
        for client in (httpx2.Client, httpx2.AsyncClient):
            seam = choosing(client._transport_for_url)
            stack.enter_context(mock.patch.object(client, "_transport_for_url", seam))
        _PATCHING.append(transport)
        stack.callback(_PATCHING.remove, transport)
        yield transport
