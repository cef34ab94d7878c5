"""Response streams for httpx and httpx2: replay a wire lazily, or record reads as they arrive.

Both libraries share one shape (``SyncByteStream``, ``AsyncByteStream``,
``Response``, ``RemoteProtocolError``), so each class here is built once per
library. A replayed body goes out read by read, then the library's own read
error when the recording says the connection dropped. A recorded body is
passed through to the client untouched while each read is kept (decompressed
when the server compressed it, since that is what the client's decoder reads).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from functools import cache
from types import ModuleType
from typing import Any

from tooltape.cassettes._content_coding import decoded_reads
from tooltape.fake_providers.http_objects import wire_response

__all__ = ["Capture", "recording_stream", "wire_response"]


class Capture:
    """The reads of one recorded response, as the client's decoder gets them.

    Every content coding httpx undoes is undone (:mod:`~tooltape.cassettes._content_coding`)
    once the body ended; a body that cannot be decoded keeps its reads as they came.
    """

    def __init__(self, content_encoding: str, on_done: Callable[[Capture], None]) -> None:
        self.reads: list[bytes] = []
        self.aborted: str | None = None
        self.done = False
        self.decoded = False
        self._encoding = content_encoding
        self._on_done = on_done

    def add(self, chunk: bytes) -> None:
        """Keep one read."""
        if chunk:
            self.reads.append(chunk)

    def finish(self, aborted: str | None = None) -> None:
        """The body ended (or broke off with ``aborted``); report it once."""
        if self.done:
            return
        decoded = decoded_reads(self.reads, self._encoding)
        if decoded is not None:
            self.reads, self.decoded = decoded, True
        self.aborted, self.done = aborted, True
        self._on_done(self)


_CLOSED_EARLY = "tooltape: the client closed the response early and the rest could not be read"


@cache
def _recording_stream_class(http: ModuleType) -> type:
    class RecordingStream(http.SyncByteStream, http.AsyncByteStream):  # type: ignore[name-defined,misc]
        """Pass the real body through, keeping every read; drain it if the client stops.

        The client may stop reading early (its iterator is dropped, or the response is
        closed first): the rest is drained from the same iterator, once, so the cassette
        holds the whole body.
        """

        def __init__(self, real: Any, capture: Capture) -> None:
            self._real, self._capture = real, capture
            self._iterator: Any = None
            self._draining = False

        def _starts_drain(self) -> bool:
            if self._capture.done or self._draining:
                return False
            self._draining = True
            return True

        def _drain(self) -> None:
            if not self._starts_drain():
                return
            iterator = self._iterator if self._iterator is not None else iter(self._real)
            try:
                for chunk in iterator:
                    self._capture.add(chunk)
            except http.TransportError as error:
                self._capture.finish(aborted=str(error))
            except Exception:  # a stream that cannot be read any further
                self._capture.finish(aborted=_CLOSED_EARLY)
            self._capture.finish()

        async def _adrain(self) -> None:
            if not self._starts_drain():
                return
            iterator = self._iterator if self._iterator is not None else aiter(self._real)
            try:
                async for chunk in iterator:
                    self._capture.add(chunk)
            except http.TransportError as error:
                self._capture.finish(aborted=str(error))
            except Exception:
                self._capture.finish(aborted=_CLOSED_EARLY)
            self._capture.finish()

        def __iter__(self) -> Iterator[bytes]:
            self._iterator = iter(self._real)
            try:
                for chunk in self._iterator:
                    self._capture.add(chunk)
                    yield chunk
            except http.TransportError as error:
                self._capture.finish(aborted=str(error))
                raise
            except GeneratorExit:  # the client dropped its iterator: keep the whole body
                self._drain()
                raise
            self._capture.finish()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            self._iterator = aiter(self._real)
            try:
                async for chunk in self._iterator:
                    self._capture.add(chunk)
                    yield chunk
            except http.TransportError as error:
                self._capture.finish(aborted=str(error))
                raise
            except GeneratorExit:
                await self._adrain()
                raise
            self._capture.finish()

        def close(self) -> None:
            self._drain()
            self._real.close()

        async def aclose(self) -> None:
            await self._adrain()
            await self._real.aclose()

    return RecordingStream


def recording_stream(http: ModuleType, real: Any, capture: Capture) -> Any:
    """Wrap a real response stream of ``http`` (httpx or httpx2) so ``capture`` sees its reads."""
    return _recording_stream_class(http)(real, capture)
