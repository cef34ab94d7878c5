"""The Messages body for a request without ``"stream": true``, and its reading.

The body is the Message object the turn's streamed events accumulate to, as
the SDK's ``MessageStream`` accumulates them and as the non-streaming API
returns it (API reference, "Messages": ``id``, ``type: "message"``, ``role``,
``model``, ``content`` blocks, ``stop_reason``, ``stop_sequence``, ``usage``).
Keys keep the order of the rendered ``message_start`` (the live API's order);
a ``tool_use`` block carries its whole ``input`` object. Claude on Bedrock
(InvokeModel) returns the same object.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.non_streaming import call_deltas
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = ["anthropic_message", "anthropic_message_deltas"]

_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking"}


def anthropic_message(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered Messages stream events into one Message."""
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for event in events:
        data = event.data
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind == "message_start":
            message = copy.deepcopy(data["message"])
        elif kind == "content_block_start":
            blocks[data["index"]] = copy.deepcopy(data["content_block"])
        elif kind == "content_block_delta":
            _apply_delta(blocks[data["index"]], data["delta"], partial, data["index"])
        elif kind == "message_delta":
            message.update(data.get("delta") or {})
            message["usage"] = {**message.get("usage", {}), **(data.get("usage") or {})}
    for index, text in partial.items():
        blocks[index]["input"] = loads(text) if text else {}
    message["content"] = [blocks[index] for index in sorted(blocks)]
    return message


def _apply_delta(
    block: dict[str, Any], delta: dict[str, Any], partial: dict[int, str], index: int
) -> None:
    kind = delta.get("type", "")
    if kind in _DELTA_FIELDS:
        field = _DELTA_FIELDS[kind]
        block[field] = block.get(field, "") + delta[field]
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + delta["partial_json"]
    elif kind == "signature_delta":
        block["signature"] = delta["signature"]


def anthropic_message_deltas(body: object) -> Deltas:
    """The tool-call chunks ``ChatAnthropic.invoke()`` builds from a Message body."""
    content = body.get("content") if isinstance(body, dict) else None
    blocks = [b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"]
    return call_deltas((b.get("name"), b.get("input"), b.get("id")) for b in blocks)
