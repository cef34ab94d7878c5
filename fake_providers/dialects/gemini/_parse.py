r"""Gemini stream bytes -> the tool-call chunks ``ChatGoogleGenerativeAI.stream()`` yields.

A re-statement, without importing either library, of google-genai 3.x's stream
reader (``HttpResponse._iter_response_stream`` and ``request_streamed`` in
``google/genai/_api_client.py``) and of langchain-google-genai 4.4's
``_parse_response_candidate`` plus ``_StreamBlockIndexer``:

* lines end at CR, LF or CRLF; a blank line dispatches the buffered ``data: ``
  lines (joined by ``\n``); only ``data: `` *with* its space is a data line.
  Any other line (a ``: ping`` comment, ``event:``, ``id:``, ``retry:``,
  ``data:`` without the space) goes to a brace-balancing buffer that yields it
  as JSON once its braces balance, so it raises ``UnknownApiResponseError``.
  At the end of the body the pending raw text, then the pending data, are read.
  (This is the httpx/httpx2 reader. With aiohttp installed, the async client
  reads through aiohttp instead, which splits lines at LF only.)
* a payload whose JSON starts with ``{"error":`` raises ``APIError``
  (``ClientError`` / ``ServerError`` by its ``code``; a missing code raises
  ``TypeError`` inside the SDK); a payload that is not an object gives an empty
  message or a ``TypeError`` (:func:`_check_odd_payload`).
* each payload becomes one ``AIMessageChunk`` made from ``candidates[0]`` (none:
  an empty message): every part with a ``functionCall`` gives one chunk, ``name``,
  ``args`` = ``json.dumps`` of the args object (``{}`` when absent; integer-valued
  floats turned into ints; ASCII escapes), ``id`` = the part's id or a fresh
  ``uuid4`` when it has none (or ``""``). The wire carries no index: the adapter
  numbers tool-call chunks *and* content blocks with one counter, so text and
  thinking blocks (list content: Gemini 3+ models, thought parts, signed text)
  shift the indexes of later calls, and no two chunks ever share an index.

Generated ids are random in the adapter; parse puts a deterministic stand-in in
their place (a uuid4-shaped string derived from the body and the call's
position, see :func:`generated_id`) and lists the stand-ins in
:attr:`GeminiStreamReading.generated_ids`, so a test can match them to the
adapter's uuids. The empty ``chunk_position="last"`` chunk langchain-core appends
after the adapter's last message is left out.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._stream_reading import StreamReading
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = [
    "GeminiStreamReading",
    "generated_id",
    "parse_gemini",
    "read_gemini_json",
    "read_gemini_stream",
]

_LINE_END = re.compile(rb"\r\n|\r|\n")
_MERGEABLE_BLOCKS = frozenset({"text", "thinking"})
_MAJOR_VERSION = re.compile(r"gemini-(\d+)")
_RESPONSE_FIELDS = (
    "sdkHttpResponse",
    "candidates",
    "modelVersion",
    "promptFeedback",
    "responseId",
    "usageMetadata",
    "modelStatus",
)


@dataclass(frozen=True)
class GeminiStreamReading(StreamReading):
    """What ``ChatGoogleGenerativeAI.stream()`` makes of a body, with the ids it minted."""

    generated_ids: tuple[str, ...] = field(default=())
    """Stand-ins for the ids the adapter generates (calls with no id on the wire), in order."""


def generated_id(body: bytes, position: int) -> str:
    """The stand-in parse uses for the uuid4 the adapter invents for call ``position``.

    Deterministic for a body, distinct across calls and bodies, uuid4-shaped.
    """
    digest = hashlib.sha256(body + b"#%d" % position).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


class _ApiError(Exception):
    """Stands for the SDK's ``ClientError`` / ``ServerError`` / ``APIError``."""


def parse_gemini(body: bytes) -> Deltas:
    """The tool-call chunks of each message ``ChatGoogleGenerativeAI.stream`` yields.

    Ids the adapter generates (calls without one on the wire) are replaced by
    deterministic stand-ins; :func:`read_gemini_stream` lists them and says
    whether, and how, the stream raised. A body recorded without ``alt=sse`` (a
    JSON array of responses) and the ``:generateContent`` answer (one response)
    are read too (:func:`read_gemini_json`).
    """
    if (document := json_document(body)) is not None:
        return read_gemini_json(document, body).deltas
    return read_gemini_stream(body).deltas


def read_gemini_stream(body: bytes) -> GeminiStreamReading:
    """Read a ``streamGenerateContent?alt=sse`` body as google-genai and the adapter do.

    Args:
        body: The raw response body.

    Returns:
        The deltas yielded, the stand-in ids, and the exception if the stream raised.
    """
    reader = _AdapterReader(body)
    try:
        for segment in _sdk_segments(body):
            reader.read(segment)
    except _ApiError as error:
        return reader.reading(str(error))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        return reader.reading(f"{type(error).__name__}: {error}")
    return reader.reading(None)


def read_gemini_json(document: object, body: bytes = b"") -> GeminiStreamReading:
    """Read a Gemini body that is one JSON document, payload by payload.

    ``streamGenerateContent`` without ``alt=sse`` answers one JSON array of
    responses (the REST default; clients that read it with a JSON parser, and
    their recordings, see this), and ``:generateContent`` one response. Each
    response is read as the adapter reads one streamed payload. google-genai
    itself always asks for ``alt=sse``, so on an array its stream reader
    raises (:func:`read_gemini_stream` says so); this is what the array holds.

    Args:
        document: The parsed body: an array of responses or one response.
        body: The raw bytes (seed of the stand-in ids).
    """
    reader = _AdapterReader(body)
    try:
        for payload in document if isinstance(document, list) else [document]:
            reader.read(json.dumps(payload))
    except _ApiError as error:
        return reader.reading(str(error))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        return reader.reading(f"{type(error).__name__}: {error}")
    return reader.reading(None)


def _sdk_segments(body: bytes) -> Iterator[str]:
    """The JSON texts google-genai's stream reader hands on, in order."""
    raw = _RawJsonBuffer()
    data: list[str] = []
    *lines, last = _LINE_END.split(body)
    if last:
        lines.append(last)  # the SDK flushes an unterminated last line
    for line_bytes in lines:
        line = line_bytes.decode("utf-8", errors="replace")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data: "):
            data.append(line[len("data: ") :])
        elif (chunk := raw.add_line(line)) is not None:
            yield chunk
    if remaining := raw.flush():
        yield remaining
    if data:
        yield "\n".join(data)


class _RawJsonBuffer:
    """The SDK's ``_RawJsonLineBuffer``: lines until braces balance outside strings."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def add_line(self, line: str) -> str | None:
        for char in line:
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.in_string = False
            elif char == '"':
                self.in_string = True
            elif char == "{":
                self.depth += 1
            elif char == "}":
                self.depth -= 1
        self.lines.append(line)
        return self.flush() if self.depth == 0 else None

    def flush(self) -> str:
        chunk = "".join(self.lines)
        self.lines, self.depth, self.in_string, self.escaped = [], 0, False, False
        return chunk


class _AdapterReader:
    """Turns each SDK payload into the adapter's message, numbering blocks and calls."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.deltas: Deltas = []
        self.generated: list[str] = []
        self.calls = 0
        self.next_index = 0
        self.open_type: str | None = None
        self.open_index = -1

    def reading(self, error: str | None) -> GeminiStreamReading:
        return GeminiStreamReading(self.deltas, error, tuple(self.generated))

    def read(self, segment: str) -> None:
        try:
            payload = loads(segment)
        except ValueError as error:
            raise _ApiError(
                f"UnknownApiResponseError: Failed to parse response as JSON. Raw response: "
                f"{segment}"
            ) from error
        if json.dumps(payload).startswith('{"error":'):
            _raise_stream_error(payload)
        if not isinstance(payload, dict):
            _check_odd_payload(payload)
            self.deltas.append([])  # the SDK finds no response field: an empty message
            return
        candidates = payload.get("candidates") or []
        if not candidates:
            self.deltas.append([])
            return
        model = payload.get("modelVersion") or ""
        blocks, calls = _message_parts(candidates[0], _is_gemini_3_or_later(model))
        self.number_blocks(blocks)
        self.deltas.append([self.chunk(call) for call in calls])

    def number_blocks(self, blocks: list[str]) -> None:
        """``_StreamBlockIndexer.assign`` for the message's dict content blocks."""
        for block_type in blocks:
            if block_type == self.open_type and block_type in _MERGEABLE_BLOCKS:
                continue
            self.allocate(block_type)

    def allocate(self, block_type: str | None) -> int:
        index, self.next_index = self.next_index, self.next_index + 1
        self.open_type, self.open_index = block_type, index
        return index

    def chunk(self, call: dict[str, Any]) -> Any:
        raw_id = call.get("id")
        if raw_id:
            call_id = str(raw_id)
        else:
            call_id = generated_id(self.body, self.calls)
            self.generated.append(call_id)
        self.calls += 1
        args = call.get("args") or {}
        text = json.dumps(dict(_integer_floats(args)))
        return tool_call_chunk(
            name=call.get("name"), args=text, id=call_id, index=self.allocate(None)
        )


def _check_odd_payload(payload: Any) -> None:
    """Raise where the SDK's ``getv`` does on a payload that is not an object.

    ``getv`` tests ``key in payload`` for each response field after a falsy
    check: ``null``, ``0``, ``""`` and lists or strings holding none of the
    field names give an empty response; numbers, and lists or strings holding a
    field name (as an element or substring), raise ``TypeError``.
    """
    if not payload:
        return
    if isinstance(payload, int | float) or any(key in payload for key in _RESPONSE_FIELDS):
        raise TypeError(f"the SDK cannot read {type(payload).__name__} payload {payload!r}")


def _raise_stream_error(payload: dict[str, Any]) -> None:
    error = payload.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if not isinstance(code, int):
        # APIError.raise_error compares the missing code with 400
        raise TypeError("'<=' not supported between instances of 'int' and 'NoneType'")
    kind = "ClientError" if 400 <= code < 500 else "ServerError" if 500 <= code < 600 else ""
    status = error.get("status") if isinstance(error, dict) else None
    raise _ApiError(f"{kind or 'APIError'}: {code} {status}. {payload}")


def _message_parts(
    candidate: dict[str, Any], gemini_3: bool
) -> tuple[list[str], list[dict[str, Any]]]:
    """The dict content blocks (their types) and the function calls of one candidate."""
    content = candidate.get("content") or {}
    parts = content.get("parts") or []
    blocks: list[str] = []  # plain-string text never becomes a block
    calls: list[dict[str, Any]] = []
    for part in parts:
        signed = bool(part.get("thoughtSignature"))
        text = part.get("text")
        if part.get("thought"):
            blocks.append("thinking")
        elif (text or (text is not None and signed)) and (
            signed or gemini_3 or "thinking" in blocks
        ):
            blocks.append("text")
        blocks += _other_blocks(part)
        if part.get("functionCall") is not None:
            calls.append(part["functionCall"])
    return blocks, calls


def _other_blocks(part: dict[str, Any]) -> list[str]:
    """Content blocks of the part kinds a plan never renders (code, media, server tools)."""
    blocks = []
    code = part.get("executableCode") or {}
    if code.get("code") and code.get("language"):
        blocks.append("executable_code")
    if (part.get("codeExecutionResult") or {}).get("output"):
        blocks.append("code_execution_result")
    if part.get("toolCall") is not None:
        blocks.append("server_tool_call")
    if part.get("toolResponse") is not None:
        blocks.append("server_tool_result")
    inline = part.get("inlineData") or {}
    if inline.get("data") and str(inline.get("mimeType", "")).startswith("image/"):
        blocks.append("image_url")
    return blocks


def _integer_floats(value: Any) -> Any:
    """``_convert_integer_like_floats``: ``2.0`` becomes ``2``, recursively."""
    if isinstance(value, dict):
        return {k: _integer_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integer_floats(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _is_gemini_3_or_later(model: str) -> bool:
    """langchain-google-genai's test: content becomes a list of blocks from Gemini 3 on."""
    normalized = model.lower().rsplit("/", 1)[-1]
    normalized = re.sub(r"^[a-z]{2,}\.(?=(?:gemini|gemma)-)", "", normalized)
    return any(int(major) >= 3 for major in _MAJOR_VERSION.findall(normalized))
