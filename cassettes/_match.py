"""Request matching: which recorded interaction answers a live request, and why none does.

Matchers (``match_on``): ``method``, ``scheme``, ``host``, ``port``, ``path``,
``query`` (parameters, in any order), ``uri`` (all of scheme, host, port, path
and query) and ``body``. The default is ``("method", "uri", "body")``: every
chat API posts to one URL, so only the body tells a changed tool list, changed
messages or a new turn from the recording. A cassette tooltape generated (the
bundled library, rendered and mutated files) or converted from the corpus holds
a stand-in request, so it matches on ``("method", "uri")`` unless told otherwise.

The ``body`` matcher compares parsed JSON (key order and whitespace never
matter) without the fields that legitimately change between runs of the same
test, :data:`IGNORED_BODY_FIELDS`, and those a user adds (``ignore_body_fields``,
dotted paths, ``*`` for any key or list item); a body that is not JSON is
compared byte for byte, except a multipart one, compared on its fields (name, file
name, type and value of each part), since its boundary is random. A live request
is scrubbed of secrets before it is compared, exactly as a recording is, so a
recorded request and its replay compare equal.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import CassetteInfo, RecordedRequest
from tooltape.cassettes._multipart import fields
from tooltape.harness.bounded_reprs import bounded
from tooltape.harness.name_checks import check_names

__all__ = [
    "DEFAULT_MATCH_ON",
    "IGNORED_BODY_FIELDS",
    "MATCHERS",
    "RequestMatcher",
    "URL_MATCH_ON",
    "check_match_on",
    "default_match_on",
    "diff_requests",
    "mismatches",
]

DEFAULT_MATCH_ON: tuple[str, ...] = ("method", "uri", "body")
"""The method, the whole URL and the JSON body (less :data:`IGNORED_BODY_FIELDS`)."""

URL_MATCH_ON: tuple[str, ...] = ("method", "uri")
"""The default for a cassette tooltape generated, mutated or converted from the corpus: its
request is a stand-in (the scenario's or another project's), not the one your code sends."""


def default_match_on(info: CassetteInfo) -> tuple[str, ...]:
    """:data:`DEFAULT_MATCH_ON` for a recording, :data:`URL_MATCH_ON` for a stand-in request."""
    stand_in = info.plan is not None or info.source is not None or info.derived_from is not None
    return URL_MATCH_ON if stand_in or info.scenario is not None else DEFAULT_MATCH_ON


IGNORED_BODY_FIELDS: tuple[str, ...] = (
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "metadata",
    "stream_options",
)
"""Top-level body fields the ``body`` matcher ignores by default.

``user``, ``safety_identifier`` and ``prompt_cache_key`` (OpenAI) name the end
user or session, and ``metadata`` (OpenAI, Anthropic) carries per-run tags such
as user and trace ids: they change from run to run, not what is asked.
``stream_options`` only says how usage is reported, and client versions set it
differently. Everything else (model, messages, tools, tool choice, sampling)
is compared; ids inside messages come from the replayed responses, so they are
the recorded ones.
"""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_URI_PARTS = ("scheme", "host", "port", "path", "query")
_DIFF_LINES = 60


def _port(request: RecordedRequest) -> int | None:
    parts = urlsplit(request.uri)
    try:
        return parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:  # a port out of range in a hand-edited file
        return None


def _drop(value: Any, path: Sequence[str]) -> Any:
    """``value`` without what ``path`` names (a copy where something is removed)."""
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        keys = value.keys() if head == "*" else [head] if head in value else []
        if not rest:
            return {k: v for k, v in value.items() if k not in keys}
        return {k: (_drop(v, rest) if k in keys else v) for k, v in value.items()}
    if isinstance(value, list) and (head == "*" or head.isdigit()):
        return [
            _drop(item, rest) if rest and (head == "*" or int(head) == i) else item
            for i, item in enumerate(value)
            if rest or not (head == "*" or int(head) == i)
        ]
    return value


def _body(request: RecordedRequest, ignored: tuple[tuple[str, ...], ...]) -> object:
    parsed = request.json()
    if parsed is None:
        content_type = next((v for k, v in request.headers if k.lower() == "content-type"), "")
        parts = fields(content_type, request.body) if request.body else None
        return request.body if parts is None else ("multipart", parts)
    for path in ignored:
        parsed = _drop(parsed, path)
    return parsed


_DEFAULT_IGNORED = tuple(tuple(f.split(".")) for f in IGNORED_BODY_FIELDS)

MATCHERS: dict[str, Callable[[RecordedRequest], object]] = {
    "method": lambda r: r.method.upper(),
    "scheme": lambda r: urlsplit(r.uri).scheme.lower(),
    "host": lambda r: (urlsplit(r.uri).hostname or "").lower(),
    "port": _port,
    "path": lambda r: r.path,
    "query": lambda r: r.query,
    "body": lambda r: _body(r, _DEFAULT_IGNORED),
}
"""Each matcher reads the part of a request it compares (``body`` with the default ignores)."""


def check_match_on(match_on: Sequence[str]) -> tuple[str, ...]:
    """Validate matcher names (``uri`` expands to its five parts).

    Raises:
        CassetteError: An unknown matcher; the message lists the known ones.
    """
    if isinstance(match_on, str):
        raise CassetteError(
            f"match_on is the string {bounded(match_on)}; give a sequence of matcher names: "
            f"{', '.join(['uri', *sorted(MATCHERS)])}"
        )
    names = tuple(match_on)
    check_names("request matcher", names, ["uri", *MATCHERS], error=CassetteError)
    expanded: list[str] = []
    for name in names:
        for part in _URI_PARTS if name == "uri" else (name,):
            if part not in expanded:
                expanded.append(part)
    return tuple(expanded)


def _check_fields(fields: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    if isinstance(fields, str):
        raise CassetteError(
            f"ignore_body_fields must be a list of dotted paths, got the string {bounded(fields)}"
        )
    paths = []
    for field in fields:
        if not isinstance(field, str) or not field or "" in field.split("."):
            raise CassetteError(
                f"ignore_body_fields: {bounded(field)} is not a dotted path such as "
                "'metadata.run_id' or 'messages.*.id'"
            )
        paths.append(tuple(field.split(".")))
    return tuple(paths)


class RequestMatcher:
    """Compares requests on ``match_on``; reads each request's parts once."""

    def __init__(
        self, match_on: Sequence[str] = DEFAULT_MATCH_ON, ignore_body_fields: Iterable[str] = ()
    ) -> None:
        """Validate the matchers and the extra ignored body fields.

        Raises:
            CassetteError: An unknown matcher or a malformed field path.
        """
        self.match_on = check_match_on(match_on)
        self.ignored = (*_DEFAULT_IGNORED, *_check_fields(ignore_body_fields))

    def part(self, name: str, request: RecordedRequest) -> object:
        """The part of ``request`` matcher ``name`` compares."""
        return _body(request, self.ignored) if name == "body" else MATCHERS[name](request)

    def key(self, request: RecordedRequest) -> tuple[object, ...]:
        """Every compared part of ``request``, in ``match_on`` order."""
        return tuple(self.part(name, request) for name in self.match_on)

    def differs(self, recorded: tuple[object, ...], live: tuple[object, ...]) -> list[str]:
        """The matchers on which two keys differ."""
        return [m for m, a, b in zip(self.match_on, recorded, live, strict=True) if a != b]

    def mismatches(self, recorded: RecordedRequest, live: RecordedRequest) -> list[str]:
        """The matchers on which the two requests differ."""
        return self.differs(self.key(recorded), self.key(live))

    def lines(self, request: RecordedRequest) -> list[str]:
        """The request as diff lines: method, URL, then the compared body key-sorted."""
        lines = [f"{request.method} {bounded(request.uri, 300)[1:-1]}"]
        body = _body(request, self.ignored)
        if isinstance(body, bytes):
            lines += body[:20_000].decode("utf-8", "replace").splitlines()
        elif isinstance(body, tuple):  # a multipart body's fields
            for name, filename, content_type, value in body[1][:1000]:
                lines.append(f"part {name!r} filename={filename!r} content-type={content_type!r}")
                lines += value[:20_000].decode("utf-8", "replace").splitlines()
        else:
            try:
                text = json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False)
            except (ValueError, RecursionError):
                text = "(a JSON body too deep to show)"
            lines += text[:200_000].splitlines()
        return lines


def mismatches(
    recorded: RecordedRequest, live: RecordedRequest, match_on: Sequence[str]
) -> list[str]:
    """The matchers (already expanded by :func:`check_match_on`) on which the two differ."""
    return [m for m in match_on if MATCHERS[m](recorded) != MATCHERS[m](live)]


def diff_requests(
    recorded: RecordedRequest,
    live: RecordedRequest,
    context: int = 2,
    matcher: RequestMatcher | None = None,
) -> str:
    """A unified diff from the recorded request to the live one (JSON bodies key-sorted).

    Fields the body matcher ignores are left out; a long diff is cut at 60 lines.
    """
    matcher = matcher or RequestMatcher()
    diff = list(
        difflib.unified_diff(
            matcher.lines(recorded), matcher.lines(live), "recorded", "live", n=context, lineterm=""
        )
    )
    if len(diff) > _DIFF_LINES:
        diff = [*diff[:_DIFF_LINES], f"... ({len(diff) - _DIFF_LINES} more diff line(s))"]
    return "\n".join(line[:300] for line in diff)


def similarity(
    recorded: RecordedRequest, live: RecordedRequest, matcher: RequestMatcher | None = None
) -> float:
    """How alike two requests read (0 to 1), to pick the nearest one."""
    matcher = matcher or RequestMatcher()
    a, b = matcher.lines(recorded)[:2000], matcher.lines(live)[:2000]
    compare = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return compare.quick_ratio() if len(a) * len(b) > 1_000_000 else compare.ratio()
