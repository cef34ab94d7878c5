"""Request matching: which recorded interaction answers a live request, and why none does.

Matchers (``match_on``): ``method``, ``scheme``, ``host``, ``port``, ``path``,
``query`` (parameters, in any order), ``uri`` (all of scheme, host, port, path
and query) and ``body`` (parsed JSON when both bodies are JSON, else bytes).
The default is ``("method", "uri")``, vcrpy's. A live request is scrubbed of
secrets before it is compared, exactly as a recording is, so a recorded
request and its replay compare equal.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from urllib.parse import urlsplit

from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import RecordedRequest

__all__ = ["DEFAULT_MATCH_ON", "MATCHERS", "check_match_on", "diff_requests", "mismatches"]

DEFAULT_MATCH_ON: tuple[str, ...] = ("method", "uri")
"""vcrpy's default: the method and the whole URL."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _port(request: RecordedRequest) -> int | None:
    parts = urlsplit(request.uri)
    return parts.port or _DEFAULT_PORTS.get(parts.scheme)


def _body(request: RecordedRequest) -> object:
    parsed = request.json()
    return parsed if parsed is not None else request.body


MATCHERS = {
    "method": lambda r: r.method.upper(),
    "scheme": lambda r: urlsplit(r.uri).scheme.lower(),
    "host": lambda r: (urlsplit(r.uri).hostname or "").lower(),
    "port": _port,
    "path": lambda r: r.path,
    "query": lambda r: r.query,
    "body": _body,
}
"""Each matcher reads the part of a request it compares."""

_URI_PARTS = ("scheme", "host", "port", "path", "query")


def check_match_on(match_on: Sequence[str]) -> tuple[str, ...]:
    """Validate matcher names (``uri`` expands to its five parts).

    Raises:
        CassetteError: An unknown matcher; the message lists the known ones.
    """
    names = ("match_on",) if isinstance(match_on, str) else tuple(match_on)
    unknown = [m for m in names if m not in MATCHERS and m != "uri"]
    if isinstance(match_on, str) or unknown:
        shown = match_on if isinstance(match_on, str) else unknown
        raise CassetteError(
            f"unknown request matcher(s) {shown!r}; give a sequence of: "
            f"{', '.join(['uri', *sorted(MATCHERS)])}"
        )
    expanded: list[str] = []
    for name in names:
        for part in _URI_PARTS if name == "uri" else (name,):
            if part not in expanded:
                expanded.append(part)
    return tuple(expanded)


def mismatches(
    recorded: RecordedRequest, live: RecordedRequest, match_on: Sequence[str]
) -> list[str]:
    """The matchers (already expanded by :func:`check_match_on`) on which the two differ."""
    return [m for m in match_on if MATCHERS[m](recorded) != MATCHERS[m](live)]


def _lines(request: RecordedRequest) -> list[str]:
    lines = [f"{request.method} {request.uri}"]
    parsed = request.json()
    if parsed is not None:
        lines += json.dumps(parsed, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    elif request.body:
        lines += request.body.decode("utf-8", "replace").splitlines()
    return lines


def diff_requests(recorded: RecordedRequest, live: RecordedRequest, context: int = 2) -> str:
    """A unified diff from the recorded request to the live one (JSON bodies key-sorted)."""
    diff = difflib.unified_diff(
        _lines(recorded), _lines(live), "recorded", "live", n=context, lineterm=""
    )
    return "\n".join(diff)


def similarity(recorded: RecordedRequest, live: RecordedRequest) -> float:
    """How alike two requests read (0 to 1), to pick the nearest one."""
    matcher = difflib.SequenceMatcher(None, _lines(recorded), _lines(live), autojunk=False)
    return matcher.ratio()
