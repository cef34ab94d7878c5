"""Read a recorded body as events, checking each one: SSE, NDJSON, AWS event stream or JSON.

Each :class:`BodyEvent` says where its bytes are, its type (the SSE ``event:``
name, or the payload's ``type``/``object``, or the AWS ``:event-type``) and its
payload. A body that is not what its framing says, or an event whose data is
not JSON, is a :class:`CassetteError` naming the file, the interaction and the
event, except the last event of a recording whose connection dropped: that one
is expected to be cut, and is listed as not dispatched.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import base64
import contextlib
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes.body_framing import _SSE_LINE, Framing, split_frames
from tooltape.fake_providers import decode_sse
from tooltape.harness.bounded_reprs import bounded_text, error_text
from tooltape.harness.json_text import loads

__all__ = ["BodyEvent", "read_events"]


@dataclass(frozen=True, slots=True)  # a recording can hold millions
class BodyEvent:
    """One framed event of a recorded body."""

    number: int
    """Position in the body, from 0 (comment-only blocks count too)."""
    start: int
    """Offset of its first byte."""
    end: int
    """Offset after its last byte."""
    kind: str
    """Its type: SSE ``event:`` name, payload ``type``/``object``, ``[DONE]``, ``comment``..."""
    data: Any
    """The payload: parsed JSON, a sentinel string, or ``None``."""
    dispatched: bool = True
    """False for blocks a client never dispatches (comments, an unterminated tail)."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "number": self.number,
            "bytes": [self.start, self.end],
            "kind": self.kind,
            "data": self.data,
            "dispatched": self.dispatched,
        }


@dataclass(frozen=True)
class _Where:
    path: str | Path | None
    interaction: int | None
    aborted: bool

    def fail(self, event: int | None, problem: str) -> CassetteError:
        return CassetteError(f"{where(self.path, self.interaction, event)}: {problem}")


def _kind(data: Any, fallback: str) -> str:
    if isinstance(data, dict):
        for key in ("type", "object"):
            if isinstance(data.get(key), str):
                return str(data[key])
        if "error" in data:
            return "error"
    return fallback


def _excerpt(raw: bytes) -> str:
    text = raw[:400].decode("utf-8", "replace").strip()
    return repr(text[:60] + ("…" if len(text) > 60 or len(raw) > 400 else ""))


def _json_problem(error: Exception) -> str:
    if isinstance(error, RecursionError):
        return "it nests too deep"
    return bounded_text(str(error), 160)


def _json(raw: str, number: int, here: _Where, cut_ok: bool) -> tuple[Any, bool]:
    try:
        return loads(raw), True
    except (ValueError, RecursionError) as error:
        if cut_ok:
            return raw, False
        raise here.fail(
            number,
            f"data is not JSON ({_json_problem(error)}): {_excerpt(raw[:400].encode())}; "
            "a truncated event?",
        ) from None


def _ends_with_blank_line(frame: bytes) -> bool:
    lines = _SSE_LINE.findall(frame)
    return len(lines) > 1 and lines[-1] in (b"\n", b"\r\n", b"\r")


def _plain_data(text: str) -> str | None:
    """The data of a frame that is one ``data:`` line and its blank line, else ``None``.

    The common frame: a client's decoder dispatches exactly this data and nothing
    else from it, so it is read without the decoder.
    """
    if (
        text.startswith("data:")
        and text.endswith("\n\n")
        and text.count("\n") == 2
        and "\r" not in text
    ):
        line = text[:-2]
        return line[6:] if line[5:6] == " " else line[5:]
    return None


def _first_event(text: str) -> tuple[str, str | None] | None:
    """The data and ``event:`` name of the first event a client dispatches from one frame."""
    plain = _plain_data(text)
    return (plain, None) if plain is not None else _decoded_first(text)


def _decoded_first(text: str) -> tuple[str, str | None] | None:
    decoded = decode_sse(text, flush_at_eof=True)
    return (decoded[0].data, decoded[0].event) if decoded else None


def _sse(frames: list[bytes], here: _Where) -> list[BodyEvent]:
    events, position = [], 0
    for number, frame in enumerate(frames):
        start, position = position, position + len(frame)
        last = number == len(frames) - 1
        terminated = not last or _ends_with_blank_line(frame)
        try:
            text = frame.decode("utf-8")
        except UnicodeDecodeError:
            if last and here.aborted:
                events.append(BodyEvent(number, start, position, "cut", None, False))
                continue
            raise here.fail(number, f"not UTF-8 text: {_excerpt(frame)}") from None
        data = _plain_data(text)
        dispatched = (data, None) if data is not None else _decoded_first(text)
        cut = not terminated and here.aborted
        if dispatched is None:
            kind = "cut" if cut else "comment"
            events.append(BodyEvent(number, start, position, kind, text.strip(), False))
            continue
        payload, event = dispatched
        data_ok = True
        if payload.strip() != "[DONE]":
            payload, data_ok = _json(payload, number, here, cut_ok=cut)
        kind = event or _kind(payload, "[DONE]" if payload == "[DONE]" else "data")
        events.append(BodyEvent(number, start, position, kind, payload, terminated and data_ok))
    if frames and all(e.kind in ("comment", "cut") for e in events):
        raise here.fail(None, f"the body is not server-sent events: {_excerpt(frames[0])}")
    return events


def _lines(frames: list[bytes], here: _Where) -> list[BodyEvent]:
    events, position = [], 0
    for number, frame in enumerate(frames):
        start, position = position, position + len(frame)
        if not frame.strip():
            continue
        last_cut = number == len(frames) - 1 and not frame.endswith(b"\n")
        try:
            text = frame.decode("utf-8")
        except UnicodeDecodeError:
            raise here.fail(number, f"not UTF-8 text: {_excerpt(frame)}") from None
        payload, ok = _json(text, number, here, cut_ok=last_cut and here.aborted)
        events.append(BodyEvent(number, start, position, _kind(payload, "line"), payload, ok))
    return events


def _aws_headers(raw: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    sizes = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
    position = 0
    while position < len(raw):
        name_length = raw[position]
        name = raw[position + 1 : position + 1 + name_length].decode()
        kind = raw[position + 1 + name_length]
        position += 2 + name_length
        if kind in (6, 7):
            (length,) = struct.unpack_from(">H", raw, position)
            value = raw[position + 2 : position + 2 + length]
            headers[name] = value.decode() if kind == 7 else value
            position += 2 + length
        else:
            headers[name] = kind == 0 if kind < 2 else raw[position : position + sizes[kind]]
            position += sizes[kind]
    return headers


def _aws(frames: list[bytes], here: _Where) -> list[BodyEvent]:
    events, position = [], 0
    for number, frame in enumerate(frames):
        start, position = position, position + len(frame)
        try:
            total, header_length = struct.unpack_from(">II", frame)
            if total != len(frame):
                raise ValueError("length prefix and size differ")
            headers = _aws_headers(frame[12 : 12 + header_length])
            payload = frame[12 + header_length : total - 4]
        except (ValueError, struct.error, IndexError, KeyError, UnicodeDecodeError) as error:
            if number == len(frames) - 1 and here.aborted:
                events.append(BodyEvent(number, start, position, "cut", None, False))
                continue
            raise here.fail(
                number, f"not an AWS event-stream message ({error_text(error)})"
            ) from None
        data: Any = payload.decode("utf-8", "replace")
        with contextlib.suppress(ValueError, RecursionError):
            data = loads(payload) if payload else None
        if isinstance(data, dict) and isinstance(data.get("bytes"), str):
            # InvokeModelWithResponseStream wraps the model's own event in base64.
            with contextlib.suppress(ValueError, RecursionError):
                data = {**data, "bytes": loads(base64.b64decode(data["bytes"]))}
        kind = str(headers.get(":event-type") or headers.get(":exception-type") or "message")
        events.append(BodyEvent(number, start, position, kind, data))
    return events


def read_events(
    body: bytes,
    framing: Framing,
    *,
    path: str | Path | None = None,
    interaction: int | None = None,
    aborted: bool = False,
) -> list[BodyEvent]:
    """The events of ``body`` in the given framing, each checked.

    Raises:
        CassetteError: The body is not in that framing, or an event's data is not JSON.
    """
    here = _Where(path, interaction, aborted)
    frames = split_frames(body, "", framing=framing)
    if framing == "sse":
        return _sse(frames, here)
    if framing == "ndjson":
        return _lines(frames, here)
    if framing == "eventstream":
        return _aws(frames, here)
    if not body.strip():
        return []
    try:
        data = loads(body)
    except (ValueError, RecursionError) as error:
        raise here.fail(
            None, f"the body is not JSON ({_json_problem(error)}): {_excerpt(body)}"
        ) from None
    return [BodyEvent(0, 0, len(body), _kind(data, "json"), data)]
