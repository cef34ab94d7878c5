"""The v2 ``/v2/chat`` body for a request without ``"stream": true``, and its reading.

Cohere's non-streamed ``ChatResponse`` (API reference, "Chat" v2, response):
``id``, ``message`` (``role``; ``content`` blocks of ``text`` / ``thinking``,
``tool_plan`` and ``tool_calls`` — each ``id``, ``type: "function"``,
``function.name``, ``function.arguments`` as JSON text — when the answer has
them), ``finish_reason`` and ``usage`` (``billed_units`` and ``tokens``). It is
what the stream's ``message-start`` … ``message-end`` events accumulate to.
That empty ``content``/``tool_plan``/``tool_calls`` are left out is inferred
from the SDK's optional fields and the documented examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.non_streaming import call_deltas
from tooltape.harness import Deltas

__all__ = ["cohere_completion", "cohere_completion_deltas"]


def cohere_completion(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """Accumulate rendered v2 chat stream events into one ``ChatResponse``."""
    body: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[str, Any]] = {}
    plan = ""
    for event in events:
        data = event.data
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        message = (data.get("delta") or {}).get("message") or {}
        if kind == "message-start":
            body["id"] = data.get("id")
        elif kind in ("content-start", "content-delta"):
            block = blocks.setdefault(data["index"], {})
            for key, value in (message.get("content") or {}).items():
                block[key] = block.get(key, "") + value if key != "type" else value
        elif kind == "tool-plan-delta":
            plan += message.get("tool_plan") or ""
        elif kind in ("tool-call-start", "tool-call-delta"):
            _add_call(calls, data["index"], message.get("tool_calls") or {})
        elif kind == "message-end":
            body["message"] = _message(blocks, plan, calls)
            body |= {k: v for k, v in data["delta"].items() if k in ("finish_reason", "usage")}
    return body


def _add_call(calls: dict[int, dict[str, Any]], index: int, entry: dict[str, Any]) -> None:
    function = entry.get("function") or {}
    if index not in calls:
        name = function.get("name") or ""
        calls[index] = {"id": entry.get("id"), "type": "function", "function": {"name": name}}
        calls[index]["function"]["arguments"] = ""
    calls[index]["function"]["arguments"] += function.get("arguments") or ""


def _message(
    blocks: dict[int, dict[str, Any]], plan: str, calls: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant"}
    if blocks:
        message["content"] = [blocks[index] for index in sorted(blocks)]
    if plan:
        message["tool_plan"] = plan
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message


def cohere_completion_deltas(body: object) -> Deltas:
    """The tool-call chunks ``ChatCohere.invoke()`` builds from a ``ChatResponse``.

    The ids are the wire's: ``invoke()`` keeps them (the streamed adapter mints its own).
    """
    message = body.get("message") if isinstance(body, dict) else None
    calls = (message or {}).get("tool_calls") or []
    return call_deltas(
        (
            (c.get("function") or {}).get("name"),
            (c.get("function") or {}).get("arguments"),
            c.get("id"),
        )
        for c in calls
        if isinstance(c, dict)
    )
