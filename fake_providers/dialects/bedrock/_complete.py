"""Bedrock's non-streamed answers: ``Converse`` and ``InvokeModel`` (Claude).

``POST /model/{modelId}/converse`` answers a ``ConverseResponse`` (API
reference, Converse, "Response Syntax"): ``output.message`` with ``role`` and
``content`` blocks (``text``, ``reasoningContent.reasoningText``, ``toolUse``
with ``toolUseId``, ``name`` and the whole ``input`` object), ``stopReason``,
``usage`` and ``metrics``. It is what the ConverseStream events of the same
turn accumulate to. The ``type`` key a rendered ``toolUse`` start carries is
kept on the block (inferred: the documented syntax does not list it).

``POST /model/{modelId}/invoke`` with an Anthropic body answers the Anthropic
Message itself (``msg_bdrk_…`` id), what the relayed ``chunk`` events hold.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.dialects.anthropic._complete import anthropic_message
from tooltape.fake_providers.non_streaming import call_deltas
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = ["converse_completion", "converse_completion_deltas", "invoke_completion"]


def converse_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered ConverseStream events into one ``ConverseResponse``."""
    blocks: dict[int, dict[str, Any]] = {}
    body: dict[str, Any] = {}
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        if event.event == "contentBlockStart":
            blocks[data["contentBlockIndex"]] = {"toolUse": {**data["start"]["toolUse"]}}
        elif event.event == "contentBlockDelta":
            block = blocks.setdefault(data["contentBlockIndex"], {})
            _add_delta(block, data["delta"])
        elif event.event == "messageStop":
            body["stopReason"] = data["stopReason"]
        elif event.event == "metadata":
            body |= {"usage": data["usage"], "metrics": data["metrics"]}
    content = [_whole(blocks[index]) for index in sorted(blocks)]
    return {"output": {"message": {"role": "assistant", "content": content}}, **body}


def _add_delta(block: dict[str, Any], delta: dict[str, Any]) -> None:
    if "text" in delta:
        block["text"] = block.get("text", "") + delta["text"]
    elif "toolUse" in delta:
        tool = block.setdefault("toolUse", {})
        tool["input"] = tool.get("input", "") + delta["toolUse"]["input"]
    elif "reasoningContent" in delta:
        reasoning = block.setdefault("reasoningContent", {"reasoningText": {"text": ""}})
        part = delta["reasoningContent"]
        if "text" in part:
            reasoning["reasoningText"]["text"] += part["text"]
        if "signature" in part:
            reasoning["reasoningText"]["signature"] = part["signature"]


def _whole(block: dict[str, Any]) -> dict[str, Any]:
    if "toolUse" in block:
        tool = block["toolUse"]
        text = tool.get("input", "")
        return {"toolUse": {**tool, "input": loads(text) if text else {}}}
    return block


def converse_completion_deltas(body: object) -> Deltas:
    """The tool-call chunks ``ChatBedrockConverse.invoke()`` builds from a ``ConverseResponse``."""
    output = body.get("output") if isinstance(body, dict) else None
    message = (output or {}).get("message") or {}
    tools = [
        b["toolUse"] for b in message.get("content") or [] if isinstance(b, dict) and "toolUse" in b
    ]
    return call_deltas((t.get("name"), t.get("input"), t.get("toolUseId")) for t in tools)


def invoke_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """The Anthropic Message inside rendered InvokeModelWithResponseStream ``chunk`` events."""
    inner = [
        ProviderEvent(loads(base64.b64decode(e.data["bytes"])))
        for e in events
        if isinstance(e.data, dict) and "bytes" in e.data
    ]
    return anthropic_message(inner)
