"""Serve a cassette without patching transports: an httpx2 transport, respx routes, a server.

:class:`CassetteTransport` is the fake-provider httpx2 transport answering from
a cassette: pass it to ``httpx2.Client(transport=...)``. :func:`add_cassette_routes`
answers the requests of a respx router (httpx clients) from a cassette. :func:`serve_cassette`
runs the fake-provider ASGI app on 127.0.0.1 with a cassette as its router,
so any client, in any language, replays the recording over real HTTP. The
server is reached at its own address, so requests match on method, path and
query by default (not the recorded host).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooltape.cassettes._model import Cassette
from tooltape.cassettes._player import CassettePlayer
from tooltape.cassettes._store import load_cassette
from tooltape.cassettes._streams import wire_response
from tooltape.fake_providers import (
    FakeProvider,
    FakeProviderApp,
    FakeTransport,
    ProviderRequest,
    serve_in_thread,
)
from tooltape.harness import Quirk

__all__ = ["CassetteTransport", "ServedCassette", "add_cassette_routes", "serve_cassette"]

SERVER_MATCH_ON: tuple[str, ...] = ("method", "path", "query")
"""How a served cassette matches: the recorded host is not the server's."""


def _player(
    cassette: Cassette | str | Path,
    match_on: Sequence[str] | None,
    quirks: Iterable[Quirk | str | dict[str, Any]],
    seed: int,
    allow_repeats: bool,
) -> CassettePlayer:
    loaded = cassette if isinstance(cassette, Cassette) else load_cassette(cassette)
    return CassettePlayer(
        loaded, match_on=match_on, quirks=quirks, seed=seed, allow_repeats=allow_repeats
    )


class CassetteTransport(FakeTransport):
    """An httpx2 transport (sync and async) that replays a cassette.

    Example:
        >>> transport = CassetteTransport("cassettes/weather.yaml")
        >>> http_client = httpx2.Client(transport=transport)
        >>> client = openai.OpenAI(api_key="sk-test", http_client=http_client)
        >>> ...
        >>> transport.assert_all_played()
    """

    def __init__(
        self,
        cassette: Cassette | str | Path,
        *,
        match_on: Sequence[str] | None = None,
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int = 0,
        allow_repeats: bool = False,
    ) -> None:
        """Replay ``cassette`` (a path or a loaded :class:`Cassette`); see ``use_cassette``."""
        # FakeTransport routes to providers through self.router; a cassette player is one.
        self.router: CassettePlayer = _player(cassette, match_on, quirks, seed, allow_repeats)

    @property
    def player(self) -> CassettePlayer:
        """The player (play counts, unmatched requests)."""
        return self.router


def add_cassette_routes(
    respx_router: Any,
    cassette: Cassette | str | Path,
    *,
    match_on: Sequence[str] | None = None,
    quirks: Iterable[Quirk | str | dict[str, Any]] = (),
    seed: int = 0,
    allow_repeats: bool = False,
) -> CassettePlayer:
    """Answer every request of a respx router (``respx.mock``) from a cassette.

    Each response streams the recorded reads lazily; a request no recording
    matches gets the 404 naming the nearest one.

    Returns:
        The player: call ``assert_all_played()`` at the end of the test.
    """
    import httpx

    player = _player(cassette, match_on, quirks, seed, allow_repeats)

    def side_effect(request: httpx.Request) -> httpx.Response:
        provider_request = ProviderRequest(
            method=request.method,
            path=request.url.path,
            headers={k.lower(): v for k, v in request.headers.items()},
            body=request.read(),
            query=dict(request.url.params.items()),
        )
        wire = player.dispatch(provider_request, str(request.url))
        response: httpx.Response = wire_response(httpx, wire)
        return response

    respx_router.route().mock(side_effect=side_effect)
    return player


class _CassetteApp(FakeProviderApp):
    """The fake-provider ASGI app with a cassette player as its router."""

    def __init__(self, player: CassettePlayer) -> None:
        # The app wants a provider to build its router; the player replaces that router.
        super().__init__(FakeProvider("openai_chat", base_url="http://tooltape.invalid"))
        self.router = player


@dataclass(frozen=True)
class ServedCassette:
    """A cassette served on 127.0.0.1."""

    url: str
    """The base URL, e.g. ``http://127.0.0.1:54321`` (add ``/v1`` for OpenAI SDKs)."""
    player: CassettePlayer
    """The player (play counts, unmatched requests)."""


@contextmanager
def serve_cassette(
    cassette: Cassette | str | Path,
    *,
    match_on: Sequence[str] = SERVER_MATCH_ON,
    quirks: Iterable[Quirk | str | dict[str, Any]] = (),
    seed: int = 0,
    allow_repeats: bool = False,
    allow_unplayed: bool = False,
    host: str = "127.0.0.1",
    port: int = 0,
) -> Iterator[ServedCassette]:
    """Replay a cassette over real HTTP from a server on 127.0.0.1.

    Raises:
        CassetteError: The cassette cannot be read.
        UnmatchedRequest: At the end, a request matched no recording.
        UnplayedInteractions: At the end, recordings were never played (unless allowed).
    """
    player = _player(cassette, match_on, quirks, seed, allow_repeats)
    failed = False
    try:
        with serve_in_thread(_CassetteApp(player), host=host, port=port) as url:
            yield ServedCassette(url, player)
    except BaseException:
        failed = True
        raise
    finally:
        player.check_unmatched()
        if not failed and not allow_unplayed:
            player.check_unplayed()
