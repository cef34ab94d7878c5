"""The dialect interface: one provider API's events, framing, parser and request rules.

A dialect is a small subclass of :class:`Dialect`. It says how a planned stream
becomes provider events (:meth:`Dialect.events`), how the client's bytes map
back to the ``ToolCallChunk`` deltas that provider's reference LangChain
adapter builds (:meth:`Dialect.parse`), and which request histories the real
API rejects and with what status and body (:meth:`Dialect.validate`).
Framing and wire quirks are shared: :meth:`Dialect.render` is the template
method that ties the steps together and should not be overridden.

The registry (:mod:`tooltape.fake_providers._registry`) lists the bundled dialects;
:func:`~tooltape.fake_providers.register_dialect` adds a user's own.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._call_ids import IdShape, mint_call_id, with_provider_ids
from tooltape.fake_providers._event_text import Piece
from tooltape.fake_providers._sse import encode_ndjson, encode_sse
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.event_shapes import EventShape
from tooltape.fake_providers.integration import Integration
from tooltape.harness import (
    Deltas,
    Finish,
    Plan,
    PlannedStream,
    Quirk,
    Stage,
    TooltapeUsageError,
    parse_quirk,
    stream_plan,
)
from tooltape.harness.json_text import compact

__all__ = ["Dialect", "EventQuirks", "ProviderEvent", "path_pattern"]


Q = TypeVar("Q", bound=Quirk)


class EventQuirks(tuple[Quirk, ...]):
    """The EVENTS quirks of one render, read by class: the one way a dialect reads them.

    ``quirks.get(AnthropicPingEvents)`` is the quirk (typed) or ``None``;
    ``quirks.has(NoUsageChunk)`` says whether it was asked for. By the time a
    dialect's :meth:`Dialect.build_events` sees them, every one is of a class the
    dialect declared in ``event_quirks``, and one per kind (the last asked for).
    Quirks that rewrite finished events themselves (``ChatEventQuirk.rewrite_events``,
    the OpenAI-compatible servers' quirks) are found the same way.
    """

    __slots__ = ()

    def get(self, cls: type[Q]) -> Q | None:
        """The first quirk that is a ``cls`` (subclasses included), or ``None``."""
        return next((quirk for quirk in self if isinstance(quirk, cls)), None)

    def has(self, cls: type[Quirk]) -> bool:
        """Whether a quirk of class ``cls`` was asked for."""
        return self.get(cls) is not None


@dataclass(frozen=True)
class ProviderEvent:
    """One event a provider sends: a JSON payload (or a sentinel string) and its SSE event name."""

    data: dict[str, Any] | str
    """The payload; a string such as ``[DONE]`` is sent verbatim."""
    event: str | None = None
    """The SSE ``event:`` field (``None``: no ``event:`` line)."""


class Dialect(Integration, ABC):
    """Base of every dialect. Subclasses declare the class attributes and write four methods.

    The quirk declarations (``carries``, ``lacks``, ``cannot_express``,
    ``event_quirks``) are enforced here, once, before :meth:`build_events` runs: a
    tool-chunk quirk renders when the wire carries every capability it ``needs``.

    What a dialect declares about the world around its wire (base URL, SDK, chat
    model, accumulators ...) is documented on :class:`Integration`.

    Class attributes:
        name: the registry name (``openai_chat``).
        path: the URL path the provider serves (``/v1/chat/completions``).
        framing: ``sse`` or ``ndjson`` (or ``eventstream`` for AWS).
        media_type: the response ``content-type``.
        stream_flag: whether the body's ``stream`` field selects streaming.
        complete_path: the path of the non-streaming operation, for providers whose
            URL (not the body) chooses streaming (Gemini, Bedrock).
        event_shape: the types of the fields that carry tool calls.
        carries: the wire capabilities (``tooltape.harness.CAPABILITIES``) it has.
        lacks: why it lacks each capability it does not carry (optional).
        cannot_express: kinds refused whatever they need, each with the reason.
        event_quirks: the EVENTS quirk classes it renders.

    A request that does not ask for a stream gets :meth:`complete`'s JSON body,
    which :meth:`completion_body` accumulates from the stream's events.

    Methods: :meth:`build_events`, :meth:`parse`, :meth:`validate`, :meth:`body_error`.
    A method that only hands over to a module function can be that function:
    ``parse = staticmethod(read_my_stream)``, as the bundled dialects do.
    ``tests/fake_providers/test_dialect_contract.py`` checks every registered
    dialect against this list.
    """

    name: ClassVar[str]
    path: ClassVar[str]
    framing: ClassVar[Literal["sse", "ndjson", "eventstream"]] = "sse"
    media_type: ClassVar[str] = "text/event-stream"
    stream_flag: ClassVar[bool] = False
    """True when the request body's ``"stream": true`` asks for a stream (OpenAI, Anthropic)."""
    completion_media_type: ClassVar[str] = "application/json"
    """The ``content-type`` of a non-streamed answer."""
    complete_path: ClassVar[str | None] = None
    """The non-streaming operation's path (``:generateContent``, ``/converse``), if not ``path``."""
    event_shape: ClassVar[EventShape] = ()
    """The types of the fields that carry tool calls (see :mod:`.event_shapes`)."""
    carries: ClassVar[frozenset[str]] = frozenset()
    """The capabilities (``tooltape.harness.CAPABILITIES``) this wire has: a tool-chunk
    quirk renders when its ``needs`` are among them."""
    lacks: ClassVar[Mapping[str, str]] = {}
    """Why this wire lacks a capability, by capability (a generic reason otherwise)."""
    cannot_express: ClassVar[Mapping[str, str]] = {}
    """Quirk kinds refused whatever they need, with the reason (other dialects' EVENTS kinds)."""
    event_quirks: ClassVar[tuple[type[Quirk], ...]] = ()
    """The EVENTS quirk classes (subclasses included) this dialect renders."""
    call_id_format: ClassVar[IdShape | None] = None
    """How the provider mints tool-call ids; the ids a plan numbered itself (``call_<n>``)
    are sent in this format (see :mod:`._call_ids`). ``None``: the plan's ids as they are."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from tooltape.fake_providers._expressible import check_capabilities

        check_capabilities(cls.__name__, cls.carries, cls.lacks, "expresses" in cls.__dict__)

    @property
    def expresses(self) -> frozenset[str]:
        """The tool-chunk quirk kinds this wire can say, derived from what it ``carries``."""
        from tooltape.fake_providers._expressible import expressed_kinds

        return expressed_kinds(self.carries, self.cannot_express)

    # -- what a subclass writes -------------------------------------------------------

    @abstractmethod
    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The provider events for a planned stream, with the EVENTS-stage quirks applied.

        Called by :meth:`events` once the quirks passed the dialect's declarations;
        read them with :meth:`EventQuirks.get` / :meth:`EventQuirks.has`.
        """

    @abstractmethod
    def parse(self, body: bytes) -> Deltas:
        """The deltas the provider's reference LangChain adapter builds from these bytes."""

    def event_pieces(self, data: Any) -> list[Piece]:
        """What one streamed event's decoded payload says besides tool-call fragments.

        The text and reasoning it carries, in order, and ``("tool", "")`` when it
        starts or carries a tool call: how a recording's plan gets its text before
        and after the calls (``tooltape.cassettes.mutate``). The base reads nothing.
        """
        return []

    def event_finish(self, data: Any) -> Finish | None:
        """The finish a streamed event's decoded payload reports, when it is not ``stop``.

        ``length`` (a token limit) or ``content_filter``; ``None`` for anything else.
        """
        return None

    @abstractmethod
    def validate(self, request: ProviderRequest) -> ProviderError | None:
        """``None`` when the real API accepts the request, else its real status and body."""

    def complete(self, plan: Plan, request: ProviderRequest | None = None) -> dict[str, Any]:
        """The JSON body the provider sends for ``plan`` when the request did not stream.

        ``request`` (when given) supplies what the provider echoes, such as the model.
        The body is :meth:`completion_body` of the :meth:`completion_events`.
        """
        return self.completion_body(self.completion_events(plan, request))

    def completion_body(self, events: list[ProviderEvent]) -> dict[str, Any]:
        """The non-streamed body accumulated from a stream's events (see :meth:`complete`).

        Every built-in dialect writes its provider's shape; the default refuses.
        """
        raise TooltapeUsageError(f"dialect {self.name!r} has no non-streaming body")

    def completion_events(
        self, plan: Plan, request: ProviderRequest | None, quirks: Sequence[Quirk] = ()
    ) -> list[ProviderEvent]:
        """The events a non-streamed body (:meth:`complete`) is accumulated from.

        The plan's stream without quirks at seed 0, with what :meth:`render` gives
        every stream: provider-shaped ids for the ids the plan numbered (given ids,
        such as those of :meth:`provider_plan`, stay) and the echo of ``request``.
        """
        stream = with_provider_ids(stream_plan(plan, (), seed=0), self.call_id_format)
        events = self.events(stream, quirks)
        return events if request is None else self.echo(events, request)

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """Serialise a non-streamed answer as the provider does (compact JSON by default)."""
        return compact(body).encode()

    def completion_wire(self, body: dict[str, Any]) -> Wire:
        """The 200 response carrying a non-streamed answer (final: override the two above)."""
        content = self.completion_bytes(body)
        headers = (("content-type", self.completion_media_type),)
        return Wire((content,), 200, (*headers, ("content-length", str(len(content)))))

    def wants_stream(self, request: ProviderRequest) -> bool:
        """True when ``request`` asks for a stream, False when it wants one JSON body.

        By the URL when the dialect has a ``complete_path``, else by the body's
        ``stream`` field: ``"stream": true`` for ``stream_flag`` dialects,
        anything but ``"stream": false`` for the others (Ollama streams by default).
        """
        if self.complete_path is not None:
            return not path_pattern(self.complete_path).search(request.path)
        try:
            body = request.json()
        except ValueError:
            return True  # validation answers a body that is not JSON
        flag = body.get("stream") if isinstance(body, dict) else None
        return flag is True if self.stream_flag else flag is not False

    @abstractmethod
    def body_error(self, problem: BodyProblem) -> ProviderError:
        """The provider's answer to a body it cannot bind (too large, never finished ...).

        Servers call it before a body is whole; every dialect answers in its
        provider's error shape.
        """

    # -- shared machinery -------------------------------------------------------------

    def events(self, stream: PlannedStream, quirks: Sequence[Quirk]) -> list[ProviderEvent]:
        """The provider events (final: subclasses write :meth:`build_events`).

        Raises:
            TooltapeUsageError: A tool-chunk quirk of ``stream`` or an EVENTS quirk that
                this dialect does not declare it can express (see :mod:`._expressible`).
        """
        self.check_quirks([*stream.quirks, *quirks])
        last_of_each_kind = {quirk.kind: quirk for quirk in quirks}  # a caller's beats a profile's
        return self.build_events(stream, EventQuirks(last_of_each_kind.values()))

    def check_quirks(self, quirks: Iterable[Quirk]) -> None:
        """Raise for the first quirk this dialect's declarations refuse (final).

        Raises:
            TooltapeUsageError: ``quirk Q cannot be rendered by dialect D: <reason>``.
        """
        from tooltape.fake_providers._expressible import refusal

        message = refusal(self, quirks)
        if message:
            raise TooltapeUsageError(message)

    def frame(self, event: ProviderEvent) -> bytes:
        """Encode one event in this dialect's framing."""
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
        return self.provider_plan(plan, seed).expected_calls()

    def provider_plan(self, plan: Plan, seed: int = 0) -> Plan:
        """``plan`` with the ids :meth:`render` sends at ``seed`` in place of numbered ones.

        The non-streamed answer to a turn (:meth:`complete`) is built from it, so
        a JSON body carries the same provider-shaped ids as the stream would.
        """
        if self.call_id_format is None:
            return plan
        calls = [
            call.model_copy(
                update={"id": mint_call_id(self.call_id_format, call.id, call.name, seed)}
            )
            if call.id is not None and not call.id_given
            else call
            for call in plan.calls
        ]
        return plan.model_copy(update={"calls": tuple(calls)})

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
        return self._rendered(plan, quirks, seed, request)

    def _rendered(
        self,
        plan: Plan | PlannedStream,
        quirks: Iterable[Quirk | str | dict[str, Any]],
        seed: int,
        request: ProviderRequest | None,
    ) -> Wire:
        """:meth:`render`'s work; a profile overrides this one step."""
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
        from tooltape.fake_providers.framing import apply_wire_quirks

        return apply_wire_quirks(
            frames, wire_quirks, seed=seed, headers=(("content-type", self.media_type),)
        )


def path_pattern(path: str) -> re.Pattern[str]:
    """Match ``path`` as a suffix, without its version segment; ``{name}`` matches any text."""
    core = re.sub(r"^/v\d+[a-z0-9]*(?=/)", "", path)
    pieces = re.split(r"\{[^}/]+\}", core)
    return re.compile(".+".join(re.escape(piece) for piece in pieces) + "$")
