"""Keep secrets off disk: what recording removes before a cassette is written.

Removed, whatever the record mode, by rule (:func:`~tooltape.cassettes._secret_names.looks_secret`):
request and response headers, query parameters, and JSON (at any depth) or form
body fields whose name looks like a credential in any case or style, the
provider identity headers (``openai-organization``, ``openai-project``), and the
userinfo of the URL. A JSON field only counts when its value is a string or a
number: ``"password": {"type": "string"}`` in a tool schema stays. The user's
own rules (:mod:`~tooltape.cassettes.scrub_rules`, vcrpy's options) apply first.

By default only a few request headers are kept at all
(:data:`KEPT_REQUEST_HEADERS`): SDKs send machine-specific ones
(``user-agent``, ``x-stainless-os``) that only make cassettes churn.

Found by shape and inside what comes back (:mod:`~tooltape.cassettes._secret_shapes`):
credential-shaped values (JWTs, ``sk-``, ``AKIA``, ``AIza``, ``ghp_``...) in any
header, URL or body; credentials a server mints, by name at any depth of a JSON
or streamed response (in lists and in JSON inside strings, a tool call's
``arguments`` included), in the joined fragments of a streamed text or
arguments, and in the query of a URL-valued response header (an unfollowed
redirect's signed ``Location``); the parts of composite credentials (the
access key id of ``X-Amz-Credential``). Bodies are swept and stored with their
content codings undone (:mod:`~tooltape.cassettes._content_coding`), request
bodies included; multipart fields are scrubbed as form fields are
(:mod:`~tooltape.cassettes._multipart`).

Every value taken out is remembered (of a cookie, only the values: names and
attributes such as ``Domain`` or ``HttpOnly`` are not secrets); a last sweep
masks any copy of it left elsewhere (another header, the URL, a request or
response body), raw or escaped, percent-encoded or in base64
(:mod:`~tooltape.cassettes._secret_forms`), or cut across a stream's fragments
(:mod:`~tooltape.cassettes._split_secrets`), with ``*`` byte for byte, and the
writer refuses a file where one is still found.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote_plus, unquote, unquote_plus, urlsplit, urlunsplit

from tooltape.cassettes._content_coding import decode_body
from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import (
    Cassette,
    Headers,
    Interaction,
    RecordedRequest,
    RecordedResponse,
)
from tooltape.cassettes._multipart import Part, parse_multipart
from tooltape.cassettes._secret_forms import SecretFinder
from tooltape.cassettes._secret_names import Where, looks_secret
from tooltape.cassettes._secret_shapes import credential_parts, minted_in, shaped
from tooltape.cassettes._split_secrets import joined_texts, mask_split, split_leaks
from tooltape.cassettes.scrub_rules import Replacement, ScrubRules
from tooltape.harness.json_text import loads

__all__ = ["IDENTITY_HEADERS", "KEPT_REQUEST_HEADERS", "Scrubber"]

IDENTITY_HEADERS = frozenset({"openai-organization", "openai-project"})
"""Headers that name the account rather than carry a credential, removed all the same."""

KEPT_REQUEST_HEADERS = frozenset(
    {"content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta"}
)
"""Request headers kept by default (pass ``request_headers="all"`` to keep all but secrets)."""

_REMOVE = object()
_CODING_DROPS = frozenset({"content-encoding", "content-length"})
"""Headers that no longer hold once a body is stored decoded."""
_T = TypeVar("_T")


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _is_credential_value(value: Any) -> bool:
    """A scalar, or a list of scalars (``"api_key": ["k1", "k2"]``): not a schema."""
    if isinstance(value, list):
        return bool(value) and all(_is_scalar(item) for item in value)
    return _is_scalar(value)


def url_secrets(value: str) -> list[str]:
    """The values of credential query parameters in a URL-valued header (``location``)."""
    if "?" not in value:
        return []
    found = []
    for name, item in parse_qsl(urlsplit(value.strip()).query, keep_blank_values=True):
        if looks_secret(name, "query"):
            found += [item, *credential_parts(item)]
    return found


def _cookie_value(pair: str) -> str:
    return pair.partition("=")[2].strip().strip('"')


def header_secrets(name: str, value: str) -> list[str]:
    """The secret parts of a secret header's value (of a cookie, the values only)."""
    lower = name.lower()
    if lower == "cookie":
        return [_cookie_value(pair) for pair in value.split(";")]
    if lower == "set-cookie":  # attributes (Domain, Path, HttpOnly...) follow the first ';'
        return [_cookie_value(value.split(";", 1)[0])]
    found = [value]
    scheme, _, rest = value.strip().partition(" ")
    rest = rest.strip()
    if not rest:
        return found
    found.append(rest)
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(rest, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return found
        found += [f"{user}:{password}", user, password]
    for param in re.split(r",\s*", rest):  # AWS SigV4: Credential=..., Signature=...
        key, equals, item = param.partition("=")
        if equals and looks_secret(key.strip(), "header"):
            found.append(item.strip().strip('"'))
            found += credential_parts(item.strip().strip('"'))
    return found


@dataclass
class Scrubber:
    """Removes secrets from what is recorded, and remembers them to sweep and check the file."""

    request_headers: frozenset[str] | None = KEPT_REQUEST_HEADERS
    """Request headers to keep (``None``: all but the secret ones)."""
    response_headers: frozenset[str] | None = None
    """Response headers to keep (``None``: all but the secret ones)."""
    rules: ScrubRules = field(default_factory=ScrubRules)
    """The user's rules (vcrpy's options)."""
    secrets: set[str] = field(default_factory=set)
    """Every value removed so far."""

    def _remember(self, value: Any) -> None:
        for item in value if isinstance(value, list) else [value]:
            if _is_scalar(item):
                self.secrets.add(str(item))
                self.secrets.update(credential_parts(str(item)))

    def _apply(
        self, replacement: Replacement, name: str, value: Any, request: RecordedRequest | None
    ) -> Any:
        """A user rule's new value for ``value`` (:data:`_REMOVE` to drop it)."""
        new = replacement(name, value, request) if callable(replacement) else replacement
        if new != value:
            self._remember(value)
        return _REMOVE if new is None else new

    # -- headers ------------------------------------------------------------------------

    def clean_headers(
        self,
        headers: Iterable[tuple[str, str]],
        keep: frozenset[str] | None,
        request: RecordedRequest | None = None,
    ) -> Headers:
        """The headers without secret ones (and, with ``keep``, only those named)."""
        kept = []
        for name, value in headers:
            lower = name.lower()
            if lower in self.rules.headers:
                new = self._apply(self.rules.headers[lower], name, value, request)
                if new is not _REMOVE:
                    kept.append((lower, str(new)))
                if new != value:
                    self.secrets.update(header_secrets(lower, value))
            elif looks_secret(lower, "header") or lower in IDENTITY_HEADERS:
                self.secrets.update(header_secrets(lower, value))
            elif keep is None or lower in keep:
                kept.append((lower, value))
                self.secrets.update(shaped(value), url_secrets(value))
        return tuple(kept)

    # -- the URL and form bodies ----------------------------------------------------------

    def _clean_pairs(
        self,
        text: str,
        rules: dict[str, Replacement] | Any,
        where: Where,
        request: RecordedRequest | None,
    ) -> str:
        """``a=1&b=2`` without secret parameters; what is not a secret is kept as it was."""
        kept, changed = [], False
        for segment in text.split("&"):
            raw_name, _, raw_value = segment.partition("=")
            name, value = unquote_plus(raw_name), unquote_plus(raw_value)
            if name in rules:
                new = self._apply(rules[name], name, value, request)
                changed = changed or new != value
                if new is not _REMOVE:
                    kept.append(segment if new == value else f"{raw_name}={quote_plus(str(new))}")
            elif looks_secret(name, where):
                self._remember(value)
                changed = True
            else:
                kept.append(segment)
        return "&".join(kept) if changed else text

    def clean_uri(self, uri: str, request: RecordedRequest | None = None) -> str:
        """The URL without userinfo and without key-like query parameters."""
        parts = urlsplit(uri)
        if "@" in parts.netloc:
            userinfo, _, host = parts.netloc.rpartition("@")
            user, _, password = userinfo.partition(":")
            self.secrets.update({unquote(password), unquote(user), f"{user}:{password}"})
            parts = parts._replace(netloc=host)
        if parts.query:
            parts = parts._replace(
                query=self._clean_pairs(parts.query, self.rules.query, "query", request)
            )
        return urlunsplit(parts)

    # -- JSON bodies --------------------------------------------------------------------

    def _clean_json(self, value: Any, request: RecordedRequest | None) -> Any:
        if isinstance(value, list):
            return [self._clean_json(item, request) for item in value]
        if not isinstance(value, dict):
            return value
        cleaned = {}
        for key, item in value.items():
            if key in self.rules.post_data:
                new = self._apply(self.rules.post_data[key], key, item, request)
                if new is not _REMOVE:
                    cleaned[key] = new
            # Only a scalar is a credential: {"password": {"type": "string"}} is a schema.
            elif looks_secret(str(key), "field") and _is_credential_value(item):
                self._remember(item)
            else:
                cleaned[key] = self._clean_json(item, request)
        return cleaned

    def _clean_part(self, part: Part, request: RecordedRequest | None) -> bytes | None:
        """A multipart field's value as it may be written (``None``: removed)."""
        name, value = part.name or "", part.value
        if name in self.rules.post_data:
            text = value.decode("utf-8", "replace")
            new = self._apply(self.rules.post_data[name], name, text, request)
            return None if new is _REMOVE else value if new == text else str(new).encode()
        if part.filename is None and looks_secret(name, "query"):
            self._remember(value.decode("utf-8", "replace"))
            return None
        return value

    def clean_body(
        self, body: bytes, content_type: str, request: RecordedRequest | None = None
    ) -> bytes:
        """The body without key-like fields (JSON at any depth, form or multipart fields).

        Credential-shaped values anywhere, and credentials inside JSON strings, are
        remembered, for the sweep to mask.
        """
        if not body:
            return body
        self.secrets.update(shaped(body))
        try:
            parsed = loads(body)
        except (ValueError, RecursionError):
            multipart = parse_multipart(content_type, body)
            if multipart is not None:
                return multipart.rebuilt(lambda part: self._clean_part(part, request))
            if "x-www-form-urlencoded" not in content_type:
                return body
            text = body.decode("utf-8", "replace")
            return self._clean_pairs(text, self.rules.post_data, "query", request).encode()
        try:
            cleaned = self._clean_json(parsed, request)
            self.secrets.update(minted_in(cleaned))
        except RecursionError:  # too deep to walk: left as bytes; the sweep still masks
            return body
        if cleaned == parsed:
            return body
        return json.dumps(cleaned, ensure_ascii=False).encode()

    def remember_minted(self, response: RecordedResponse) -> None:
        """Remember the credentials a response carries (the server minted them), to mask them.

        By name at any depth and by shape, in a JSON body, in each event of a streamed
        one and in the joined fragments of its texts and arguments; and in its headers
        (the query of a URL-valued header included).
        """
        for _, value in response.headers:  # already cleaned: what a kept header holds
            self.secrets.update(shaped(value), url_secrets(value))
        body = response.body
        if not body:
            return
        self.secrets.update(shaped(body))
        documents: list[Any] = []
        try:
            documents.append(loads(body))
        except (ValueError, RecursionError):
            for line in body.splitlines():
                payload = line.removeprefix(b"data:").strip()
                if payload[:1] in (b"{", b"["):
                    with contextlib.suppress(ValueError, RecursionError):
                        documents.append(loads(payload))
            documents += joined_texts(body)
        self.secrets.update(minted_in(documents))  # depth-bounded: never a RecursionError

    # -- whole requests and responses -----------------------------------------------------

    def clean(
        self, method: str, uri: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> RecordedRequest:
        """The request as it may be written (the user's hooks not called)."""
        headers = tuple(headers)
        encoding = ", ".join(v for k, v in headers if k.lower() == "content-encoding")
        decoded = decode_body(body, encoding) if encoding else None
        if decoded is not None:  # stored (and matched) as the server reads it
            body = decoded
            headers = tuple((k, v) for k, v in headers if k.lower() not in _CODING_DROPS)
        raw = RecordedRequest(method.upper(), uri, headers, body)
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
        self.secrets.update(shaped(uri))
        return RecordedRequest(
            method=method.upper(),
            uri=self.clean_uri(uri, raw),
            headers=self.clean_headers(headers, self.request_headers, raw),
            body=self.clean_body(body, content_type, raw),
        )

    def request(
        self, method: str, uri: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> RecordedRequest | None:
        """The request as it may be written (``None``: a hook left it out of the cassette)."""
        request = self.clean(method, uri, headers, body)
        finder = self.finder()  # a secret this request also echoes (its message, say)
        if finder:
            request = replace(
                request,
                uri=finder.mask_text(request.uri),
                headers=tuple((k, finder.mask_text(v)) for k, v in request.headers),
                body=finder.mask(request.body),
            )
        return _hooked(self.rules.before_request, request, RecordedRequest, "before_record_request")

    def response(self, response: RecordedResponse) -> RecordedResponse | None:
        """``response`` through the ``before_record_response`` hooks (``None``: left out)."""
        hooked = _hooked(
            self.rules.before_response, response, RecordedResponse, "before_record_response"
        )
        if hooked is None or hooked.boundaries is None or hooked.body == response.body:
            return hooked
        size = len(hooked.body)  # the hook changed the body: keep the reads that still fit
        return replace(hooked, boundaries=tuple(b for b in hooked.boundaries if 0 < b < size))

    # -- the last sweep ----------------------------------------------------------------

    def finder(self) -> SecretFinder:
        """What finds the remembered secrets (those long enough to look for)."""
        return SecretFinder(self.secrets)

    def sweep(self, cassette: Cassette) -> Cassette:
        """Mask every remembered secret, in every form, wherever a copy of it is left."""
        finder = self.finder()
        if not finder:
            return cassette

        def headers(pairs: Headers) -> Headers:
            return tuple((k, finder.mask_text(v)) for k, v in pairs)

        interactions = []
        for interaction in cassette.interactions:
            request, response = interaction.request, interaction.response
            request = replace(
                request,
                uri=finder.mask_text(request.uri),
                headers=headers(request.headers),
                body=finder.mask(request.body),
            )
            response = replace(
                response,
                reason=finder.mask_text(response.reason),
                headers=headers(response.headers),
                body=mask_split(finder.mask(response.body), finder),
                aborted=None if response.aborted is None else finder.mask_text(response.aborted),
            )
            interactions.append(Interaction(request, response))
        return cassette.with_interactions(tuple(interactions))

    def leaked(self, data: bytes) -> list[str]:
        """The remembered secrets still present in ``data`` in some form (shown cut short)."""
        return [f"{s[:3]}…({len(s)} chars)" for s in self.finder().found(data)]

    def leaked_in(self, cassette: Cassette) -> list[str]:
        """:meth:`leaked` over every field of every interaction, before any file encoding.

        A secret still split across a streamed response's fragments counts too.
        """
        pieces = []
        finder = self.finder()
        split = []
        for interaction in cassette.interactions:
            request, response = interaction.request, interaction.response
            pieces += [request.uri.encode(), request.body, response.body]
            pieces += [v.encode() for _, v in (*request.headers, *response.headers)]
            split += split_leaks(response.body, finder)
        split = [f"{s[:3]}…({len(s)} chars, split across fragments)" for s in dict.fromkeys(split)]
        return self.leaked(b"\n".join(pieces)) + split


def _hooked(
    hooks: tuple[Callable[[Any], Any], ...], value: _T, kind: type[_T], option: str
) -> _T | None:
    current: _T | None = value
    for hook in hooks:
        if current is None:
            return None
        result = hook(current)
        if result is not None and not isinstance(result, kind):
            raise CassetteError(
                f"{option} hook {getattr(hook, '__name__', hook)!r} returned a "
                f"{type(result).__name__}; expected a {kind.__name__} or None"
            )
        current = result
    return current
