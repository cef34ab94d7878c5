"""Turn conformance-corpus records (``../shared/corpus/<provider>/*.json``) into cassettes.

A corpus record is one HTTP interaction another project recorded from a real
provider: the request body, the streamed response body (base64 for AWS event
streams) and provenance. The cassette keeps the body byte for byte, maps the
record's ``api`` to a dialect, removes secrets from the URL and body, stores
the provenance under ``tooltape.source`` and the reference merge under
``tooltape.reference``. Corpus bodies were joined by the tooling that recorded
them, so their read boundaries are unknown: the cassette has no ``reads`` and
replays one framed event per read, as a server flushing each event would.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import Cassette, CassetteInfo, Interaction, RecordedResponse
from tooltape.cassettes._recorded_merge import reference_of
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._store import cassette_text, write_atomically
from tooltape.cassettes.cassette_paths import confined_path
from tooltape.fake_providers import get_dialect
from tooltape.harness.json_text import loads
from tooltape.harness.name_checks import unknown_name

__all__ = ["API_DIALECTS", "convert_corpus_files", "convert_corpus_record"]

API_DIALECTS = {
    "chat_completions": "openai_chat",
    "responses": "openai_responses",
    "anthropic_messages": "anthropic_messages",
    "gemini": "gemini",
    "bedrock_converse_stream": "bedrock_converse",
    "bedrock_invoke_stream": "bedrock_invoke",
    "cohere_v2_chat": "cohere_v2",
}
"""The dialect that reads each corpus ``api``."""

_SOURCE_KEYS = ("provider", "api", "source_repo", "source_path", "source_commit", "license")


def _field(record: Mapping[str, Any], key: str, label: str, kind: type | tuple[type, ...]) -> Any:
    if key not in record:
        raise CassetteError(f"{label}: the corpus record has no {key!r} field")
    value = record[key]
    if not isinstance(value, kind):
        raise CassetteError(f"{label}: field {key!r} has the wrong type ({type(value).__name__})")
    return value


def _body(record: Mapping[str, Any], label: str) -> bytes:
    text: str = _field(record, "response_body", label, str)
    if record.get("response_body_encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error as error:
            raise CassetteError(f"{label}: response_body is not base64 ({error})") from None
    return text.encode("utf-8")


def convert_corpus_record(record: Mapping[str, Any], *, label: str = "<record>") -> Cassette:
    """A cassette holding one corpus record's interaction.

    Raises:
        CassetteError: A field is missing or of the wrong type, or the ``api`` has no dialect.
    """
    if not isinstance(record, Mapping):
        raise CassetteError(
            f"{label}: a corpus record is a JSON object, got {type(record).__name__}"
        )
    api = _field(record, "api", label, str)
    if api not in API_DIALECTS:
        raise unknown_name("api", api, API_DIALECTS, error=CassetteError, prefix=f"{label}: ")
    dialect = get_dialect(API_DIALECTS[api])
    body = _body(record, label)
    request = record.get("request")
    request_body = json.dumps(request).encode() if request is not None else b""
    content_type = record.get("response_content_type") or ""
    if "/" not in content_type:  # absent, or "**REDACTED**" by the source's own filter
        content_type = dialect.media_type
    scrubber = Scrubber(request_headers=None)
    recorded_request = scrubber.clean(
        str(record.get("request_method") or "POST"),
        _field(record, "request_url", label, str),
        [("content-type", "application/json")],
        request_body,
    )
    status = _field(record, "response_status", label, int)
    response = RecordedResponse(status=status, headers=(("content-type", content_type),), body=body)
    source = {key: record[key] for key in _SOURCE_KEYS if key in record}
    if record.get("extraction_notes"):
        source["extraction_notes"] = list(record["extraction_notes"])
    info = CassetteInfo(
        dialect=dialect.name,
        description=f"{record.get('provider', 'a provider')} recording from "
        f"{record.get('source_repo', 'the corpus')}",
        source=source,
        reference=reference_of(dialect, body) if status == 200 else None,
    )
    return scrubber.sweep(Cassette((Interaction(recorded_request, response),), info))


def convert_corpus_files(src: str | Path, dst: str | Path) -> list[Path]:
    """Convert a corpus folder (``<provider>/*.json``) or one record file into ``dst``.

    Each record becomes ``dst/<provider>/<name>.yaml``; existing files are replaced.

    Returns:
        The files written, sorted.

    Raises:
        CassetteError: ``src`` is missing, a file is not JSON, or a record is malformed.
    """
    src, dst = Path(src), Path(dst)
    if src.is_file():
        files = [src]
    elif src.is_dir():
        files = sorted(src.glob("*/*.json")) or sorted(src.glob("*.json"))
    else:
        raise CassetteError(f"{src}: no such corpus file or folder")
    written = []
    for file in files:
        try:
            record = loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CassetteError(f"{file}: not a JSON corpus record ({error})") from None
        cassette = convert_corpus_record(record, label=str(file))
        provider = str(record.get("provider") or file.parent.name)
        target = confined_path(dst, f"{provider}/{file.stem}.yaml", f"{file}: the provider")
        write_atomically(target, cassette_text(cassette).encode("utf-8"))
        written.append(target)
    return sorted(written)
