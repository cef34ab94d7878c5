"""What langchain-aws 1.9.1 builds from Bedrock event-stream bytes, without importing it.

Both Bedrock adapters read the body through botocore, so each parser here
works in two steps, as the real stack does:

1. botocore 1.44: an exception or error message (``:message-type``
   ``exception``/``error``) raises ``EventStreamError``; an ``:event-type`` the
   operation does not model yields no event; a payload is parsed as JSON (an
   empty one as ``{}``, one that is not JSON as ``{"message": <text>}``), only
   modelled members are kept, ``null`` members are dropped, and a union
   (``start``, ``delta``) with other than one member set raises.
2. The adapter's per-event code (``_parse_stream_event`` in
   ``chat_models/bedrock_converse.py``; ``prepare_output_stream`` and
   ``_stream_response_to_generation_chunk`` in ``llms/bedrock.py``), mirrored
   branch by branch, including where it raises (a missing key, an unknown
   content block, an AWS exception event).

The deltas end where the adapter raises: the chunks it yielded before are
kept, as a ``.stream()`` caller holds them when the exception arrives. A
corrupt frame (CRC, lengths) ends them too: botocore raises there.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from typing import Any

from langchain_core.messages import ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers.dialects.anthropic._complete import anthropic_message_deltas
from tooltape.fake_providers.dialects.bedrock._complete import converse_completion_deltas
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    InvalidEventStream,
    iter_eventstream,
)
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = ["parse_converse", "parse_invoke"]

_CONVERSE_EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop"}
    | {"messageStop", "metadata"}
)
_CONVERSE_EXCEPTIONS = frozenset(
    {"internalServerException", "modelStreamErrorException", "validationException"}
    | {"throttlingException", "serviceUnavailableException"}
)
_START_MEMBERS = {
    "toolUse": ("toolUseId", "name", "type"),
    "toolResult": ("toolUseId", "type", "status"),
    "image": ("format",),
}
_DELTA_MEMBERS = frozenset({"text", "toolUse", "toolResult", "reasoningContent"})
_DELTA_MEMBERS |= {"citation", "image"}
_REASONING_MEMBERS = frozenset({"text", "redactedContent", "signature"})
_CRASHES = (KeyError, TypeError, AttributeError, IndexError, ValueError)
"""What the adapter (or botocore under it) raises on a payload it cannot handle."""


class _AdapterRaises(Exception):
    """The real stack raises at this event; the deltas end before it."""


def _payload(raw: bytes) -> Any:
    """The payload as botocore's JSON parser reads it."""
    if not raw:
        return {}
    text = raw.decode("utf-8")
    try:
        return loads(text)
    except ValueError:
        return {"message": text}


def _set_members(value: Any) -> dict[str, Any]:
    """A structure's members as botocore keeps them (``null`` ones dropped)."""
    if not isinstance(value, dict):
        raise _AdapterRaises  # botocore calls .get on it
    return {key: item for key, item in value.items() if item is not None}


def _union_tag(value: Any, members: frozenset[str] | dict[str, Any]) -> str:
    """The member set in a union; raise where botocore or the adapter does."""
    tags = [key for key in _set_members(value) if key != "__type"]
    if len(tags) != 1 or tags[0] not in members:
        raise _AdapterRaises  # botocore: "one and only one member"; adapter: unknown block
    return tags[0]


def _chunk(name: Any, args: Any, id: Any, index: Any) -> ToolCallChunk:
    """A tool-call chunk as ``AIMessageChunk`` validates it (lax int for the index)."""
    if any(v is not None and not isinstance(v, str) for v in (name, args, id)):
        raise _AdapterRaises
    if isinstance(index, str) and index.strip().isdigit():
        index = int(index)
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise _AdapterRaises
    return tool_call_chunk(name=name, args=args, id=id, index=index)


# --- ChatBedrockConverse --------------------------------------------------------------------


def _converse_start(event: dict[str, Any]) -> list[ToolCallChunk]:
    start = event["start"]
    tag = _union_tag(start, _START_MEMBERS)
    inner = {k: v for k, v in _set_members(start[tag]).items() if k in _START_MEMBERS[tag]}
    if tag == "image" or (tag == "toolResult" and "toolUseId" not in inner):
        raise _AdapterRaises  # _bedrock_to_lc reads image.source / tool_result.tool_use_id
    index = event["contentBlockIndex"]
    if tag == "toolUse" and inner.get("type", "tool_use") == "tool_use":
        # server tools ("type": "server_tool_use") give no chunk here, but their
        # input deltas below do (nameless, id-less): pinned in the tests.
        return [_chunk(inner.get("name"), None, inner.get("toolUseId"), index)]
    return []


def _converse_delta(event: dict[str, Any]) -> list[ToolCallChunk]:
    delta = event["delta"]
    tag = _union_tag(delta, _DELTA_MEMBERS)
    value = delta[tag]
    if tag == "image":
        raise _AdapterRaises  # _bedrock_to_lc reads image.format, which a delta lacks
    if tag == "toolResult":
        items = value if isinstance(value, list) else None
        if not items or any(not ({"text", "json"} & set(_set_members(i))) for i in items):
            raise _AdapterRaises  # an empty list: [0] of nothing; other items: ValueError
    if tag == "reasoningContent":
        _union_tag(value, _REASONING_MEMBERS)
    if tag == "toolUse":
        args = _set_members(value).get("input")
        return [_chunk(None, args, None, event["contentBlockIndex"])]
    event["contentBlockIndex"]
    return []


def _converse_message(event_type: str, event: dict[str, Any]) -> list[ToolCallChunk]:
    if event_type == "messageStart":
        event["role"]
        return []
    if event_type == "contentBlockStart":
        return _converse_start(event)
    if event_type == "contentBlockDelta":
        return _converse_delta(event)
    if event_type == "metadata":
        _set_members(event["usage"])
    return []  # contentBlockStop, messageStop, metadata


def parse_converse(body: bytes) -> Deltas:
    """The tool-call chunks of each message ``ChatBedrockConverse.stream`` yields from ``body``.

    One list per ``AIMessageChunk`` langchain-aws 1.9.1 yields, through
    botocore 1.44's ``converse_stream`` (tools bound). ``messageStart``,
    ``contentBlockStop``, ``messageStop``, ``metadata``, text, reasoning,
    citation and tool-result deltas and non-tool block starts give empty
    lists; a ``toolUse`` start gives ``{index, id, name, args: None}`` (its
    ``type`` ``server_tool_use`` gives an empty list); a ``toolUse`` delta gives
    ``{index, args: input}``. Unmodelled event types give nothing. The list ends
    at an exception message (``EventStreamError``), at an event named after an
    exception (``ValueError: Received AWS exception ...``), and wherever the
    adapter fails on a payload (see the module docstring). The
    ``ConnectionError`` it raises after the last chunk when no ``messageStop``
    came, and the empty ``chunk_position="last"`` chunk langchain-core adds
    otherwise, change no list and are left out. A non-streamed
    ``ConverseResponse`` body gives one message of whole calls.
    """
    if (document := json_document(body)) is not None:
        return converse_completion_deltas(document)
    deltas: Deltas = []
    try:
        for event_type, raw in _events(body):
            if event_type not in _CONVERSE_EVENTS | _CONVERSE_EXCEPTIONS:
                continue
            event = _set_members(_payload(raw))
            if event_type in _CONVERSE_EXCEPTIONS:
                break
            deltas.append(_guarded(_converse_message, event_type, event))
    except (_AdapterRaises, InvalidEventStream, UnicodeDecodeError):
        pass
    return deltas


def _events(body: bytes) -> Iterator[tuple[Any, bytes]]:
    """Each event message's ``:event-type`` and payload, up to the first exception message."""
    for message in iter_eventstream(body):
        if message.message_type in ("exception", "error"):
            return
        yield message.headers.get(":event-type"), message.payload


def _guarded(
    handler: Callable[[str, dict[str, Any]], list[ToolCallChunk]],
    event_type: str,
    event: dict[str, Any],
) -> list[ToolCallChunk]:
    try:
        return handler(event_type, event)
    except _CRASHES as error:
        raise _AdapterRaises from error


# --- ChatBedrock (InvokeModelWithResponseStream, Anthropic models) --------------------------


def _invoke_message(event: Any) -> list[ToolCallChunk] | None:
    """The message ``_stream_response_to_generation_chunk`` makes (messages API, tools bound)."""
    kind = event.get("type")
    if kind == "message_start":
        return []
    if kind == "content_block_start":
        block = event["content_block"]
        if block is not None and block["type"] == "tool_use":
            return [_chunk(block["name"], "", block["id"], event["index"])]
        return None
    if kind == "content_block_delta":
        delta = event["delta"]
        if not delta:
            return []
        delta_type = delta["type"]
        if delta_type == "citations_delta":
            delta["citation"]
        if delta_type in ("text_delta", "citations_delta", "thinking_delta", "signature_delta"):
            event["index"]
            return []
        if delta_type == "input_json_delta":
            return [_chunk(None, delta["partial_json"], None, event["index"])]
        return None
    if kind == "message_delta":
        event["delta"].get("stop_reason")
        return []
    return None


def _invoke_event(payload: dict[str, Any]) -> Any:
    """The Anthropic event inside a ``chunk``: botocore decodes the blob, the adapter the JSON."""
    try:
        data = base64.b64decode(payload["bytes"])
        return loads(data.decode())
    except (binascii.Error, TypeError, ValueError) as error:
        raise _AdapterRaises from error


def parse_invoke(body: bytes) -> Deltas:
    """The tool-call chunks of each message ``ChatBedrock.stream`` yields from ``body``.

    One list per ``AIMessageChunk`` of langchain-aws 1.9.1's ``ChatBedrock``
    (an Anthropic model, tools bound, so the messages API with list content).
    Only ``chunk`` events count (botocore decodes ``bytes`` from base64); in
    them, ``message_start``, ``message_delta``, and text, citation, thinking and
    signature deltas give empty lists; a ``tool_use`` block start gives ``{index,
    id, name, args: ""}`` (its ``input`` is ignored); an ``input_json_delta``
    gives ``{index, args: partial_json}`` whatever block is open. Other events
    (``content_block_stop``, ``ping``, text starts, unknown types) give nothing.
    ``message_stop`` gives one empty list (the invocation-metrics chunk) and
    ends the stream: the adapter stops reading there. The list also ends at an
    exception message and wherever the adapter fails on a payload. A
    non-streamed Message body (``InvokeModel``) gives one message of whole calls.
    """
    if (document := json_document(body)) is not None:
        return anthropic_message_deltas(document)
    deltas: Deltas = []
    try:
        for event_type, raw in _events(body):
            if event_type != "chunk":
                continue
            payload = _set_members(_payload(raw))
            if payload.get("bytes") is None:
                continue  # an empty chunk: the adapter skips it
            event = _invoke_event(payload)
            try:
                chunks = _invoke_message(event)
            except _CRASHES as error:
                raise _AdapterRaises from error
            if chunks is not None:
                deltas.append(chunks)
            if event.get("type") == "message_stop":
                deltas.append([])
                break
    except (_AdapterRaises, InvalidEventStream, UnicodeDecodeError):
        pass
    return deltas
