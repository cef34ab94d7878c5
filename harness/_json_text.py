"""``json.loads`` of one event's text, at pydantic-core's speed.

Every event a body holds is decoded, and stdlib ``json`` was the largest cost of
reading a long stream. pydantic-core's parser (a dependency already) reads the
same text in half the time, and what it accepts it reads as ``json.loads`` does:
the same values, key order and duplicate-key rule (a property test holds it to
that). What it refuses (bad JSON, but also lone surrogates and nesting deeper
than 200, which ``json.loads`` takes) goes to ``json.loads``, whose value or
error is the one that counts.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

__all__ = ["loads"]


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same exception."""
    try:
        return from_json(text)
    except (ValueError, TypeError):  # TypeError: a lone surrogate cannot be encoded
        return json.loads(text)
