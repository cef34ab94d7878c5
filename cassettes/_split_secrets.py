"""A secret the wire splits across events: found in the joined fragments, masked piece by piece.

A streamed response sends a text or a tool call's arguments as fragments,
one per event (``delta.content``, ``function.arguments``, ``partial_json``...).
A secret the model echoes can be cut across them, so no single event holds it,
while the client joins the pieces back into the whole secret.

Each line-framed event (an SSE ``data:`` line, an NDJSON line) is read for its
JSON strings and where they sit in the body. Strings at the same place in the
events (the same keys, with a list item named by its ``index`` field when it
has one, as parallel tool calls and Anthropic's content blocks are) form one
fragment stream; the fragments of a stream are joined, the secrets are looked
for in the join (in every form :class:`~tooltape.cassettes._secret_forms.SecretFinder`
knows), and the bytes each piece holds of a secret are masked in place, ``*``
for each byte, so every offset stays valid and replay joins masked pieces.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tooltape.cassettes._secret_forms import SecretFinder
from tooltape.harness.json_text import loads

__all__ = ["FragmentStream", "fragment_streams", "joined_texts", "mask_split", "split_leaks"]

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)
_DATA = re.compile(rb"^data: ?", re.MULTILINE)
_MAX_DEPTH = 128

Path = tuple[object, ...]


@dataclass
class _Frame:
    kind: bytes
    key: str | None = None
    expect_key: bool = True
    count: int = 0
    index: int | None = None
    leaves: list[tuple[Path, int, int]] = field(default_factory=list)


def _place(frame: _Frame) -> Path:
    return (frame.key,) if frame.kind == b"{" else ("[", frame.count)


def _string_leaves(data: bytes, start: int, end: int) -> list[tuple[Path, int, int]]:
    """Each string value in one JSON document: its place and its raw span (quotes excluded)."""
    stack: list[_Frame] = []
    done: list[tuple[Path, int, int]] | None = None
    for token in _TOKEN.finditer(data, start, end):
        text, at = token.group(), token.start()
        if done is not None:
            return []  # more than one document on the line
        top = stack[-1] if stack else None
        if text in (b"{", b"["):
            if len(stack) >= _MAX_DEPTH:
                return []
            stack.append(_Frame(text))
        elif text in (b"}", b"]"):
            if top is None or {b"{": b"}", b"[": b"]"}[top.kind] != text:
                return []
            stack.pop()
            # A list item with an ``index`` field is named by it, not by its position.
            label: Path = ("#", top.index) if top.index is not None else ()
            if stack and not (label and stack[-1].kind == b"["):
                label = _place(stack[-1]) + label
            moved = [(label + path, a, b) for path, a, b in top.leaves]
            if stack:
                stack[-1].leaves += moved
            else:
                done = moved
        elif top is None:
            return []  # a bare scalar document: nothing split in it
        elif text == b":":
            top.expect_key = False
        elif text == b",":
            top.expect_key, top.count = True, top.count + 1
        elif text.startswith(b'"'):
            if top.kind == b"{" and top.expect_key:
                try:
                    top.key = loads(text)
                except ValueError:
                    return []
            else:
                top.leaves.append((_place(top), at + 1, token.end() - 1))
        elif top.kind == b"{" and top.key == "index" and text.isdigit():
            top.index = int(text)
    return done or []


def _events(body: bytes) -> Iterator[tuple[int, int]]:
    """The span of each line-framed JSON event: SSE ``data:`` payloads, NDJSON lines."""
    at = 0
    while at < len(body):
        newline = body.find(b"\n", at)
        stop = len(body) if newline < 0 else newline
        line_end = stop - 1 if stop > at and body[stop - 1 : stop] == b"\r" else stop
        prefix = _DATA.match(body, at, line_end)
        start = prefix.end() if prefix else at
        if body[start:line_end].lstrip()[:1] in (b"{", b"["):
            yield start, line_end
        at = stop + 1


@dataclass(frozen=True)
class FragmentStream:
    """The raw spans of one stream's fragments in a body, in order."""

    spans: tuple[tuple[int, int], ...]

    def joined(self, body: bytes) -> bytes:
        """The fragments' raw (still escaped) text, joined."""
        return b"".join(body[a:b] for a, b in self.spans)

    def text(self, body: bytes) -> str | None:
        """The fragments joined and unescaped (``None``: not valid JSON string text)."""
        try:
            value = loads(b'"' + self.joined(body) + b'"')
        except ValueError:
            return None
        return value if isinstance(value, str) else None

    def body_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """Where bytes ``start:end`` of :meth:`joined` sit in the body (one span per piece)."""
        found, offset = [], 0
        for a, b in self.spans:
            size = b - a
            low, high = max(start, offset), min(end, offset + size)
            if low < high:
                found.append((a + low - offset, a + high - offset))
            offset += size
            if offset >= end:
                break
        return found


def fragment_streams(body: bytes) -> list[FragmentStream]:
    """The streams of two or more fragments in a line-framed body."""
    grouped: dict[Path, list[tuple[int, int]]] = {}
    for start, end in _events(body):
        for path, a, b in _string_leaves(body, start, end):
            grouped.setdefault(path, []).append((a, b))
    return [FragmentStream(tuple(spans)) for spans in grouped.values() if len(spans) > 1]


def joined_texts(body: bytes) -> list[str]:
    """Each fragment stream's text, joined and unescaped."""
    texts = (s.text(body) for s in fragment_streams(body))
    return [t for t in texts if t]


def _split_spans(body: bytes, finder: SecretFinder) -> list[tuple[int, int]]:
    found = []
    for stream in fragment_streams(body):
        joined = stream.joined(body)
        cuts = list(_cuts(stream))
        for start, end in finder.spans(joined):
            # Whole inside one piece: the ordinary sweep's business, not a split.
            piece = bisect.bisect_right(cuts, start)
            if piece < len(cuts) and end <= cuts[piece]:
                continue
            found += stream.body_spans(start, end)
    return found


def _cuts(stream: FragmentStream) -> Iterator[int]:
    offset = 0
    for a, b in stream.spans:
        offset += b - a
        yield offset


def mask_split(body: bytes, finder: SecretFinder) -> bytes:
    """``body`` with each piece of a secret split across fragments replaced by ``*``."""
    if not finder or b"\n" not in body.strip():
        return body
    spans = _split_spans(body, finder)
    if not spans:
        return body
    masked = bytearray(body)
    for start, end in spans:
        masked[start:end] = b"*" * (end - start)
    return bytes(masked)


def split_leaks(body: bytes, finder: SecretFinder) -> list[str]:
    """The secrets still split across fragments of ``body``."""
    if not finder or b"\n" not in body.strip():
        return []
    leaks = []
    for stream in fragment_streams(body):
        leaks += finder.found(stream.joined(body))
    return list(dict.fromkeys(leaks))
