r"""What ``ChatCohere`` (langchain-cohere 0.6, cohere SDK 5.x) yields from a ``/v2/chat`` stream.

The two adapter paths differ, so the reading takes a ``mode``:

``stream`` (``ChatCohere.stream()``, the dialect's ``parse``): a chunk per
``content-delta`` and ``tool-plan-delta`` (no tool chunks), one chunk per
``tool-call-start`` / ``tool-call-delta`` holding one tool chunk with the event's
``index`` and a *fresh* ``uuid4`` id (the adapter builds a ``ToolCallV2`` without
the id and the SDK's override mints one), and at ``tool-call-end`` the previous
chunk yielded again. ``message-end`` yields a ``chunk_position="last"`` chunk
whose ``additional_kwargs["tool_calls"]`` (the calls the adapter buffered, real
ids, ``index`` absent) langchain-core's backwards-compatibility parser turns into
tool chunks with ``index=None``. Because every fragment carries its own id,
langchain-core's id check (langchain-core's ``merge_lists``) refuses to merge them: the merge holds
each call twice, whole (from ``message-end``) and as a named ``{}`` call plus
loose fragments. Minted ids are deterministic uuid4-shaped stand-ins here.

``astream`` (``ChatCohere.astream()``): no tool or tool-plan chunks while
streaming; ``message-end`` yields one chunk with the tool plan as content and the
buffered calls as whole chunks (``index=None``, real ids). A call without
``tool-call-end`` is never reported, and the single buffer mixes interleaved calls.

SDK decoding: the sync ``EventSource.iter_sse`` splits lines on ``\n`` only
(after decoding each read with ``errors="replace"``, so a UTF-8 character cut
between reads becomes U+FFFD, which a body-level parse cannot see); the async one
uses httpx's ``aiter_lines`` (``str.splitlines``). Both keep the last event id
and so dispatch empty events after an ``id:`` line, stop at ``[DONE]``, and skip,
with a logged warning, events that are not JSON or do not validate (a
``tool-call-start`` without an id, a non-string argument, an unknown ``type``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any, Literal

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._sse import sdk_line_events
from tooltape.fake_providers._stand_in_ids import StandInUuids
from tooltape.fake_providers._stream_reading import StreamReading, ended, raised
from tooltape.fake_providers.dialects.cohere._complete import cohere_completion_deltas
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Delta, Deltas
from tooltape.harness.json_text import loads

__all__ = ["parse_cohere", "read_cohere_stream"]

_TOOL_EVENTS = ("tool-call-start", "tool-call-delta", "tool-plan-delta", "tool-call-end")
_KNOWN_TYPES = {"message-start", "content-start", "content-delta", "content-end", "message-end"}
_KNOWN_TYPES |= {"citation-start", "citation-end", "debug", *_TOOL_EVENTS}
_TEMPLATE: dict[str, Any] = {
    "id": "",
    "type": "function",
    "function": {"name": "", "arguments": ""},
}


class _Unbound(Exception):
    """Stands for the ``UnboundLocalError`` ChatCohere raises at a premature ``tool-call-end``."""


def parse_cohere(body: bytes) -> Deltas:
    """The deltas ``ChatCohere.stream()`` yields from ``body`` (up to any exception).

    Its tool chunks carry deterministic stand-ins for the random ids the adapter
    mints per fragment; ``read_cohere_stream(body, mode="astream")`` gives what
    ``.astream()`` yields instead, and whether either raised. A non-streamed
    ``ChatResponse`` body gives one message of whole calls.
    """
    if (document := json_document(body)) is not None:
        return cohere_completion_deltas(document)
    return read_cohere_stream(body).deltas


def read_cohere_stream(
    body: bytes, *, mode: Literal["stream", "astream"] = "stream"
) -> StreamReading:
    """Read a Cohere v2 chat SSE body the way the cohere SDK and ``ChatCohere`` do.

    Args:
        body: The raw response body.
        mode: ``stream`` for ``ChatCohere.stream()``, ``astream`` for ``.astream()``.

    Returns:
        The deltas yielded and, if the adapter raised, the exception's name and detail.
    """
    reader = _Reader(body, asynchronous=mode == "astream")
    try:
        for event in _sdk_events(body, asynchronous=mode == "astream"):
            reader.read(event)
    except _Unbound as error:
        return raised(reader.deltas, error, "UnboundLocalError")
    except (ValueError, TypeError, AttributeError) as error:
        return raised(reader.deltas, error)
    return ended(reader.deltas)  # langchain-core refuses an empty generation


# --- the SDK: SSE decoding and event validation -----------------------------------------


def _sdk_events(body: bytes, *, asynchronous: bool) -> Iterator[dict[str, Any]]:
    """The event payloads ``v2.chat_stream`` yields (validated, ``index`` coerced)."""
    text = body.decode("utf-8", errors="replace")
    lines = text.splitlines() if asynchronous else [s.rstrip("\r") for s in text.split("\n")[:-1]]
    for _event, payload in sdk_line_events(lines):
        if payload == "[DONE]":
            return
        parsed = _validated(payload)
        if parsed is not None:
            yield parsed


def _validated(data: str) -> dict[str, Any] | None:
    """The payload when the SDK's model validation accepts it, else ``None`` (skipped)."""
    if not data:
        return None  # the SSE envelope validates as message-start, which ChatCohere ignores
    try:
        payload = loads(data)
    except json.JSONDecodeError:
        return None
    if not isinstance(payload, dict) or payload.get("type", "message-start") not in _KNOWN_TYPES:
        return None
    if "index" in payload and payload["index"] is not None:
        index = payload["index"]
        if isinstance(index, str) and index.strip().lstrip("-").isdigit():
            payload["index"] = int(index)
        elif not isinstance(index, int) or isinstance(index, bool):
            return None
    return payload if _fields_valid(payload) else None


def _fields_valid(payload: dict[str, Any]) -> bool:
    """The model constraints ChatCohere depends on: nested objects, string fields, the call id."""
    delta = payload.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    if not (_dict_or_none(delta) and _dict_or_none(message)):
        return False
    message = message or {}
    kind = payload.get("type")
    if kind in ("tool-call-start", "tool-call-delta"):
        calls = message.get("tool_calls")
        if calls is None:
            return True
        function = calls.get("function") if isinstance(calls, dict) else None
        if not isinstance(calls, dict) or not _dict_or_none(function):
            return False
        if kind == "tool-call-start" and not isinstance(calls.get("id"), str):
            return False
        fields = ("name", "arguments") if kind == "tool-call-start" else ("arguments",)
        return all(_str_or_none((function or {}).get(f)) for f in fields)
    if kind == "tool-plan-delta":
        return _str_or_none(message.get("tool_plan"))
    if kind == "content-delta":
        content = message.get("content")
        return _dict_or_none(content) and all(
            _str_or_none((content or {}).get(f)) for f in ("text", "thinking")
        )
    return True


def _dict_or_none(value: Any) -> bool:
    return value is None or isinstance(value, dict)


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


# --- the adapter ------------------------------------------------------------------------


def _get(obj: Any, field: str) -> Any:
    """``obj.field`` on an SDK model: ``None`` when declared but absent, an error on ``None``."""
    if obj is None:
        raise AttributeError(f"'NoneType' object has no attribute '{field}'")
    return obj.get(field)


class _Reader:
    """ChatCohere's ``_stream`` / ``_astream`` loop over the SDK's events."""

    def __init__(self, body: bytes, *, asynchronous: bool) -> None:
        self.asynchronous = asynchronous
        self.deltas: Deltas = []
        self.current: dict[str, Any] = copy.deepcopy(_TEMPLATE)
        self.calls: list[dict[str, Any]] = []
        self.chunk: Delta | None = None  # the adapter's `chunk` variable (None: unbound)
        self.delta_bound = False
        self.stand_ins = StandInUuids(body)

    def mint(self) -> str:
        """A deterministic stand-in for the SDK's ``str(uuid.uuid4())``."""
        return str(self.stand_ins())

    def emit(self, chunk: Delta) -> None:
        self.chunk, self.delta_bound = chunk, True
        if not self.asynchronous:
            self.deltas.append(chunk)

    def read(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        if kind == "content-delta":
            content = _get(_get(_get(data, "delta"), "message"), "content")
            if content is not None and (
                content.get("thinking") is not None or content.get("text") is not None
            ):
                self.chunk, self.delta_bound = [], True
                self.deltas.append([])
        elif kind in _TOOL_EVENTS:
            self.tool_event(kind, data)
        elif kind == "message-end":
            self.delta_bound = True
            self.deltas.append(self.message_end(_get(data, "delta")))

    def tool_event(self, kind: str, data: dict[str, Any]) -> None:
        if kind in ("tool-call-start", "tool-call-delta"):
            calls = _get(_get(_get(data, "delta"), "message"), "tool_calls")
            function = _get(calls, "function")
            if kind == "tool-call-start":
                self.current["id"] = _get(calls, "id")
                self.current["function"]["name"] = _get(function, "name")
                name = function.get("name")
            else:
                arguments = _get(function, "arguments")
                if arguments is None:
                    raise TypeError('can only concatenate str (not "NoneType") to str')
                self.current["function"]["arguments"] += arguments
                name = function.get("name")  # an undeclared extra field, kept by the model
            if not _str_or_none(name):
                raise ValueError("ToolCallV2Function.name: input should be a valid string")
            args = function.get("arguments")
            index = data.get("index")
            self.emit([tool_call_chunk(name=name, args=args, id=self.mint(), index=index)])
        elif kind == "tool-plan-delta":
            text = _get(_get(_get(data, "delta"), "message"), "tool_plan")
            if text is None:
                raise ValueError("AIMessageChunk.content: input should be a valid string")
            self.emit([])  # text only: the plan is content, streamed or (astream) joined at the end
        else:
            self.calls.append(self.current)
            self.current = copy.deepcopy(_TEMPLATE)
            if not self.delta_bound or self.chunk is None:
                variable = "delta" if not self.delta_bound else "chunk"
                raise _Unbound(
                    f"cannot access local variable '{variable}' where it is not associated "
                    "with a value"
                )
            if not self.asynchronous:
                self.deltas.append(self.chunk)  # the previous chunk, yielded again

    def message_end(self, delta: Any) -> Delta:
        billed = _get(_get(delta, "usage"), "billed_units")
        input_tokens, output_tokens = _get(billed, "input_tokens"), _get(billed, "output_tokens")
        _ = input_tokens + output_tokens  # the adapter sums them: None raises TypeError
        chunks = [
            tool_call_chunk(
                name=call["function"]["name"],
                args=call["function"]["arguments"],
                id=call.get("id"),
                index=None,
            )
            for call in self.calls
        ]
        return chunks
