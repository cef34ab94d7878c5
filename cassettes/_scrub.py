"""Keep secrets off disk: what recording removes before a cassette is written.

Removed, whatever the record mode:

- request and response headers that carry credentials (:data:`SECRET_HEADERS`:
  ``authorization``, ``x-api-key``, ``api-key``, ``anthropic-api-key``,
  ``openai-organization``, ``cookie``, ``set-cookie`` ...);
- query parameters named like keys (:data:`SECRET_PARAMS`: ``key``, ``api_key``,
  ``apikey``, ``token``, ``access_token`` ...);
- JSON or form body fields named like keys, at any depth (:data:`SECRET_FIELDS`).

By default only a few request headers are kept at all
(:data:`KEPT_REQUEST_HEADERS`): SDKs send machine-specific ones
(``user-agent``, ``x-stainless-os``) that only make cassettes churn. Every
removed value is remembered; a last sweep masks any copy of it left elsewhere
(another header, the URL path, a response echoing it) with ``*`` of the same
length, and the writer refuses to write a file that still contains one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from tooltape.cassettes._model import Cassette, Headers, Interaction, RecordedRequest

__all__ = [
    "KEPT_REQUEST_HEADERS",
    "SECRET_FIELDS",
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "Scrubber",
]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "anthropic-api-key",
        "openai-organization",
        "openai-project",
        "cookie",
        "set-cookie",
        "x-goog-api-key",
        "x-amz-security-token",
        "ocp-apim-subscription-key",
        "x-auth-token",
    }
)
"""Header names (lower case) never written."""

SECRET_PARAMS = frozenset(
    {
        "key",
        "api_key",
        "apikey",
        "api-key",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "secret",
        "password",
        "sig",
        "signature",
        "x-amz-signature",
        "x-amz-credential",
        "x-amz-security-token",
    }
)
"""Query parameter names (compared case-insensitively) never written."""

SECRET_FIELDS = frozenset(
    {
        "api_key",
        "apikey",
        "access_token",
        "refresh_token",
        "client_secret",
        "secret_key",
        "password",
        "aws_secret_access_key",
        "aws_session_token",
        "authorization",
    }
)
"""JSON or form field names (case-insensitive, ``-`` read as ``_``) whose text or number
value is never written (a mapping under such a name, like a tool schema's
``"password": {"type": "string"}``, is not a credential and stays)."""

KEPT_REQUEST_HEADERS = frozenset(
    {"content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta"}
)
"""Request headers kept by default (pass ``request_headers="all"`` to keep all but secrets)."""

_MIN_SECRET = 6
"""Shorter values are not swept elsewhere: masking them would hit innocent text."""

_BEARER = re.compile(r"^(?:bearer|basic|token)\s+", re.IGNORECASE)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _field_key(name: str) -> str:
    return name.lower().replace("-", "_")


@dataclass
class Scrubber:
    """Removes secrets from what is recorded, and remembers them to check the file."""

    request_headers: frozenset[str] | None = KEPT_REQUEST_HEADERS
    """Request headers to keep (``None``: all but the secret ones)."""
    response_headers: frozenset[str] | None = None
    """Response headers to keep (``None``: all but the secret ones)."""
    headers: frozenset[str] = SECRET_HEADERS
    params: frozenset[str] = SECRET_PARAMS
    fields: frozenset[str] = SECRET_FIELDS
    secrets: set[str] = field(default_factory=set)
    """Every value removed so far."""

    def _remember(self, value: Any) -> None:
        text = str(value)
        self.secrets.add(text)
        self.secrets.add(_BEARER.sub("", text))
        for part in re.split(r"[;,]\s*", text):  # cookies: name=value pairs
            self.secrets.add(part.partition("=")[2] or part)

    def clean_headers(
        self, headers: Iterable[tuple[str, str]], keep: frozenset[str] | None
    ) -> Headers:
        """The headers without secret ones (and, with ``keep``, only those named)."""
        kept = []
        for name, value in headers:
            lower = name.lower()
            if lower in self.headers:
                self._remember(value)
            elif keep is None or lower in keep:
                kept.append((lower, value))
        return tuple(kept)

    def clean_uri(self, uri: str) -> str:
        """The URL without key-like query parameters."""
        parts = urlsplit(uri)
        if not parts.query:
            return uri
        pairs = []
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if name.lower() in self.params:
                self._remember(value)
            else:
                pairs.append((name, value))
        return urlunsplit(parts._replace(query=urlencode(pairs)))

    def _clean_json(self, value: Any) -> Any:
        if isinstance(value, dict):
            cleaned = {}
            for key, item in value.items():
                # Only a scalar is a credential: {"password": {"type": "string"}} is a schema.
                if _field_key(str(key)) in self.fields and _is_scalar(item):
                    self._remember(item)
                else:
                    cleaned[key] = self._clean_json(item)
            return cleaned
        if isinstance(value, list):
            return [self._clean_json(item) for item in value]
        return value

    def clean_body(self, body: bytes, content_type: str) -> bytes:
        """The body without key-like fields (JSON at any depth, or form fields)."""
        if not body:
            return body
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):  # too deep to parse: bytes, like any non-JSON
            if "x-www-form-urlencoded" not in content_type:
                return body
            pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
            kept = []
            for name, value in pairs:
                if _field_key(name) in self.fields or name.lower() in self.params:
                    self._remember(value)
                else:
                    kept.append((name, value))
            return urlencode(kept).encode()
        try:
            cleaned = self._clean_json(parsed)
        except RecursionError:
            return body
        if cleaned == parsed:
            return body
        return json.dumps(cleaned, ensure_ascii=False).encode()

    def request(
        self, method: str, uri: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> RecordedRequest:
        """The request as it may be written."""
        headers = tuple(headers)
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
        return RecordedRequest(
            method=method.upper(),
            uri=self.clean_uri(uri),
            headers=self.clean_headers(headers, self.request_headers),
            body=self.clean_body(body, content_type),
        )

    # -- the last sweep ----------------------------------------------------------------

    def _worth_sweeping(self) -> list[str]:
        return sorted((s for s in self.secrets if len(s) >= _MIN_SECRET), key=len, reverse=True)

    def _mask(self, text: str, secrets: list[str]) -> str:
        for secret in secrets:
            text = text.replace(secret, "*" * len(secret))
        return text

    def _mask_bytes(self, data: bytes, secrets: list[str]) -> bytes:
        for secret in secrets:
            raw = secret.encode()
            data = data.replace(raw, b"*" * len(raw))  # same length: read offsets stay valid
        return data

    def sweep(self, cassette: Cassette) -> Cassette:
        """Mask every remembered secret wherever a copy of it is left in the cassette."""
        secrets = self._worth_sweeping()
        if not secrets:
            return cassette

        def headers(pairs: Headers) -> Headers:
            return tuple((k, self._mask(v, secrets)) for k, v in pairs)

        interactions = []
        for interaction in cassette.interactions:
            request, response = interaction.request, interaction.response
            request = replace(
                request,
                uri=self._mask(request.uri, secrets),
                headers=headers(request.headers),
                body=self._mask_bytes(request.body, secrets),
            )
            response = replace(
                response,
                headers=headers(response.headers),
                body=self._mask_bytes(response.body, secrets),
            )
            interactions.append(Interaction(request, response))
        return cassette.with_interactions(tuple(interactions))

    def leaked(self, data: bytes) -> list[str]:
        """The remembered secrets still present in ``data`` (shown cut short)."""
        found = [s for s in self._worth_sweeping() if s.encode() in data]
        return [f"{s[:3]}…({len(s)} chars)" for s in found]
