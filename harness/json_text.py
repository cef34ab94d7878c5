"""The one JSON reader, :func:`loads` at pydantic-core's speed, and compact writer.

Every event a body holds is decoded, and stdlib ``json`` was the largest cost of
reading a long stream; a served request's body is read for its checks and its
``stream`` flag. pydantic-core's parser (a dependency already) reads the same
text in half the time, and what it accepts it reads as ``json.loads`` does: the
same values, key order and duplicate-key rule (property tests hold it to
that). What it refuses (bad JSON, but also lone surrogates and nesting deeper
than 200, which ``json.loads`` takes) goes to ``json.loads``, whose value or
error is the one that counts.

:func:`compact` writes JSON the way providers send it: no spaces, raw UTF-8
unless asked for ASCII escapes, through one encoder per set of options
(``json.dumps`` with options builds an encoder per call).

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

__all__ = ["compact", "loads"]


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``: the same value, or the same exception.

    Bytes too (a request body): pydantic-core reads UTF-8 and refuses the rest
    (a byte-order mark, UTF-16, invalid UTF-8), which ``json.loads`` then decodes
    or rejects as it always does.
    """
    try:
        return from_json(text)
    except (ValueError, TypeError):  # TypeError: a lone surrogate cannot be encoded
        return json.loads(text)


_ENCODERS = {
    (sort_keys, ensure_ascii): json.JSONEncoder(
        separators=(",", ":"), sort_keys=sort_keys, ensure_ascii=ensure_ascii
    )
    for sort_keys in (False, True)
    for ensure_ascii in (False, True)
}


def compact(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = False) -> str:
    r"""``json.dumps(value, separators=(",", ":"), ...)``: raw UTF-8 unless ``ensure_ascii``."""
    return _ENCODERS[sort_keys, ensure_ascii].encode(value)
