"""Profiles: a named server (``azure``, ``vllm``...) as a base dialect plus quirks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tooltape.fake_providers._dialect import Dialect, ProviderEvent
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
        """Render with the profile's quirks first, then the caller's."""
        return self.base.render(plan, [*self.quirks, *quirks], seed, request=request)
