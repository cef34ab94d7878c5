r"""Find a secret wherever it is echoed, in any of the forms text carries it in.

A secret is found:

- raw, JSON-escaped or ``\u``-escaped, in any mix and at any escaping depth
  (each character as itself, as ``\uXXXX`` in either hex case, as ``\"`` or
  ``\\\"``...), or percent-encoded (each UTF-8 byte as ``%XX``, a space as ``+`` too): the text is
  read once with every escape decoded, each decoded byte remembering the bytes
  it came from, and the secret is searched for in that reading;
- base64, standard or URL-safe, at any of the three alignments it can take
  inside a longer base64 text (the characters that depend only on its bytes).

Masking replaces exactly the bytes a secret was found in by ``*``, one for one,
so read boundaries and every offset stay valid, and an escape next to a secret
is left alone. A value is only looked for when it is long enough not to be
ordinary text (:func:`worth_sweeping`).
"""

from __future__ import annotations

import base64
import bisect
import re
from collections.abc import Iterable

__all__ = ["MIN_SECRET", "SecretFinder", "worth_sweeping"]

MIN_SECRET = 8
"""Shorter values are never looked for elsewhere: masking them would hit innocent text."""
_MIN_WORDLIKE = 16
"""Values of letters only or digits only must be this long (words, timestamps, counts)."""

_ESCAPE = re.compile(
    rb"\\+u[dD][89abAB][0-9a-fA-F]{2}\\+u[dD][c-fC-F][0-9a-fA-F]{2}"  # a surrogate pair
    rb"|\\+u[0-9a-fA-F]{4}|\\+.?|%[0-9a-fA-F]{2}",
    re.DOTALL,
)
_ESCAPE_PLUS = re.compile(_ESCAPE.pattern + rb"|\+", re.DOTALL)
"""Also ``+`` for a space (form encoding), read separately: elsewhere ``+`` is itself."""
_SHORT = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def worth_sweeping(value: str) -> bool:
    """True when ``value`` is distinctive enough to mask wherever it appears."""
    if len(value) < MIN_SECRET or len(set(value)) < 4:
        return False
    if value.isalpha() or value.isdigit():
        return len(value) >= _MIN_WORDLIKE
    return True


def _decode(token: bytes) -> bytes:
    if token == b"+":
        return b" "
    if token.startswith(b"%"):
        return bytes([int(token[1:], 16)])
    units = [int(u, 16) for u in re.findall(rb"u([0-9a-fA-F]{4})", token)]
    if len(units) == 2:
        return chr(0x10000 + ((units[0] - 0xD800) << 10) + (units[1] - 0xDC00)).encode()
    if units:
        return chr(units[0]).encode("utf-8", "surrogatepass")
    rest = token.lstrip(b"\\")
    if (len(token) - len(rest)) % 2 == 0:  # escaped backslashes, then a plain character
        return b"\\" + rest
    return _SHORT.get(rest, rest)


class _Reading:
    """``data`` with every escape decoded, and where each decoded byte came from."""

    def __init__(self, data: bytes, plus: bool = False) -> None:
        self.data = data
        if b"\\" not in data and b"%" not in data and not plus:
            self.text = data
            self._starts: list[int] = []
            return
        parts: list[bytes] = []
        self._starts = []  # decoded offset where each escape's bytes begin
        self._spans: list[tuple[int, int, int]] = []  # (decoded end, data start, data end)
        decoded = done = 0
        for match in (_ESCAPE_PLUS if plus else _ESCAPE).finditer(data):
            start, end = match.span()
            parts.append(data[done:start])
            decoded += start - done
            value = _decode(match.group())
            parts.append(value)
            self._starts.append(decoded)
            decoded += len(value)
            self._spans.append((decoded, start, end))
            done = end
        parts.append(data[done:])
        self.text = b"".join(parts)

    def _where(self, offset: int, end: bool) -> int:
        """Where decoded byte ``offset`` begins in the data (ends, with ``end``).

        An escape counts whole: a secret never leaves half an escape behind.
        """
        index = bisect.bisect_right(self._starts, offset) - 1
        if index < 0:
            return offset + end
        stop, start, finish = self._spans[index]
        if offset < stop:
            return finish if end else start
        return finish + offset - stop + end

    def spans(self, needle: bytes) -> list[tuple[int, int]]:
        """The data spans where ``needle`` is found, decoded."""
        found = []
        at = self.text.find(needle)
        while at >= 0:
            found.append((self._where(at, False), self._where(at + len(needle) - 1, True)))
            at = self.text.find(needle, at + 1)
        return found


def _base64_cores(raw: bytes) -> set[bytes]:
    cores = set()
    for shift, skip in ((0, 0), (1, 2), (2, 3)):
        encoded = base64.b64encode(b"\0" * shift + raw)
        core = encoded[skip : (shift + len(raw)) * 8 // 6]
        cores.add(core)
        cores.add(core.translate(bytes.maketrans(b"+/", b"-_")))
    return cores


class SecretFinder:
    """Finds and masks a set of secrets in every form (see the module docstring)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        """Look for every secret worth sweeping among ``secrets``, longest first."""
        self.secrets = sorted({s for s in secrets if worth_sweeping(s)}, key=len, reverse=True)
        self._needles = [
            (s, s.encode(), sorted(_base64_cores(s.encode()), key=len, reverse=True))
            for s in self.secrets
        ]

        self._spaces = any(" " in s for s in self.secrets)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def _spans(self, data: bytes, first_only: bool) -> list[tuple[str, int, int]]:
        reading = _Reading(data)
        spaced = _Reading(data, plus=True) if b"+" in data and self._spaces else None
        found = []
        for secret, raw, cores in self._needles:
            spans = reading.spans(raw)
            if spaced is not None and " " in secret:
                spans += spaced.spans(raw)
            # Raw too: the reading decodes what only looks like an escape (``\b`` in ``a\back``).
            for literal in (raw, *cores) if reading.text is not data else cores:
                at = data.find(literal)
                while at >= 0:
                    spans.append((at, at + len(literal)))
                    at = data.find(literal, at + 1)
            found += [(secret, a, b) for a, b in spans[: 1 if first_only else None]]
        return found

    def mask(self, data: bytes) -> bytes:
        """``data`` with every form of every secret replaced by ``*``, byte for byte."""
        if not self.secrets:
            return data
        spans = self._spans(data, first_only=False)
        if not spans:
            return data
        masked = bytearray(data)
        for _, start, end in spans:
            masked[start:end] = b"*" * (end - start)
        return bytes(masked)

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where every form of every secret sits in ``data``."""
        return [(a, b) for _, a, b in self._spans(data, first_only=False)] if self.secrets else []

    def mask_text(self, text: str) -> str:
        """:meth:`mask` for text."""
        return self.mask(text.encode()).decode() if self.secrets else text

    def found(self, data: bytes) -> list[str]:
        """The secrets present in ``data`` in some form."""
        return list(dict.fromkeys(s for s, _, _ in self._spans(data, first_only=True)))
