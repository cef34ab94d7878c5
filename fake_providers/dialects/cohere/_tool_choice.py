"""Cohere v2 chat's 400s for missing fields and an unusable ``tool_choice``.

Cohere answers ``{"message": "invalid request: ..."}`` (the prefix of every
Cohere 400 on record, e.g. https://github.com/cohere-ai/cohere-python/issues/525).
v2 requires ``model`` and ``messages`` (Cohere's v2 release notes) and takes
``tool_choice`` as ``REQUIRED`` or ``NONE`` only. The texts after the prefix are
inferred: no public report quotes them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cohere_request_problem"]

_CHOICES = ("REQUIRED", "NONE")


def cohere_request_problem(body: dict[str, Any]) -> str | None:
    """The 400 text for a missing field or an unusable ``tool_choice``, else ``None``."""
    for field in ("model", "messages"):
        if field not in body:
            return f"invalid request: {field} is required"
    choice = body.get("tool_choice")
    if choice is None:
        return None
    if choice not in _CHOICES:
        return f"invalid request: tool_choice must be one of {', '.join(_CHOICES)}; got {choice!r}"
    if choice == "REQUIRED" and not body.get("tools"):
        return "invalid request: tool_choice REQUIRED needs tools to be specified"
    return None
