"""The streams tooltape's fakes served, so a failure on a merged message can draw them.

A merged ``AIMessage`` no longer holds the chunks it came from, and the ids an
adapter gives a message (``lc_run-...``) are not on the wire. Tool-call ids are:
each fake records what it served here, and :func:`served_stream` finds the
stream whose chunks carry the message's call ids (by tool names when the stream
carries no ids). Recording is cheap: a stream is parsed only when a failure
asks for it. The fakes record; nothing here knows HTTP.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from tooltape.harness._models import Deltas

__all__ = ["remember_served", "served_stream"]

_KEPT = 256
"""How many served streams are remembered (the newest win)."""


class _Served:
    """One served stream, parsed on first use."""

    def __init__(self, load: Callable[[], Deltas]) -> None:
        self._load = load
        self._deltas: Deltas | None = None
        self._lock = threading.Lock()

    def deltas(self) -> Deltas:
        with self._lock:
            if self._deltas is None:
                self._deltas = self._load()
            return self._deltas

    def ids(self) -> set[str]:
        return {str(c["id"]) for delta in self.deltas() for c in delta if c.get("id")}

    def names(self) -> set[str]:
        from tooltape.harness._reference import reference_merge

        merged = reference_merge(self.deltas()).chunks
        return {str(c.get("name")) for c in merged if c.get("name")}


_SERVED: deque[_Served] = deque(maxlen=_KEPT)


def remember_served(load: Callable[[], Deltas]) -> None:
    """Record a stream a fake served; ``load`` returns its deltas when a failure needs them."""
    _SERVED.append(_Served(load))


def _message_calls(message: Any) -> tuple[set[str], set[str]]:
    fields = ("tool_call_chunks", "tool_calls", "invalid_tool_calls")
    calls = [call for field in fields for call in getattr(message, field, None) or ()]
    ids = {str(c["id"]) for c in calls if c.get("id")}
    names = {str(c["name"]) for c in calls if c.get("name")}
    return ids, names


def served_stream(message: Any) -> Deltas | None:
    """The deltas of the newest served stream ``message`` was merged from, if any.

    Matched by tool-call id; a message with no ids matches a stream whose merged
    names are its names. ``None`` when no fake served such a stream.
    """
    ids, names = _message_calls(message)
    if not ids and not names:
        return None
    for served in reversed(list(_SERVED)):
        try:
            if (ids & served.ids()) if ids else (names == served.names()):
                return served.deltas()
        except (ValueError, KeyError, TypeError):  # a stream that does not parse draws nothing
            continue
    return None
