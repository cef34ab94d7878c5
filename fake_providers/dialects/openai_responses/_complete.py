"""The Responses body for a request without ``"stream": true``, and its reading.

A non-streamed ``POST /v1/responses`` answers with the Response object itself
(API reference, "The response object"), the same object the stream's terminal
``response.completed`` (or ``response.incomplete``) event carries, with every
output item whole. Function calls are ``function_call`` items: ``id`` (``fc_…``),
``call_id``, ``name`` and ``arguments`` as JSON text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.non_streaming import call_deltas
from tooltape.harness import Deltas

__all__ = ["response_deltas", "response_object"]

_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def response_object(events: Sequence[ProviderEvent]) -> dict[str, Any]:
    """The Response object of the stream's terminal event."""
    for event in reversed(events):
        data = event.data
        if isinstance(data, dict) and data.get("type") in _TERMINAL:
            return dict(data["response"])
    raise ValueError("the rendered Responses stream has no terminal event")


def response_deltas(body: object) -> Deltas:
    """The tool-call chunks ``ChatOpenAI(use_responses_api=True).invoke()`` builds."""
    output = body.get("output") if isinstance(body, dict) else None
    items = [i for i in output or [] if isinstance(i, dict) and i.get("type") == "function_call"]
    return call_deltas((i.get("name"), i.get("arguments") or "", i.get("call_id")) for i in items)
