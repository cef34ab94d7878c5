"""The dialect interface: one provider API's events, framing, parser and request rules.

A dialect is a small subclass of :class:`Dialect`. It says how a planned stream
becomes provider events (:meth:`Dialect.events`), how the client's bytes map
back to the ``ToolCallChunk`` deltas that provider's reference LangChain
adapter builds (:meth:`Dialect.parse`), and which request histories the real
API rejects and with what status and body (:meth:`Dialect.validate`).
Framing and wire quirks are shared: :meth:`Dialect.render` is the template
method that ties the steps together and should not be overridden.

Subclasses register themselves by ``name``; :func:`get_dialect` finds them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._call_ids import IdFormat, mint_call_id, with_provider_ids
from tooltape.fake_providers._event_shape import EventShape
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.harness import Deltas, Plan, PlannedStream, Quirk, Stage, parse_quirk, stream_plan
from tooltape.harness._names import unknown_name

__all__ = ["Dialect", "ProviderEvent", "dialect_names", "get_dialect", "register_profile"]

_DIALECTS: dict[str, type[Dialect]] = {}
_PROFILES: dict[str, tuple[str, tuple[Quirk, ...], str]] = {}


@dataclass(frozen=True)
class ProviderEvent:
    """One event a provider sends: a JSON payload (or a sentinel string) and its SSE event name."""

    data: dict[str, Any] | str
    """The payload; a string such as ``[DONE]`` is sent verbatim."""
    event: str | None = None
    """The SSE ``event:`` field (``None``: no ``event:`` line)."""


class Dialect(ABC):
    """Base of every dialect. Subclasses set the class attributes and three methods.

    Class attributes:
        name: the registry name (``openai_chat``).
        path: the URL path the provider serves (``/v1/chat/completions``).
        framing: ``sse`` or ``ndjson`` (or ``eventstream`` for AWS).
        media_type: the response ``content-type``.
        stream_flag: whether the body's ``stream`` field selects streaming.
    """

    name: ClassVar[str]
    path: ClassVar[str]
    framing: ClassVar[Literal["sse", "ndjson", "eventstream"]] = "sse"
    media_type: ClassVar[str] = "text/event-stream"
    stream_flag: ClassVar[bool] = False
    """True when the request body's ``"stream": true`` asks for a stream (OpenAI, Anthropic)."""
    event_shape: ClassVar[EventShape] = ()
    """The types of the fields that carry tool calls (see :mod:`._event_shape`)."""
    call_id_format: ClassVar[IdFormat | None] = None
    """How the provider mints tool-call ids; the ids a plan numbered itself (``call_<n>``)
    are sent in this format (see :mod:`._call_ids`). ``None``: the plan's ids as they are."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is None:
            return
        if name in _DIALECTS:
            raise TypeError(f"dialect {name!r} is registered twice")
        _DIALECTS[name] = cls

    # -- what a subclass writes -------------------------------------------------------

    @abstractmethod
    def events(self, stream: PlannedStream, quirks: Sequence[Quirk]) -> list[ProviderEvent]:
        """The provider events for a planned stream, with the EVENTS-stage quirks applied."""

    @abstractmethod
    def parse(self, body: bytes) -> Deltas:
        """The deltas the provider's reference LangChain adapter builds from these bytes."""

    @abstractmethod
    def validate(self, request: ProviderRequest) -> ProviderError | None:
        """``None`` when the real API accepts the request, else its real status and body."""

    def body_error(self, problem: BodyProblem) -> ProviderError:
        """The provider's answer to a body it cannot bind (too large, never finished ...).

        Servers call it before a body is whole; every built-in dialect answers in
        its provider's error shape. The default is OpenAI's shape.
        """
        from tooltape.fake_providers.dialects.openai_chat._validate import openai_body_error

        return openai_body_error(problem)

    # -- shared machinery -------------------------------------------------------------

    def frame(self, event: ProviderEvent) -> bytes:
        """Encode one event in this dialect's framing."""
        from tooltape.fake_providers._sse import encode_ndjson, encode_sse

        if self.framing == "ndjson":
            if isinstance(event.data, str):
                return (event.data + "\n").encode()
            return encode_ndjson(event.data)
        return encode_sse(event.data, event.event)

    def planned_calls(self, plan: Plan, seed: int = 0) -> list[dict[str, Any]]:
        """``plan.expected_calls()`` with the ids this dialect sends for them at ``seed``.

        Ids the plan numbered (``call_<n>``) become the provider-shaped ids
        :meth:`render` mints (:attr:`call_id_format`); given ids stay as they are.
        """
        calls = plan.expected_calls()
        if self.call_id_format is None:
            return calls
        for call, planned in zip(calls, plan.calls, strict=True):
            if planned.id is not None and not planned.id_given:
                call["id"] = mint_call_id(self.call_id_format, planned.id, planned.name, seed)
        return calls

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """The events as an answer to ``request``: what the provider echoes or leaves out.

        A dialect whose provider repeats the request's model or tools, or sends a
        part only when asked (OpenAI's usage chunk), overrides this; the default
        changes nothing.
        """
        return events

    def render(
        self,
        plan: Plan | PlannedStream,
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int = 0,
        *,
        request: ProviderRequest | None = None,
    ) -> Wire:
        """Render a plan to wire bytes (final: subclasses override the steps, not this).

        Tool-chunk quirks shape the planned stream, the ids the plan numbered take
        the provider's format (:attr:`call_id_format`), EVENTS quirks are applied by
        :meth:`events`, the answer is fitted to ``request`` (:meth:`echo`; without
        one, to the realistic request of the bundled library: a default model, no
        tools, OpenAI's usage chunk asked for), and WIRE quirks re-frame the bytes;
        all are deterministic for ``seed``.
        """
        parsed = [parse_quirk(q) for q in quirks]
        chunk_quirks = [q for q in parsed if q.stage < Stage.EVENTS]
        event_quirks = [q for q in parsed if q.stage is Stage.EVENTS]
        wire_quirks = [q for q in parsed if q.stage is Stage.WIRE]
        stream = (
            plan if isinstance(plan, PlannedStream) else stream_plan(plan, chunk_quirks, seed=seed)
        )
        stream = with_provider_ids(stream, self.call_id_format)
        events = self.events(stream, event_quirks)
        if request is not None:
            events = self.echo(events, request)
        frames = [self.frame(event) for event in events]
        return self.wire(frames, wire_quirks, seed)

    def wire(self, frames: list[bytes], wire_quirks: Sequence[Quirk], seed: int) -> Wire:
        """Cut framed events into reads, applying wire quirks (one read per event by default)."""
        from tooltape.fake_providers._framing import apply_wire_quirks

        return apply_wire_quirks(
            frames, wire_quirks, seed=seed, headers=(("content-type", self.media_type),)
        )


def get_dialect(name: str) -> Dialect:
    """Return the dialect (or profile) registered under ``name``.

    Raises:
        TooltapeUsageError: No dialect or profile has that name; the message lists them.
    """
    _load_builtin_dialects()
    if name in _DIALECTS:
        return _DIALECTS[name]()
    if name in _PROFILES:
        from tooltape.fake_providers._profile import ProfileDialect

        base, quirks, description = _PROFILES[name]
        return ProfileDialect(name, get_dialect(base), quirks, description)
    raise unknown_name(
        "dialect", name, dialect_names(profiles=True), plural="dialects and profiles"
    )


def dialect_names(*, profiles: bool = False) -> list[str]:
    """The registered dialect names, sorted (with ``profiles=True``, the profiles too).

    Names starting with ``_`` are private (a test's own dialect) and not listed.
    """
    _load_builtin_dialects()
    names = {name for name in _DIALECTS if not name.startswith("_")}  # "_x": tests' own
    if profiles:
        names |= set(_PROFILES)
    return sorted(names)


def register_profile(
    name: str, base: str, quirks: Iterable[Quirk | str | dict[str, Any]], description: str
) -> None:
    """Register an OpenAI-compatible server profile: a base dialect plus quirks."""
    if name in _PROFILES or name in _DIALECTS:
        raise TypeError(f"dialect or profile {name!r} is registered twice")
    _PROFILES[name] = (base, tuple(parse_quirk(q) for q in quirks), description)


def _load_builtin_dialects() -> None:
    """Import the bundled dialect modules so they register (cheap after the first call)."""
    import importlib

    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


_BUILTIN_MODULES: tuple[str, ...] = (
    "tooltape.fake_providers.dialects.openai_chat._dialect",
    "tooltape.fake_providers.dialects.openai_responses._dialect",
    "tooltape.fake_providers.dialects.anthropic._dialect",
    "tooltape.fake_providers.dialects.gemini._dialect",
    "tooltape.fake_providers.dialects.ollama._dialect",
    "tooltape.fake_providers.dialects.cohere._dialect",
    "tooltape.fake_providers.dialects.bedrock._converse",
    "tooltape.fake_providers.dialects.openai_compatible._profiles",
)
"""Modules that define the bundled dialects; importing one registers its dialect."""
