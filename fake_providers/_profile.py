"""Profiles: a named server (``azure``, ``vllm``...) as a base dialect plus quirks."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import request_body
from tooltape.fake_providers._event_text import Piece
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.integration import ToolSpec
from tooltape.harness import Deltas, Finish, Plan, PlannedStream, Quirk

__all__ = ["ProfileDialect"]

_INTEGRATION_OF_BASE = (
    "model",
    "sdk",
    "sdk_stack",
    "chat_model_module",
    "chat_model_class",
    "chat_model_options",
    "accumulators",
)
"""The base dialect's :class:`Integration` declarations a profile keeps as they are."""


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
        self.complete_path = base.complete_path  # type: ignore[misc]
        self.completion_media_type = base.completion_media_type  # type: ignore[misc]
        self.event_shape = base.event_shape  # type: ignore[misc]
        self.carries = base.carries  # type: ignore[misc]
        self.lacks = base.lacks  # type: ignore[misc]
        self.cannot_express = base.cannot_express  # type: ignore[misc]
        self.event_quirks = base.event_quirks  # type: ignore[misc]
        self.base_url = _profile_base_url(name) or base.base_url  # type: ignore[misc]
        for declared in _INTEGRATION_OF_BASE:
            setattr(self, declared, getattr(base, declared))
        self.no_accumulator = base.no_accumulator  # type: ignore[misc]
        self.call_id_format = base.call_id_format  # type: ignore[misc]

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The base dialect's events."""
        return self.base.build_events(stream, quirks)

    def event_pieces(self, data: Any) -> list[Piece]:
        """The base dialect's reading."""
        return self.base.event_pieces(data)

    def event_finish(self, data: Any) -> Finish | None:
        """The base dialect's reading."""
        return self.base.event_finish(data)

    def parse(self, body: bytes) -> Deltas:
        """The base dialect's reading."""
        return self.base.parse(body)

    def complete(self, plan: Plan, request: ProviderRequest | None = None) -> dict[str, Any]:
        """The base dialect's non-streaming body."""
        return self.base.complete(plan, request)

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """The base dialect's serialisation of a non-streamed answer."""
        return self.base.completion_bytes(body)

    def validate(self, request: ProviderRequest) -> ProviderError | None:
        """The base dialect's request rules."""
        return self.base.validate(request)

    def body_error(self, problem: BodyProblem) -> ProviderError:
        """The base dialect's answer to a body it cannot bind."""
        return self.base.body_error(problem)

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """The base dialect's request."""
        return self.base.request_body(prompt, tools)

    def request_query(self) -> dict[str, str]:
        """The base dialect's query."""
        return self.base.request_query()

    def sdk_client(self, base_url: str, **kwargs: Any) -> Any:
        """The base dialect's SDK client."""
        return self.base.sdk_client(base_url, **kwargs)

    def chat_model(
        self, base_url: str, *, tools: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> Any:
        """The base dialect's chat model (a profile is reached at its own base URL)."""
        return self.base.chat_model(base_url, tools=tools, **kwargs)

    def _rendered(
        self,
        plan: Plan | PlannedStream,
        quirks: Iterable[Quirk | str | dict[str, Any]],
        seed: int,
        request: ProviderRequest | None,
    ) -> Wire:
        """The base dialect's rendering, with the profile's quirks first, then the caller's.

        The model is echoed from ``request``; whether usage is sent is the profile's
        (compatible servers differ from OpenAI: Databricks sends it unasked), so the
        request reaches the base dialect as one that asked for it.
        """
        if request is not None:
            request = _asking_for_usage(request)
        quirks = [*self.quirks, *quirks]
        return self.base._rendered(plan, quirks, seed, request)


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


def _profile_base_url(name: str) -> str | None:
    """Where a bundled profile's server lives (vLLM on :8000 ...); ``None`` for others."""
    from tooltape.fake_providers.dialects.openai_compatible._profiles import PROFILES

    return next((p.base_url for p in PROFILES if p.name == name), None)
