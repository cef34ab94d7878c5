"""What ``ChatOllama`` (langchain-ollama 1.1, ollama-python 0.6) yields from an NDJSON body.

Mirrored without importing either: httpx splits the body with ``str.splitlines``
(so a blank line fails ``json.loads``), an object with a truthy ``error`` raises,
the line is validated as a ``ChatResponse``, and the adapter turns each line into
one ``AIMessageChunk`` whose whole ``tool_calls`` become chunks with
``index=None`` and ``args=json.dumps(args)`` (ASCII escapes), after its band-aid
for ollama#6155 (string values that parse as JSON or Python lists/dicts are
replaced by them; a ``functionName`` key echoing the name is dropped). ChatOllama
ignores the provider's id and mints ``uuid4()`` per call; parse mints
deterministic uuid4-shaped ids from the body instead, so results are
reproducible: compare ids by position, never by value. ``done_reason: "load"``
lines with no content are skipped. The empty ``chunk_position="last"`` chunk
langchain-core appends is left out. ``.astream()`` yields the same.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._stand_in_ids import StandInUuids
from tooltape.fake_providers._stream_reading import StreamReading, ended, raised
from tooltape.harness import Delta, Deltas
from tooltape.harness.json_text import loads

__all__ = ["parse_ollama", "read_ollama_stream"]


class _ResponseError(Exception):
    """Stands for ``ollama.ResponseError`` raised on an in-stream ``{"error": ...}`` line."""


class _ValidationError(ValueError):
    """Stands for pydantic's ``ValidationError`` of ollama's ``ChatResponse``."""


def parse_ollama(body: bytes) -> Deltas:
    """The deltas ``ChatOllama.stream()`` yields from ``body`` (up to any exception).

    Ids are deterministic stand-ins for ChatOllama's random ``uuid4()``; use
    :func:`read_ollama_stream` to learn whether, and how, the stream raised.
    A non-streamed answer is one line of the same shape, read alike.
    """
    return read_ollama_stream(body).deltas


def read_ollama_stream(body: bytes) -> StreamReading:
    """Read an Ollama NDJSON ``body`` the way ollama-python and ``ChatOllama`` do."""
    deltas: Deltas = []
    stand_ins = StandInUuids(body)

    def minted() -> str:  # ChatOllama's str(uuid4())
        return str(stand_ins())

    try:
        # httpx decodes with errors="replace" and splits lines like str.splitlines().
        for line in body.decode("utf-8", errors="replace").splitlines():
            part = loads(line)
            if err := part.get("error"):
                raise _ResponseError(f"{err} (status code: -1)")
            delta = _adapter_delta(_validated(part), minted)
            if delta is not None:
                deltas.append(delta)
    except _ResponseError as error:
        return raised(deltas, error, "ResponseError")
    except _ValidationError as error:
        return raised(deltas, error, "ValidationError")
    except (ValueError, TypeError, AttributeError) as error:
        return raised(deltas, error)
    return ended(deltas)  # langchain-core refuses an empty generation


def _validated(part: dict[str, Any]) -> dict[str, Any]:
    """The checks of ollama's ``ChatResponse`` model that decide whether a line is read."""
    message = part.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        raise _ValidationError("ChatResponse.message: a message object with a role is required")
    if message.get("content") is not None and not isinstance(message["content"], str):
        raise _ValidationError("ChatResponse.message.content: input should be a valid string")
    for n, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not (
            isinstance(function, dict)
            and isinstance(function.get("name"), str)
            and isinstance(function.get("arguments"), dict)
        ):
            raise _ValidationError(
                f"ChatResponse.message.tool_calls.{n}.function: a name string and an "
                "arguments mapping are required"
            )
    return part


def _adapter_delta(part: dict[str, Any], minted: Callable[[], str]) -> Delta | None:
    """ChatOllama's chunk for one line (``None``: a skipped ``load`` line)."""
    message = part["message"]
    content = message.get("content", "")
    if content is None:
        raise _ValidationError("AIMessageChunk.content: input should be a valid string or list")
    if part.get("done") is True and part.get("done_reason") == "load" and not content.strip():
        return None
    return [
        tool_call_chunk(
            name=call["function"]["name"],
            args=json.dumps(_band_aid_arguments(call["function"]) or {}),
            id=minted(),
            index=None,
        )
        for call in message.get("tool_calls") or ()
    ]


def _band_aid_arguments(function: dict[str, Any]) -> dict[str, Any]:
    """ChatOllama's ``_parse_arguments_from_tool_call`` for a mapping (ollama#6155)."""
    parsed: dict[str, Any] = {}
    for key, value in function["arguments"].items():
        if key == "functionName" and value == function["name"]:
            continue
        if isinstance(value, str):
            decoded = _json_or_literal(value)
            parsed[key] = decoded if isinstance(decoded, (dict, list)) else value
        else:
            parsed[key] = value
    return parsed


def _json_or_literal(text: str) -> Any:
    try:
        return loads(text)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(text)
        except (SyntaxError, ValueError, TypeError):
            return text
