"""The transport seam: route every httpx and httpx2 request to a cassette handler.

While :func:`patched_transports` is open, the real transports of both
libraries (``HTTPTransport.handle_request`` and
``AsyncHTTPTransport.handle_async_request``, as vcrpy patches them) hand each
request, cleaned of secrets, to a :class:`Handler`. The handler answers from a
recording (the wire streams lazily, read by read) or lets the request through
to the real server; then the response body streams to the client untouched
while every read is captured as it arrives, so a recording keeps the read
boundaries the client actually saw.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from types import ModuleType
from typing import Any, Protocol
from unittest import mock

from tooltape.cassettes._model import Interaction, RecordedRequest, RecordedResponse
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._streams import Capture, recording_stream, wire_response
from tooltape.fake_providers import Wire

__all__ = ["Handler", "MemoryHandler", "patched_transports", "recorded_response"]

DECODED_DROPS = frozenset({"content-encoding", "content-length"})
"""Headers a response loses when its body is stored decoded."""


class Handler(Protocol):
    """What the patched transports ask about each request."""

    scrubber: Scrubber

    def answer(self, live: RecordedRequest) -> Wire | None:
        """A wire to replay, or ``None`` to send the request to the real server."""

    def begin(self, live: RecordedRequest) -> Callable[[Interaction | None], None]:
        """Reserve a place for a recording; call the result with it (or ``None``) at the end."""


def recorded_response(
    scrubber: Scrubber, status: int, reason: str, headers: list[tuple[str, str]], capture: Capture
) -> RecordedResponse | None:
    """The response a finished capture stands for, headers cleaned (``None``: left out)."""
    kept = scrubber.clean_headers(headers, scrubber.response_headers)
    if capture.decoded:
        kept = tuple((k, v) for k, v in kept if k not in DECODED_DROPS)
    body = b"".join(capture.reads)
    boundaries = tuple(itertools.accumulate(len(r) for r in capture.reads[:-1]))
    response = RecordedResponse(status, reason, kept, body, boundaries, capture.aborted)
    scrubber.remember_minted(response)
    return scrubber.response(response)


def _live(handler: Handler, request: Any, body: bytes) -> RecordedRequest | None:
    return handler.scrubber.request(
        request.method, str(request.url), request.headers.multi_items(), body
    )


def _record(handler: Handler, http: ModuleType, live: RecordedRequest, real: Any) -> Any:
    done = handler.begin(live)
    status, reason = real.status_code, real.reason_phrase
    headers = list(real.headers.multi_items())

    def finished(capture: Capture) -> None:
        response = recorded_response(handler.scrubber, status, reason, headers, capture)
        done(None if response is None else Interaction(live, response))

    capture = Capture(real.headers.get("content-encoding", ""), finished)
    real.stream = recording_stream(http, real.stream, capture)
    return real


def _sync_patch(handler: Handler, http: ModuleType, original: Any) -> Any:
    def handle_request(self: Any, request: Any) -> Any:
        live = _live(handler, request, request.read())
        if live is None:  # a before_record_request hook leaves it out: not replayed, not recorded
            return original(self, request)
        wire = handler.answer(live)
        if wire is not None:
            return wire_response(http, wire)
        return _record(handler, http, live, original(self, request))

    return handle_request


def _async_patch(handler: Handler, http: ModuleType, original: Any) -> Any:
    async def handle_async_request(self: Any, request: Any) -> Any:
        live = _live(handler, request, await request.aread())
        if live is None:
            return await original(self, request)
        wire = handler.answer(live)
        if wire is not None:
            return wire_response(http, wire)
        return _record(handler, http, live, await original(self, request))

    return handle_async_request


def _libraries() -> list[ModuleType]:
    import httpx
    import httpx2

    return [httpx2, httpx]


@contextmanager
def patched_transports(handler: Handler) -> Iterator[None]:
    """Route every httpx, httpx2 and botocore client through ``handler`` while open.

    Clients given an explicit transport (``MockTransport``...) keep it.
    """
    with ExitStack() as stack:
        for http in _libraries():
            sync_original = http.HTTPTransport.handle_request
            async_original = http.AsyncHTTPTransport.handle_async_request
            stack.enter_context(
                mock.patch.object(
                    http.HTTPTransport, "handle_request", _sync_patch(handler, http, sync_original)
                )
            )
            stack.enter_context(
                mock.patch.object(
                    http.AsyncHTTPTransport,
                    "handle_async_request",
                    _async_patch(handler, http, async_original),
                )
            )
        from tooltape.cassettes._botocore import patched_botocore  # it imports this module

        stack.enter_context(patched_botocore(handler))
        yield


class MemoryHandler:
    """Sends every request to the real server and keeps the recordings in memory, in order."""

    def __init__(self, scrubber: Scrubber | None = None) -> None:
        """Record with ``scrubber`` (default: secrets removed, few request headers kept)."""
        self.scrubber = scrubber or Scrubber()
        self._slots: list[Interaction | bool | None] = []

    def answer(self, live: RecordedRequest) -> Wire | None:
        """Never replay."""
        return None

    def begin(self, live: RecordedRequest) -> Callable[[Interaction | None], None]:
        """Reserve the next place."""
        self._slots.append(None)
        slot = len(self._slots) - 1

        def done(interaction: Interaction | None) -> None:
            self._slots[slot] = False if interaction is None else interaction

        return done

    @property
    def interactions(self) -> list[Interaction]:
        """The finished recordings, in request order."""
        return [i for i in self._slots if isinstance(i, Interaction)]

    @property
    def pending(self) -> int:
        """Responses whose body has not been read to the end yet."""
        return sum(i is None for i in self._slots)
