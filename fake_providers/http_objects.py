"""Wires to httpx/httpx2 responses and requests to :class:`ProviderRequest`: written once.

httpx and httpx2 share one shape (``SyncByteStream``, ``AsyncByteStream``,
``Response``, ``RemoteProtocolError``), so the byte stream class is built once
per library. A wire's body goes out read by read, lazily, so the client's
decoders see the read boundaries a socket would give them; a cut wire ends
with the library's own read error. Every transport (httpx2, respx) and the
cassette player answer through :func:`wire_response`.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from functools import cache
from types import ModuleType
from typing import Any

from tooltape.fake_providers._wire import ProviderRequest, Wire
from tooltape.fake_providers.framing import AbortedWire

__all__ = ["json_wire", "provider_request", "wire_response"]


@cache
def _wire_stream_class(http: ModuleType) -> type:
    class WireStream(http.SyncByteStream, http.AsyncByteStream):  # type: ignore[name-defined,misc]
        """A wire's body, one read per chunk, then the read error if it was cut."""

        def __init__(self, wire: Wire) -> None:
            self._wire = wire

        def __iter__(self) -> Iterator[bytes]:
            yield from self._wire.reads
            if isinstance(self._wire, AbortedWire):
                raise http.RemoteProtocolError(self._wire.error)

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for read in self._wire.reads:
                yield read
            if isinstance(self._wire, AbortedWire):
                raise http.RemoteProtocolError(self._wire.error)

    return WireStream


def wire_response(http: ModuleType, wire: Wire, reason: str | None = None) -> Any:
    """An ``http.Response`` streaming ``wire`` lazily (``http`` is httpx or httpx2)."""
    extensions = {"reason_phrase": reason.encode("ascii", "replace")} if reason else None
    return http.Response(
        wire.status,
        headers=list(wire.headers),
        stream=_wire_stream_class(http)(wire),
        extensions=extensions,
    )


def provider_request(request: Any, body: bytes) -> ProviderRequest:
    """An httpx or httpx2 request (its ``body`` already read) as a fake provider sees it."""
    url = request.url
    return ProviderRequest(
        method=request.method,
        path=url.path,
        headers=_header_dict(request.headers),
        body=body,
        query=dict(url.params.items()) if url.query else {},
    )


def _header_dict(headers: Any) -> dict[str, str]:
    """``{name.lower(): value for name, value in headers.items()}`` in one pass.

    ``Headers.items()`` joins a repeated header's values with ``", "``, as here, but
    finds the headers' encoding once per header; it is found once here.
    """
    encoding = headers.encoding
    merged: dict[str, str] = {}
    for raw_name, raw_value in headers.raw:
        name, value = raw_name.decode(encoding).lower(), raw_value.decode(encoding)
        merged[name] = f"{merged[name]}, {value}" if name in merged else value
    return merged


def json_wire(
    status: int, body: Mapping[str, Any], headers: tuple[tuple[str, str], ...] = ()
) -> Wire:
    """A JSON response (an HTTP error body, say) as a one-read wire, with extra ``headers``."""
    content = json.dumps(body).encode()
    base = (("content-type", "application/json"), ("content-length", str(len(content))))
    return Wire(reads=(content,), status=status, headers=base + tuple(headers))
