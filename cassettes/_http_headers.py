"""The response headers a recording may replay: what HTTP/1.1 lets a server send.

A server that sends a header HTTP forbids breaks the response (h11 raises, and
the client gets an empty reply), so a cassette holding one is refused when it is
loaded for replay, naming the interaction and the header:

- a field name is a token, and a value holds no control character but tab, no
  leading or trailing space, and only Latin-1 text
  (https://www.rfc-editor.org/rfc/rfc9110#section-5.1,
  https://www.rfc-editor.org/rfc/rfc9110#section-5.5);
- ``Content-Length`` is one non-negative decimal number (repeated, the same one),
  the length of the recorded body, or more when the recording was cut mid-body
  (https://www.rfc-editor.org/rfc/rfc9110#section-8.6);
- ``Transfer-Encoding`` is ``chunked`` alone: a recorded body is stored without its
  transfer coding, so no other coding can be replayed
  (https://www.rfc-editor.org/rfc/rfc9112#section-6.1).

Hop-by-hop fields (``Connection``, ``Transfer-Encoding: chunked`` ...) describe the
recorded connection, not the response
(https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1): a recording keeps them, and
the fake-provider server, which frames each body itself, leaves them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tooltape.harness.bounded_reprs import bounded

__all__ = ["header_problem"]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_CONTROL_NAMES = {"\x00": "NUL", "\r": "CR", "\n": "LF"}


def _value_problem(value: str) -> str | None:
    control = _CONTROL.search(value)
    if control is not None:
        char = control.group()
        shown = _CONTROL_NAMES.get(char, f"control character {ord(char):#04x}")
        return f"its value holds {shown} at offset {control.start()}"
    if value != value.strip(" \t"):
        return "its value starts or ends with whitespace"
    try:
        value.encode("latin-1")
    except UnicodeEncodeError as error:
        return f"its value holds {value[error.start]!r}, which is not Latin-1"
    return None


def _content_length_problem(value: str, body_length: int, cut: bool) -> str | None:
    lengths = {part.strip() for part in value.split(",")}
    if len(lengths) != 1 or not all(length.isdigit() and length.isascii() for length in lengths):
        return f"{bounded(value, 40)} is not one non-negative decimal number"
    declared = int(lengths.pop())
    if declared == body_length or (cut and declared > body_length):
        return None
    return f"it declares {declared} bytes, and the recorded body has {body_length}"


def header_problem(
    headers: Iterable[tuple[str, str]], body_length: int, cut: bool = False
) -> tuple[str, str] | None:
    """The first header of a recorded response that HTTP forbids, and why (else ``None``).

    Args:
        headers: The recorded response headers.
        body_length: The recorded body's length in bytes.
        cut: The recording was cut mid-body (a longer ``Content-Length`` is then right).
    """
    for name, value in headers:
        if not _TOKEN.fullmatch(name):
            return name, "the name is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
        problem = _value_problem(value)
        lower = name.lower()
        if problem is None and lower == "content-length":
            problem = _content_length_problem(value, body_length, cut)
        if problem is None and lower == "transfer-encoding" and value.lower() != "chunked":
            problem = (
                f"{bounded(value, 40)}: a recorded body is stored without its transfer coding, "
                "so only 'chunked' can be replayed"
            )
        if problem is not None:
            return name, problem
    return None
