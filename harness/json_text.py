"""``json.loads`` of one event's text (or a request's body), at pydantic-core's speed.

Every event a body holds is decoded, and stdlib ``json`` was the largest cost of
reading a long stream; a served request's body is read for its checks and its
``stream`` flag. pydantic-core's parser (a dependency already) reads the same
text in half the time, and what it accepts it reads as ``json.loads`` does: the
same values, key order and duplicate-key rule (property tests hold it to
that). What it refuses (bad JSON, but also lone surrogates and nesting deeper
than 200, which ``json.loads`` takes) goes to ``json.loads``, whose value or
error is the one that counts.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

__all__ = ["loads"]


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
