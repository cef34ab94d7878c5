"""Serve fake providers to plain httpx clients through respx routes.

respx patches httpx (not httpx2), so this is the seam for clients built on
httpx: your own code, older SDKs, or ``openai.OpenAI(http_client=httpx.Client())``.
Each response streams the wire read by read from a lazy byte stream, so the
client sees the read boundaries, and a cut body ends with httpx's read error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import respx
from respx.mocks import HTTPCoreMocker, HTTPXMocker, Mocker
from respx.models import AllMockedAssertionError

from tooltape.fake_providers._passthrough import intercepted_below
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
from tooltape.fake_providers.http_objects import provider_request, wire_response

__all__ = ["add_respx_routes", "patch_httpx"]


def _answer(router: ProviderRouter, request: httpx.Request) -> httpx.Response:
    wire = router.dispatch(provider_request(request, request.read()), str(request.url))
    return wire_response(httpx, wire)  # type: ignore[no-any-return]


def add_respx_routes(
    respx_router: respx.Router,
    *providers: FakeProvider,
    catch_all: bool = False,
    router: ProviderRouter | None = None,
) -> ProviderRouter:
    """Add routes serving ``providers`` to a respx router (``respx.mock`` or a ``MockRouter``).

    One route per provider host; requests to a known host but an unknown path
    get the 404 naming the routes.

    Args:
        respx_router: Where to add the routes.
        providers: The fake providers.
        catch_all: Also take every other request: it goes on to another tool
            that intercepts httpx (vcrpy, another respx mock) when one is
            active, and gets the 404 naming the routes otherwise (instead of
            respx's "not mocked" error).
        router: Route through this existing router instead of a new one.

    Returns:
        The router (``.unrouted``, ``.assert_all_played()``).
    """
    if router is None:
        router = ProviderRouter(providers)
    routed = router

    def side_effect(request: httpx.Request) -> httpx.Response:
        return _answer(routed, request)

    def other_hosts(request: httpx.Request) -> httpx.Response | httpx.Request:
        if routed.serves_host(str(request.url)):
            return _answer(routed, request)
        mocker = next((m for m in Mocker.registry.values() if respx_router in m.routers), None)
        if mocker is not None and any(r is not respx_router for r in mocker.routers):
            # respx asks the next active router of its kind when one says "not mocked".
            raise AllMockedAssertionError(f"tooltape: no fake provider serves {request.url}")
        if mocker is HTTPXMocker and intercepted_below(
            "httpx",
            (httpx.HTTPTransport.handle_request, httpx.AsyncHTTPTransport.handle_async_request),
            len(HTTPCoreMocker.routers),
        ):
            return request  # respx passes a returned request on, to the transport below
        return _answer(routed, request)

    hosts = dict.fromkeys((p.host, p.port) for p in router.providers)
    for host, port in hosts:
        respx_router.route(host=host, port=port).mock(side_effect=side_effect)
    if catch_all:
        respx_router.route().mock(side_effect=other_hosts)
    return router


@contextmanager
def patch_httpx(
    *providers: FakeProvider, router: ProviderRouter | None = None, **respx_kwargs: Any
) -> Iterator[ProviderRouter]:
    """Route every httpx client's requests to ``providers`` (via ``respx.mock``).

    respx mocks at the client (``using="httpx"``), above the transports, so
    requests for other hosts go on to whatever else intercepts httpx — vcrpy and
    pytest-recording cassettes, respx routes of your own — and, with nothing
    there, get a 404 naming the routes: nothing reaches the network.

    Args:
        providers: The fake providers.
        router: Route through this existing router instead of a new one.
        respx_kwargs: Passed to ``respx.mock`` (``assert_all_called`` defaults to False,
            ``using`` to ``"httpx"``).

    Yields:
        The router (``.unrouted``, ``.assert_all_played()``).
    """
    respx_kwargs.setdefault("assert_all_called", False)
    respx_kwargs.setdefault("using", "httpx")
    with respx.mock(**respx_kwargs) as respx_router:
        yield add_respx_routes(respx_router, *providers, catch_all=True, router=router)
