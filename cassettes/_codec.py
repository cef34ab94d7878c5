"""Cassette data (what YAML loads) to :class:`Cassette` and back, checked field by field.

The layout is vcrpy's, so vcrpy and pytest-recording replay tooltape cassettes::

    version: 1
    interactions:
    - request: {method, uri, headers: {name: [values]}, body}
      response:
        status: {code, message}
        headers: {name: [values]}
        body: {string: ...}            # text, or !!binary for AWS event streams
        tooltape: {reads: [offsets], aborted: "read error"}   # vcrpy ignores it
    tooltape: {dialect, scenario, plan, quirks, recorded_at, ...}  # vcrpy ignores it

Every problem is one :class:`CassetteError` paragraph naming the file, the
interaction and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes._model import (
    FORMAT_VERSION,
    Cassette,
    CassetteInfo,
    Headers,
    Interaction,
    RecordedRequest,
    RecordedResponse,
)
from tooltape.harness.bounded_reprs import bounded, bounded_text
from tooltape.harness.json_text import loads
from tooltape.harness.name_checks import unknown_name_message
from tooltape.harness.user_files import positive_setting

__all__ = [
    "MAX_INTERACTIONS_VARIABLE",
    "cassette_from_data",
    "cassette_to_data",
    "check_interaction_count",
]

VCR_VERSION = 1

MAX_INTERACTIONS_VARIABLE = "TOOLTAPE_MAX_INTERACTIONS"
"""The environment variable bounding how many interactions a cassette may hold."""
_DEFAULT_MAX_INTERACTIONS = 10_000


def check_interaction_count(count: int, path: Path | None) -> None:
    """Refuse a cassette of more than ``$TOOLTAPE_MAX_INTERACTIONS`` (10,000) interactions.

    Raises:
        CassetteError: Too many, naming the file, the count and the setting.
    """
    limit = positive_setting(
        MAX_INTERACTIONS_VARIABLE, _DEFAULT_MAX_INTERACTIONS, "interactions", CassetteError
    )
    if count > limit:
        raise CassetteError(
            f"{where(path)}: {count:,} interactions, more than the {limit:,} a cassette may "
            f"hold; split it, or raise ${MAX_INTERACTIONS_VARIABLE}"
        )


# --- to data ---------------------------------------------------------------------------


def _headers_data(headers: Headers) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for name, value in headers:
        grouped.setdefault(name.lower(), []).append(value)
    return grouped


def _text_or_bytes(body: bytes, binary: bool) -> str | bytes:
    if binary:
        return body
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body


def _request_body(body: bytes, binary: bool) -> str | bytes | None:
    if not body:
        return None
    try:
        return json.dumps(loads(body), indent=2, ensure_ascii=False) + "\n"
    except (ValueError, RecursionError):  # not JSON, or nested deeper than json can go
        return _text_or_bytes(body, binary)


def _interaction_data(interaction: Interaction, binary: bool) -> dict[str, Any]:
    request, response = interaction.request, interaction.response
    extra: dict[str, Any] = {}
    if response.boundaries is not None:
        extra["reads"] = list(response.boundaries)
    if response.aborted is not None:
        extra["aborted"] = response.aborted
    response_data: dict[str, Any] = {
        "status": {"code": response.status, "message": response.reason},
        "headers": _headers_data(response.headers),
        "body": {"string": _text_or_bytes(response.body, binary)},
    }
    if extra:
        response_data["tooltape"] = extra
    return {
        "request": {
            "method": request.method,
            "uri": request.uri,
            "headers": _headers_data(request.headers),
            "body": _request_body(request.body, binary),
        },
        "response": response_data,
    }


def cassette_to_data(cassette: Cassette, *, binary: bool = False) -> dict[str, Any]:
    """The cassette as vcrpy-layout data plus the ``tooltape:`` keys.

    Args:
        cassette: The cassette.
        binary: Store every body as bytes (``!!binary``) even when it is text.
    """
    info = cassette.info.model_dump(mode="json", exclude_defaults=True)
    info["format"] = FORMAT_VERSION
    return {
        "version": VCR_VERSION,
        "interactions": [_interaction_data(i, binary) for i in cassette.interactions],
        "tooltape": info,
    }


# --- from data -------------------------------------------------------------------------


class _Fields:
    """Reads fields of one interaction, raising one-paragraph errors that say where."""

    def __init__(self, path: Path | None, number: int) -> None:
        self.path, self.number = path, number

    def fail(self, field: str, problem: str) -> CassetteError:
        return CassetteError(f"{where(self.path, self.number)}, {field}: {problem}")

    def mapping(self, value: Any, field: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            shown = f"{type(value).__name__} {bounded(value)}"
            raise self.fail(field, f"expected a mapping, got {shown}")
        return value

    def headers(self, value: Any, field: str) -> Headers:
        if value is None:
            return ()
        pairs: list[tuple[str, str]] = []
        for name, values in self.mapping(value, field).items():
            items = values if isinstance(values, list) else [values]
            for item in items:
                if not isinstance(item, str | int | float):
                    raise self.fail(
                        f"{field}.{bounded_text(str(name), 80)}",
                        f"expected a list of strings, got {bounded(values)}",
                    )
                pairs.append((str(name).lower(), str(item)))
        return tuple(pairs)

    def body(self, value: Any, field: str) -> bytes:
        if value is None:
            return b""
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode("utf-8")
        raise self.fail(field, f"expected text or !!binary bytes, got {type(value).__name__}")


def _request(fields: _Fields, data: Any) -> RecordedRequest:
    request = fields.mapping(data, "request")
    method = request.get("method")
    if not isinstance(method, str) or not method:
        raise fields.fail("request.method", f"expected an HTTP method, got {bounded(method)}")
    uri = request.get("uri")
    parts = urlsplit(uri) if isinstance(uri, str) else None
    if parts is None or not parts.scheme or not parts.netloc:
        raise fields.fail("request.uri", f"expected an absolute URL, got {bounded(uri)}")
    return RecordedRequest(
        method=method.upper(),
        uri=str(uri),
        headers=fields.headers(request.get("headers"), "request.headers"),
        body=fields.body(request.get("body"), "request.body"),
    )


def _status(fields: _Fields, response: Mapping[str, Any]) -> tuple[int, str]:
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else status
    if isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599:
        raise fields.fail(
            "response.status.code", f"expected an HTTP status code, got {bounded(code)}"
        )
    reason = status.get("message") if isinstance(status, Mapping) else None
    return code, str(reason or "")


_EXTRA_KEYS = ("aborted", "reads")


def _extra(fields: _Fields, data: Any, size: int) -> tuple[tuple[int, ...] | None, str | None]:
    if data is None:
        return None, None
    extra = fields.mapping(data, "response.tooltape")
    unknown = sorted(str(k)[:60] for k in extra if k not in _EXTRA_KEYS)
    if unknown:
        raise fields.fail("response.tooltape", unknown_name_message("key", unknown, _EXTRA_KEYS))
    reads = extra.get("reads")
    boundaries: tuple[int, ...] | None = None
    if reads is not None:
        ok = isinstance(reads, list) and all(type(r) is int for r in reads)
        if not ok or any(not 0 < r < size for r in reads) or reads != sorted(set(reads)):
            raise fields.fail(
                "response.tooltape.reads",
                f"expected increasing byte offsets inside the {size}-byte body, "
                f"got {bounded(reads)}",
            )
        boundaries = tuple(reads)
    aborted = extra.get("aborted")
    if aborted is not None and not isinstance(aborted, str):
        raise fields.fail(
            "response.tooltape.aborted", f"expected the read error text, got {bounded(aborted)}"
        )
    return boundaries, aborted


def _response(fields: _Fields, data: Any) -> RecordedResponse:
    response = fields.mapping(data, "response")
    code, reason = _status(fields, response)
    body = response.get("body")
    if not isinstance(body, Mapping) or "string" not in body:
        raise fields.fail("response.body", f"expected a mapping with 'string', got {bounded(body)}")
    content = fields.body(body["string"], "response.body.string")
    boundaries, aborted = _extra(fields, response.get("tooltape"), len(content))
    return RecordedResponse(
        status=code,
        reason=reason,
        headers=fields.headers(response.get("headers"), "response.headers"),
        body=content,
        boundaries=boundaries,
        aborted=aborted,
    )


def _interaction(path: Path | None, number: int, data: Any) -> Interaction:
    fields = _Fields(path, number)
    entry = fields.mapping(data, "the entry")
    for key in ("request", "response"):
        if key not in entry:
            raise fields.fail(key, "missing")
    return Interaction(_request(fields, entry["request"]), _response(fields, entry["response"]))


def _info(path: Path | None, data: Any) -> CassetteInfo:
    if data is None:
        return CassetteInfo()
    try:
        info = CassetteInfo.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise CassetteError(
            f"{where(path)}: tooltape.{bounded_text(field, 120)}: {bounded_text(first['msg'])} "
            f"(got {bounded(first.get('input'))})"
        ) from None
    if info.format > FORMAT_VERSION:
        raise CassetteError(
            f"{where(path)}: tooltape.format {info.format} is newer than this tooltape reads "
            f"({FORMAT_VERSION}); upgrade tooltape"
        )
    if info.dialect is not None:
        from tooltape.fake_providers import get_dialect

        try:
            get_dialect(info.dialect)
        except ValueError as error:
            raise CassetteError(f"{where(path)}: tooltape.dialect: {error}") from None
    return info


def cassette_from_data(data: Any, path: Path | None = None) -> Cassette:
    """Check loaded YAML data and build the :class:`Cassette`.

    Raises:
        CassetteError: The data is not a version-1 vcrpy cassette with at least one
            well-formed interaction, or its ``tooltape:`` metadata is wrong.
    """
    if isinstance(data, list):
        raise CassetteError(
            f"{where(path)}: this is a pre-1.0 vcrpy cassette (a bare list); re-record it "
            "or migrate it with python -m vcr.migration"
        )
    if not isinstance(data, Mapping):
        shown = "an empty file" if data is None else f"{type(data).__name__} {bounded(data, 60)}"
        raise CassetteError(f"{where(path)}: expected a cassette mapping, got {shown}")
    if data.get("version") != VCR_VERSION:
        raise CassetteError(
            f"{where(path)}: expected vcrpy cassette 'version: 1', "
            f"got {bounded(data.get('version'))}"
        )
    interactions = data.get("interactions")
    if not isinstance(interactions, list):
        raise CassetteError(
            f"{where(path)}: expected an 'interactions' list, got {bounded(interactions, 60)}"
        )
    if not interactions:
        raise CassetteError(f"{where(path)}: the cassette has no interactions; record it first")
    check_interaction_count(len(interactions), path)
    info = _info(path, data.get("tooltape"))
    return Cassette(
        interactions=tuple(_interaction(path, n, i) for n, i in enumerate(interactions)),
        info=info,
        path=path,
    )
