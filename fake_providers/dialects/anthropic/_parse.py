"""Anthropic Messages stream bytes -> the tool-call chunks ``ChatAnthropic.stream()`` yields.

A re-statement, without importing either library, of anthropic SDK 2.x's SSE
``Stream`` and langchain-anthropic's per-event conversion.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._sse import openai_sdk_events
from tooltape.fake_providers.dialects.anthropic._complete import anthropic_message_deltas
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = ["read_anthropic_stream"]


def read_anthropic_stream(body: bytes) -> Deltas:
    """The tool-call chunks of each message ``ChatAnthropic.stream`` yields from ``body``.

    One list per ``AIMessageChunk`` of langchain-anthropic 1.7.10 (tools bound,
    ``stream_usage=True``). A ``tool_use`` start gives ``{index, id, name, args}``
    (``args``: ``json.dumps(input)`` for a non-empty ``input``, else ``""``); an
    ``input_json_delta`` gives ``{index, args}`` while the last started block is
    a ``tool_use`` (after a ``server_tool_use``: an empty list).
    ``message_start``, ``message_delta``, text/thinking/citation deltas, text or
    thinking starts that carry text and other tool or result starts give empty
    lists; ``ping``, stops, ``message_stop``, events with no ``event:`` line and
    unknown events give nothing. The list ends where the adapter raises: at an
    ``error`` event, and at a ``message_delta`` with ``context_management``
    (non-beta SDK types leave it a dict, and ChatAnthropic's ``.model_dump()``
    on it raises ``AttributeError``; with ``betas`` set it would not). Data that
    is not JSON raises ``ValueError``, as in the SDK. The empty
    ``chunk_position="last"`` chunk langchain-core adds when no stop reason came
    is not the adapter's and is left out. A non-streamed Message body gives one
    message of whole calls.
    """
    if (document := json_document(body)) is not None:
        return anthropic_message_deltas(document)
    deltas: Deltas = []
    open_type: str | None = None
    for name, data in openai_sdk_events(body):  # the same decoder (both SDKs are Stainless)
        if not name:
            continue  # its Stream acts only on named events
        if name == "error":
            break
        if name == "ping" or not data:
            continue
        event = loads(data)
        if not isinstance(event, dict):
            continue
        if event.get("type") == "message_delta" and event.get("context_management"):
            break  # non-beta ChatAnthropic crashes here (see the docstring)
        message, open_type = _message_for(event, open_type)
        if message is not None:
            deltas.append(message)
    return deltas


_TOOLISH_BLOCKS = ("tool_result", "tool_use", "document", "redacted_thinking")
"""Block types ChatAnthropic yields a message for at ``content_block_start`` (substrings)."""
_CONTENT_DELTAS = {
    f"{k}_delta" for k in ("text", "citations", "thinking", "signature", "compaction")
}


def _message_for(
    event: dict[str, Any], open_type: str | None
) -> tuple[list[Any] | None, str | None]:
    """ChatAnthropic's message for one event (``None``: none) and the open block's type."""
    kind, index = event.get("type"), event.get("index")
    if kind in ("message_start", "message_delta"):
        return [], open_type
    if kind == "content_block_start" and isinstance(event.get("content_block"), dict):
        block = event["content_block"]
        block_type = str(block.get("type"))
        if any(toolish in block_type for toolish in _TOOLISH_BLOCKS):
            if block_type != "tool_use":
                return [], block_type
            parsed = block.get("input")
            args = json.dumps(parsed) if isinstance(parsed, dict) and parsed else ""
            chunk = tool_call_chunk(
                name=block.get("name"), args=args, id=block.get("id"), index=index
            )
            return [chunk], block_type
        if block_type == "text":
            return ([] if block.get("text") else None), block_type
        if block_type == "thinking":
            return ([] if block.get("thinking") or block.get("signature") else None), block_type
        return None, open_type
    if kind == "content_block_delta" and isinstance(event.get("delta"), dict):
        delta = event["delta"]
        if delta.get("type") == "input_json_delta":
            if open_type != "tool_use":
                return [], open_type
            chunk = tool_call_chunk(name=None, args=delta.get("partial_json"), id=None, index=index)
            return [chunk], open_type
        return ([] if delta.get("type") in _CONTENT_DELTAS else None), open_type
    return None, open_type
