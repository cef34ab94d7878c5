"""Shared pieces of non-streaming turns: telling a JSON body from a stream, and its calls.

A request that does not ask for a stream gets the provider's whole JSON body
(:meth:`~tooltape.fake_providers.Dialect.complete`). Reading such a body back
(:meth:`~tooltape.fake_providers.Dialect.parse`, ``tooltape inspect``) gives
one message whose tool-call chunks are whole, as a non-streaming LangChain
adapter builds them: name, args as JSON text, id, and the call's position as
its index.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._wire import ProviderRequest
from tooltape.harness import Deltas, Plan, PlannedCall
from tooltape.harness.json_text import loads

__all__ = ["call_deltas", "json_document", "plan_of_calls", "request_field"]


def json_document(body: bytes) -> object | None:
    """The body parsed as one JSON document when it is one (an object or an array), else None.

    Server-sent events, NDJSON of several lines and AWS event streams are not
    one JSON document, so they give ``None``; so does an empty body.
    """
    head = body.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    try:
        document: object = loads(body)
    except (ValueError, RecursionError):
        return None
    return document


def call_deltas(calls: Iterable[tuple[str | None, Any, str | None]]) -> Deltas:
    """One message of whole tool-call chunks from ``(name, args, id)`` triples.

    ``args`` that are not already JSON text are dumped the way langchain adapters
    dump a parsed ``input`` / ``args`` object.
    """
    chunks = [
        tool_call_chunk(
            name=name,
            args=args if isinstance(args, str) else json.dumps(args if args is not None else {}),
            id=call_id,
            index=n,
        )
        for n, (name, args, call_id) in enumerate(calls)
    ]
    return [chunks]


def plan_of_calls(calls: Iterable[dict[str, Any]]) -> Plan:
    """A plan holding merged tool calls (``name``, ``args`` dict, ``id``), for a wire turn."""
    planned = []
    for call in calls:
        if not call.get("name"):
            continue  # a nameless fragment is no call a whole body could hold
        args = call.get("args")
        planned.append(
            PlannedCall(
                name=str(call["name"]),
                args=args if isinstance(args, dict) else {},
                id=call.get("id") or None,
            )
        )
    return Plan(calls=tuple(planned))


def request_field(request: ProviderRequest | None, name: str) -> Any:
    """A top-level field of the request's JSON body (``None`` when absent or unreadable)."""
    if request is None:
        return None
    try:
        body = request.json()
    except ValueError:
        return None
    return body.get(name) if isinstance(body, dict) else None
