"""``multipart/form-data`` bodies: their fields, to scrub them and to match them.

A body is cut into parts at its delimiter lines (``CRLF--boundary``, RFC 2046
section 5.1.1); each part's headers are read by the standard library's email
parser (``Content-Disposition`` parameters, quoted or RFC 2231 encoded). The
boundary comes from the ``content-type`` header, or, when that header was not
kept, from the body's first line.

A client picks a new random boundary for every request, so a multipart
request is compared on :func:`fields` (name, file name, content type and
value of each part, in order), never on its bytes.
"""

from __future__ import annotations

import email.parser
import email.policy
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Multipart", "boundary_of", "fields", "parse_multipart"]

_CRLF = b"\r\n"
_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.HTTP)


@dataclass(frozen=True)
class Part:
    """One part: its raw text (delimiter line excluded) and where its value starts."""

    raw: bytes
    value_at: int
    name: str | None
    filename: str | None
    content_type: str | None

    @property
    def value(self) -> bytes:
        """The part's value (its body)."""
        return self.raw[self.value_at :]


@dataclass(frozen=True)
class Multipart:
    """A parsed body: what precedes the first part, the parts, and the closing delimiter on."""

    boundary: bytes
    preamble: bytes
    parts: tuple[Part, ...]
    closing: bytes

    def rebuilt(self, keep: Callable[[Part], bytes | None]) -> bytes:
        """The body with each part's value replaced by ``keep(part)`` (``None``: dropped)."""
        pieces = [self.preamble]
        for part in self.parts:
            value = keep(part)
            if value is not None:
                pieces.append(part.raw[: part.value_at] + value)
        pieces.append(self.closing)
        return (_CRLF + b"--" + self.boundary).join(pieces).removeprefix(_CRLF)


def boundary_of(content_type: str, body: bytes) -> bytes | None:
    """The boundary of a multipart body (``None``: not a multipart body)."""
    if content_type:
        if not content_type.strip().lower().startswith("multipart/"):
            return None
        header = _HEADERS.parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode())
        boundary = header.get_param("boundary")
        return boundary.encode() if isinstance(boundary, str) and boundary else None
    first, _, _ = body.partition(_CRLF)  # no header kept: a body that opens with a delimiter
    if first.startswith(b"--") and len(first) > 2 and body.rstrip().endswith(first + b"--"):
        return first[2:].rstrip(b" \t")
    return None


def _part(piece: bytes) -> Part | None:
    line_end = piece.find(_CRLF)
    if line_end < 0 or piece[:line_end].strip(b" \t"):  # only padding may follow a delimiter
        return None
    start = line_end + len(_CRLF)
    if piece.startswith(_CRLF, start):
        head, value_at = b"", start + len(_CRLF)
    else:
        end = piece.find(_CRLF * 2, start)
        if end < 0:
            return None
        head, value_at = piece[start:end], end + 2 * len(_CRLF)
    headers = _HEADERS.parsebytes(head + _CRLF * 2)
    disposition = headers.get("content-disposition")
    params = getattr(disposition, "params", {}) if disposition is not None else {}
    return Part(
        raw=piece,
        value_at=value_at,
        name=params.get("name"),
        filename=params.get("filename"),
        content_type=headers.get_content_type() if "content-type" in headers else None,
    )


def parse_multipart(content_type: str, body: bytes) -> Multipart | None:
    """The parts of a multipart body (``None``: not multipart, or not well formed)."""
    boundary = boundary_of(content_type, body)
    if boundary is None:
        return None
    pieces = (_CRLF + body).split(_CRLF + b"--" + boundary)
    if len(pieces) < 2 or not pieces[-1].startswith(b"--"):
        return None
    parts = [_part(piece) for piece in pieces[1:-1]]
    if any(p is None for p in parts):
        return None
    return Multipart(boundary, pieces[0], tuple(p for p in parts if p is not None), pieces[-1])


Field = tuple[str | None, str | None, str | None, bytes]


def fields(content_type: str, body: bytes) -> tuple[Field, ...] | None:
    """What a multipart body says, boundary aside: each part's name, file name, type, value."""
    parsed = parse_multipart(content_type, body)
    if parsed is None:
        return None
    return tuple((p.name, p.filename, p.content_type, p.value) for p in parsed.parts)
