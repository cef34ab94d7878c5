"""Helpers for :meth:`Dialect.echo`: read what a request asked for, put it in the answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.harness.json_text import loads

__all__ = ["echo_model", "map_dicts", "request_body", "requested_model", "url_model"]

_URL_MODEL = re.compile(r"models/([^/:]+):")


def request_body(request: ProviderRequest) -> dict[str, Any]:
    """The request's JSON object (``{}`` for an empty body, or one that is not an object)."""
    try:
        body = loads(request.body) if request.body else None
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def requested_model(request: ProviderRequest) -> str | None:
    """The body's ``model`` when it is a non-empty string, else ``None``."""
    model = request_body(request).get("model")
    return model if isinstance(model, str) and model else None


def url_model(request: ProviderRequest) -> str | None:
    """The model named in the path (Gemini's ``models/{model}:streamGenerateContent``)."""
    found = _URL_MODEL.search(request.path)
    return found.group(1) if found else None


def map_dicts(
    events: list[ProviderEvent], edit: Callable[[dict[str, Any]], dict[str, Any] | None]
) -> list[ProviderEvent]:
    """Apply ``edit`` to every JSON-object event (``None`` drops the event); others pass."""
    out = []
    for event in events:
        if not isinstance(event.data, dict):
            out.append(event)
            continue
        data = edit(event.data)
        if data is not None:
            out.append(ProviderEvent(data, event.event))
    return out


def echo_model(events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
    """Every event that names a ``model`` names the request's instead (when it gives one)."""
    model = requested_model(request)
    if model is None:
        return events
    return map_dicts(events, lambda data: {**data, "model": model} if "model" in data else data)
