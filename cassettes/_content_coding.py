"""Undo a body's content codings, so secrets are swept (and bodies stored) as the client reads them.

The codings are those httpx decodes (see ``Response.iter_bytes``): ``gzip`` (and
``x-gzip``), ``deflate`` (zlib-wrapped or raw), ``br`` when ``brotli`` or
``brotlicffi`` is importable, ``zstd`` when ``compression.zstd`` (Python 3.14),
``backports.zstd`` or ``zstandard`` is. Stacked codings (``gzip, gzip``) are
undone last applied first; ``identity`` is nothing to undo.

A body with a coding that cannot be undone here (an unknown one, or ``br``
without a brotli library) is kept as it came: the client's library cannot
decode it either, so it read those bytes too.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["ContentDecoder", "codings", "decode_body"]

_Step = Callable[[bytes], bytes]


def codings(content_encoding: str) -> list[str]:
    """The codings a ``content-encoding`` value names, in the order they were applied."""
    named = [c.strip().lower() for c in content_encoding.split(",")]
    return [c for c in named if c and c != "identity"]


def _module(*names: str) -> Any:
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


class _Zlib:
    def __init__(self, wbits: int, raw_fallback: bool = False) -> None:
        self._wbits = wbits
        self._inner = zlib.decompressobj(wbits)
        self._raw_fallback = raw_fallback  # deflate: zlib-wrapped, or raw as some servers send
        self._started = False

    def __call__(self, data: bytes) -> bytes:
        if self._raw_fallback and not self._started and data:
            self._started = True
            try:
                return self._inner.decompress(data)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        out = self._inner.decompress(data)
        # gzip allows members one after another: start again on what is left.
        while self._inner.eof and self._inner.unused_data:
            rest = self._inner.unused_data
            self._inner = zlib.decompressobj(self._wbits)
            out += self._inner.decompress(rest)
        return out

    def flush(self) -> bytes:
        return bytes(self._inner.flush())


class _Zstd:
    """zstd frames one after another, with whichever library is installed."""

    def __init__(self, new: Callable[[], Any]) -> None:
        self._new = new
        self._inner = new()

    def __call__(self, data: bytes) -> bytes:
        if not data:  # zstandard refuses any call once a frame ended
            return b""
        out = bytes(self._inner.decompress(data))
        while self._inner.eof and self._inner.unused_data:
            rest = self._inner.unused_data
            self._inner = self._new()
            out += self._inner.decompress(rest)
        return out

    def flush(self) -> bytes:
        return b""


class _Brotli:
    def __init__(self, brotli: Any) -> None:
        self._inner = brotli.Decompressor()
        self._process = getattr(self._inner, "process", None) or self._inner.decompress

    def __call__(self, data: bytes) -> bytes:
        return bytes(self._process(data)) if data else b""

    def flush(self) -> bytes:
        return b""


def _zstd_factory() -> Callable[[], Any] | None:
    stdlib = _module("compression.zstd", "backports.zstd")
    if stdlib is not None:
        return stdlib.ZstdDecompressor  # type: ignore[no-any-return]
    zstandard = _module("zstandard")
    if zstandard is None:
        return None
    return lambda: zstandard.ZstdDecompressor().decompressobj()


def _step(coding: str) -> Any:
    if coding in ("gzip", "x-gzip"):
        return _Zlib(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _Zlib(zlib.MAX_WBITS, raw_fallback=True)
    if coding == "br":
        brotli = _module("brotli", "brotlicffi")
        return None if brotli is None else _Brotli(brotli)
    if coding == "zstd":
        factory = _zstd_factory()
        return None if factory is None else _Zstd(factory)
    return None


class ContentDecoder:
    """Undoes stacked content codings read by read (``steps`` empty: nothing to undo)."""

    def __init__(self, content_encoding: str) -> None:
        """Decode what ``content_encoding`` names; :attr:`possible` is false when it cannot."""
        self.codings = codings(content_encoding)
        steps = [_step(c) for c in reversed(self.codings)]
        self.possible = all(s is not None for s in steps)
        self._steps = steps if self.possible else []

    def __bool__(self) -> bool:
        return bool(self._steps)

    def decode(self, data: bytes) -> bytes:
        """The decoded bytes one more read gives (raises what the decompressor raises)."""
        for step in self._steps:
            data = step(data)
        return data

    def flush(self) -> bytes:
        """What is left once the body ended."""
        data = b""
        for step in self._steps:
            data = step(data) + step.flush()
        return data


def decode_body(body: bytes, content_encoding: str) -> bytes | None:
    """``body`` with its codings undone; ``None`` when there are none or they cannot be."""
    decoder = ContentDecoder(content_encoding)
    if not decoder:
        return None
    try:
        return decoder.decode(body) + decoder.flush()
    except Exception:  # zlib.error, brotli.error, ZstdError...: a body that is not what it says
        return None


def decoded_reads(reads: Iterable[bytes], content_encoding: str) -> list[bytes] | None:
    """Each read decoded in turn (empty results dropped); ``None`` when it cannot be."""
    decoder = ContentDecoder(content_encoding)
    if not decoder:
        return None
    try:
        out = [decoder.decode(r) for r in reads]
        out.append(decoder.flush())
    except Exception:
        return None
    return [piece for piece in out if piece]
