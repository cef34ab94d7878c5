"""Profiles: a named server (``azure``, ``vllm``...) as a base dialect plus quirks."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any

from tooltape.fake_providers._dialect import Dialect, ProviderEvent
from tooltape.fake_providers._echo import request_body
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.harness import Deltas, Plan, PlannedStream, Quirk

__all__ = ["ProfileDialect"]


class ProfileDialect(Dialect):
    """A base dialect that always applies a profile's quirks before the caller's."""

    def __init__(self, name: str, base: Dialect, quirks: Sequence[Quirk], description: str) -> None:
        self.name = name  # type: ignore[misc]  # an instance name; profiles do not register
        self.base = base
        self.quirks = tuple(quirks)
        self.description = description
        self.path = base.path  # type: ignore[misc]
        self.framing = base.framing  # type: ignore[misc]
        self.media_type = base.media_type  # type: ignore[misc]
        self.stream_flag = base.stream_flag  # type: ignore[misc]
        self.event_shape = base.event_shape  # type: ignore[misc]
        self.call_id_format = base.call_id_format  # type: ignore[misc]

    def events(self, stream: PlannedStream, quirks: Sequence[Quirk]) -> list[ProviderEvent]:
        """The base dialect's events."""
        return self.base.events(stream, quirks)

    def parse(self, body: bytes) -> Deltas:
        """The base dialect's reading."""
        return self.base.parse(body)

    def validate(self, request: ProviderRequest) -> ProviderError | None:
        """The base dialect's request rules."""
        return self.base.validate(request)

    def render(
        self,
        plan: Plan | PlannedStream,
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int = 0,
        *,
        request: ProviderRequest | None = None,
    ) -> Wire:
        """Render with the profile's quirks first, then the caller's.

        The model is echoed from ``request``; whether usage is sent is the profile's
        (compatible servers differ from OpenAI: Databricks sends it unasked), so the
        request reaches the base dialect as one that asked for it.
        """
        if request is not None:
            request = _asking_for_usage(request)
        return self.base.render(plan, [*self.quirks, *quirks], seed, request=request)


def _asking_for_usage(request: ProviderRequest) -> ProviderRequest:
    """``request`` with ``stream_options.include_usage`` set (a body that is a JSON object)."""
    body = request_body(request)
    if not body:
        return request
    options = body.get("stream_options")
    options = {**options, "include_usage": True} if isinstance(options, dict) else {}
    options.setdefault("include_usage", True)
    encoded = json.dumps({**body, "stream_options": options}).encode()
    return dataclasses.replace(request, body=encoded)
