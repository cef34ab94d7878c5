"""Wire bytes as a client reads them: the body cut at its read boundaries."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["ProviderError", "ProviderRequest", "Wire"]


@dataclass(frozen=True)
class Wire:
    """A rendered HTTP response: status, headers and the body in the reads a client sees.

    ``reads`` keeps the chunk boundaries: a transport hands the client exactly
    these pieces, one per read, so split events and split UTF-8 characters reach
    the client's decoder as they would from a real socket.
    """

    reads: tuple[bytes, ...]
    """The body, one element per read."""
    status: int = 200
    """The HTTP status."""
    headers: tuple[tuple[str, str], ...] = (("content-type", "text/event-stream"),)
    """Response headers, in order."""

    @property
    def body(self) -> bytes:
        """The whole body."""
        return b"".join(self.reads)

    @property
    def boundaries(self) -> list[int]:
        """Byte offsets where one read ends and the next begins."""
        offsets, position = [], 0
        for read in self.reads[:-1]:
            position += len(read)
            offsets.append(position)
        return offsets

    @property
    def content_type(self) -> str:
        """The ``content-type`` header's value (empty when there is none)."""
        return next((v for k, v in self.headers if k.lower() == "content-type"), "")

    def iter_reads(self) -> Iterator[bytes]:
        """Yield the body read by read."""
        yield from self.reads


@dataclass(frozen=True)
class ProviderRequest:
    """An HTTP request as a fake provider sees it."""

    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    query: dict[str, str] = field(default_factory=dict)

    def json(self) -> object:
        """The body parsed as JSON (``None`` when it is empty), as ``json.loads`` parses it."""
        from tooltape.harness.json_text import loads

        return loads(self.body) if self.body else None


@dataclass(frozen=True)
class ProviderError:
    """What a real provider answers to a request it rejects."""

    status: int
    """The HTTP status, e.g. 400."""
    body: dict[str, object]
    """The JSON error body, exactly as the provider shapes it."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra response headers the provider sends with it (e.g. ``x-amzn-errortype``)."""

    @property
    def message(self) -> str:
        """The human-readable error text inside the body."""
        error = self.body.get("error")
        if isinstance(error, dict):
            return str(error.get("message", ""))
        return str(self.body.get("message", error or ""))
