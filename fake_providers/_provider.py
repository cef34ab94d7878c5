"""Scripted fake providers and the router that every transport shares.

A :class:`FakeProvider` plays one dialect at one base URL: each request is
validated the way the real API validates it, then answered with the next
scripted turn (a rendered stream or an HTTP error). A :class:`ProviderRouter`
picks the provider for a request by host and path, and answers a request no
provider serves with a 404 that names the routes that exist. The transports
(httpx2, respx, ASGI) only translate HTTP objects to and from
:class:`ProviderRequest` and :class:`Wire`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlsplit

from tooltape.fake_providers._dialect import Dialect, path_pattern
from tooltape.fake_providers._limits import cut_body, trim_log
from tooltape.fake_providers._registry import get_dialect
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.http_objects import json_wire
from tooltape.fake_providers.non_streaming import plan_of_calls
from tooltape.harness import (
    Plan,
    PlannedStream,
    Quirk,
    Scenario,
    TooltapeAssertionError,
    TooltapeUsageError,
    is_repeated_name,
    parse_quirk,
    reference_merge,
)
from tooltape.harness.served_streams import remember_served

__all__ = ["FakeProvider", "ProviderRouter", "Turn"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Turn:
    """One scripted answer of a fake provider."""

    wire: Wire
    """What the provider sends (for a rendered turn: to the request of the bundled library)."""
    label: str
    """How failure messages name this turn."""
    plan: Plan | None = None
    """The plan of a streamed turn, with the ids the dialect sends (``None`` for an error
    or a wire given as is); a non-streamed answer is built from it."""
    answer: Callable[[ProviderRequest], Wire] | None = None
    """Renders the turn for the request it answers (model, tools, usage echoed);
    ``None``: :attr:`wire` as it is."""

    def serve(self, request: ProviderRequest) -> Wire:
        """What the provider sends in answer to ``request``."""
        return self.wire if self.answer is None else self.answer(request)


def _answer(
    dialect: Dialect,
    plan: Plan | PlannedStream,
    quirks: tuple[Quirk | str | dict[str, Any], ...],
    seed: int,
) -> Callable[[ProviderRequest], Wire]:
    """Render ``plan`` for the request a turn answers (see :meth:`Dialect.echo`)."""
    return lambda request: dialect.render(plan, quirks, seed, request=request)


def _tooltape_error(status: int, error_type: str, message: str) -> Wire:
    # One shape every client reads: openai looks at body["error"]["message"],
    # anthropic at body["error"] with a top-level "type": "error", and
    # boto3 reads a top-level "message".
    body = {"type": "error", "error": {"type": error_type, "message": message}, "message": message}
    return json_wire(status, body)


def _host_port(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(parts.scheme)


class FakeProvider:
    """A scripted fake provider for one dialect.

    Queue turns with :meth:`stream` (alias :meth:`then`) and :meth:`error`; a
    transport hands each request to :meth:`handle`, which validates it like
    the real API, then serves the next turn. Requests, rejections and
    requests that found no turn left are recorded for assertions, and
    :meth:`assert_all_played` fails the test when the script and the requests
    disagree.

    Example:
        >>> provider = FakeProvider("openai_chat").stream(plan_a).then(plan_b)
    """

    def __init__(self, dialect: str | Dialect = "openai_chat", *, base_url: str | None = None):
        """Create a provider.

        Args:
            dialect: A dialect (or profile) name, or a dialect instance.
            base_url: Where clients reach it; defaults to the provider's public API
                (``https://api.openai.com/v1``, ``https://api.anthropic.com`` ...).
                Transports route by its host and port; the path may carry a prefix.

        Raises:
            TooltapeUsageError: The dialect is unknown, or has no default base URL.
        """
        self.dialect = get_dialect(dialect) if isinstance(dialect, str) else dialect
        default = self.dialect.base_url
        if base_url is None and default is None:
            raise TooltapeUsageError(
                f"dialect {self.dialect.name!r} has no default base URL; pass base_url="
            )
        self.base_url: str = (base_url or default or "").rstrip("/")
        self.host, self.port = _host_port(self.base_url)
        paths = (self.dialect.path, self.dialect.complete_path)
        self._paths = tuple(path_pattern(path) for path in paths if path is not None)
        self._turns: list[Turn] = []
        """The turns held: the unplayed ones, and the played ones the log limit keeps."""
        self._dropped = 0
        """Played turns no longer held (the first ``_dropped`` of :attr:`scripted`)."""
        self._played = 0
        self._lock = threading.Lock()
        self._turnless: list[str] = []
        self.received = 0
        """How many requests this provider received (the log may keep fewer)."""
        self._log_limits: tuple[int | None, int | None] = (None, None)
        self._given_ids: set[str] = set()
        """Ids plans were given (streamed as they are): a numbered id moves past them."""
        self._first_free = 0
        """Numbered ids ``call_<m>`` below this were handed out (see Plan.with_fresh_ids)."""
        self._tool_names: dict[str, None] = {}
        self._unnoted: dict[bytes, None] = {}
        """Bodies of wires given as is whose tools are read when :attr:`tool_names` is asked."""
        self.requests: list[ProviderRequest] = []
        """The requests this provider received, in order (all, unless :meth:`limit_log`)."""
        self.rejected: list[tuple[ProviderRequest, ProviderError]] = []
        """Requests the dialect's validation refused, with the error served."""
        self.unexpected: list[ProviderRequest] = []
        """Valid requests that arrived after the script ran out."""

    def __repr__(self) -> str:
        return f"FakeProvider({self.dialect.name!r}, base_url={self.base_url!r})"

    # -- the script -------------------------------------------------------------------

    def stream(
        self,
        plan: Plan | PlannedStream | Scenario | Wire,
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int | None = None,
    ) -> Self:
        """Queue a streamed turn: the dialect renders ``plan`` with ``quirks`` now.

        Args:
            plan: A plan, a planned stream, a scenario (its quirks come first), or an
                already rendered wire.
            quirks: Quirks of any stage (ignored for a wire).
            seed: Fixes every random choice of the quirks. The default is the
                scenario's seed (or 0) plus the turn's position, so turns never share
                a response or message id (LangGraph would merge two messages that do).

        Returns:
            The provider, so turns chain: ``provider.stream(a).then(b)``.

        A plan's numbered ids (``call_<n>``, the ones it filled in) move past the
        ids earlier turns streamed, so turns of one conversation never share an id;
        ids the plan was given are streamed as they are.
        """
        if seed is None:
            seed = (plan.seed if isinstance(plan, Scenario) else 0) + self.scripted
        if isinstance(plan, Scenario):
            quirks = (*plan.quirks, *quirks)
            plan = plan.plan
        plan = self._fresh_ids(plan)
        quirks = tuple(parse_quirk(q) for q in quirks)
        answer = None
        if isinstance(plan, Wire):
            wire = plan
        else:
            wire = self.dialect.render(plan, quirks, seed)  # refuses bad quirks now, not later
            answer = _answer(self.dialect, plan, quirks, seed)
        self._note_tools(plan, wire)
        names = [c.name for c in plan.calls] if isinstance(plan, Plan) else []
        label = f"turn {self.scripted + 1}: stream" + (
            f" calling {', '.join(names)}" if names else ""
        )
        if quirks:
            label += f" with {', '.join(str(q) for q in quirks)}"
        planned = plan.plan if isinstance(plan, PlannedStream) else plan
        served_plan = None
        if isinstance(planned, Plan):  # the non-streamed body carries the ids the stream sends
            at = plan.seed if isinstance(plan, PlannedStream) else seed
            served_plan = self.dialect.provider_plan(planned, at)
        self._turns.append(Turn(wire, label, served_plan, answer))
        return self

    then = stream

    def _note_tools(self, plan: Plan | PlannedStream | Wire, wire: Wire) -> None:
        """Note the tools the turn calls: a plan's at once, a wire's when asked.

        A wire's tools are what its calls merge to: a parse and a merge that most
        runs (``tooltape matrix`` streams thousands of wires) never need. A plan's
        are its calls' names, noted now, so the provider holds no turn for this.
        """
        if isinstance(plan, Wire):
            self._unnoted[wire.body] = None
        else:
            calls = (plan.plan if isinstance(plan, PlannedStream) else plan).calls
            self._tool_names.update((c.name, None) for c in calls if c.name)

    def _called_names(self, body: bytes) -> list[str]:
        try:
            calls = reference_merge(self.dialect.parse(body)).chunks
        except (TooltapeUsageError, ValueError):  # not a tool stream: it declares none
            calls = []
        # A wire that repeats the name (``get_weatherget_weather``) still calls get_weather.
        return [is_repeated_name(n) or n for n in (str(c.get("name") or "") for c in calls)]

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The tools the scripted turns call, in first-call order (what a client would bind)."""
        while self._unnoted:
            body = next(iter(self._unnoted))
            self._tool_names.update((n, None) for n in self._called_names(body) if n)
            del self._unnoted[body]
        return tuple(self._tool_names)

    def _fresh_ids(self, plan: Plan | PlannedStream | Wire) -> Plan | PlannedStream | Wire:
        """Move a plan's numbered ids past the ids earlier turns streamed.

        A planned stream's fragments already carry their ids, and a wire its bytes:
        both are streamed as given.
        """
        if isinstance(plan, Plan):
            plan = plan.with_fresh_ids(self._given_ids, first_free=self._first_free)
        planned = plan.plan if isinstance(plan, PlannedStream) else plan
        if isinstance(planned, Plan):
            self._given_ids.update(c.id for c in planned.calls if c.id and c.id_given)
            self._first_free = planned.first_free_after(self._first_free)
        return plan

    def error(self, status: int, body: Mapping[str, Any] | None = None) -> Self:
        """Queue an HTTP error turn: ``status`` with a JSON ``body``.

        Official SDKs retry 408, 409, 429 and 5xx answers: queue one error per
        attempt, or build the client with ``max_retries=0``.
        """
        if body is None:
            body = {"error": {"message": f"scripted error {status}", "type": "server_error"}}
        self._turns.append(Turn(json_wire(status, body), f"turn {self.scripted + 1}: {status}"))
        return self

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The scripted turns, played or not.

        Under a log limit (:meth:`limit_log`) only the last played turns it keeps are
        held, with every unplayed one; :attr:`scripted` counts them all.
        """
        return tuple(self._turns)

    @property
    def scripted(self) -> int:
        """How many turns were scripted, played or not (:attr:`turns` may hold fewer)."""
        return self._dropped + len(self._turns)

    @property
    def played(self) -> int:
        """How many turns were served."""
        return self._played

    # -- serving ----------------------------------------------------------------------

    def serves(self, host: str | None, port: int | None, path: str) -> bool:
        """True when a request to ``host:port`` + ``path`` is for this provider.

        ``host=None`` skips the host check (a server is reached at its own address).
        """
        if host is not None and (host.lower(), port) != (self.host, self.port):
            return False
        return any(pattern.search(path) for pattern in self._paths)

    @property
    def route(self) -> str:
        """The route, as error messages list it."""
        path = self.dialect.path
        version = re.match(r"/v\d+[a-z0-9]*(?=/)", path)
        if version and self.base_url.endswith(version.group()):
            path = path[version.end() :]  # base_url already ends with /v1
        return f"POST {self.base_url}{path} ({self.dialect.name})"

    def limit_log(self, requests: int | None, body_bytes: int | None) -> None:
        """Keep only the last ``requests`` requests, each with at most ``body_bytes`` of body.

        A long-running server sets this so its memory stays bounded; a cut body no
        longer parses as JSON. ``None`` lifts a limit. ``rejected``, ``unexpected``,
        the script-error notes and the played :attr:`turns` are bounded the same way.
        """
        self._log_limits = (requests, body_bytes)
        self._forget_played()

    def _forget_played(self) -> None:
        """Drop the played turns beyond the log limit (the oldest first)."""
        keep = self._log_limits[0]
        extra = self._played - self._dropped - (keep if keep is not None else self._played)
        if extra > 0:
            del self._turns[:extra]
            self._dropped += extra

    def _log(self, entries: list[Any], entry: Any) -> None:
        keep, body_bytes = self._log_limits
        if isinstance(entry, tuple):
            entry = (cut_body(entry[0], body_bytes), *entry[1:])
        elif isinstance(entry, ProviderRequest):
            entry = cut_body(entry, body_bytes)
        entries.append(entry)
        trim_log(entries, keep)

    def handle(self, request: ProviderRequest) -> Wire:
        """Answer one request: a validation error, the next turn, or a script error."""
        with self._lock:
            self._log(self.requests, request)
            self.received += 1
            number = self.received
            rejection = self.dialect.validate(request)
            if rejection is not None:
                self._log(self.rejected, (request, rejection))
                return json_wire(rejection.status, rejection.body, rejection.headers)
            if self._played == self.scripted:
                self._log(self.unexpected, request)
                self._log(
                    self._turnless,
                    f"request #{number} ({request.method} {request.path}) found no turn left",
                )
                return _tooltape_error(
                    400,
                    "tooltape_script_exhausted",
                    f"tooltape: fake {self.dialect.name} provider has no turn left for request "
                    f"#{number} ({request.method} {request.path}); "
                    f"{self.scripted} turn(s) were scripted",
                )
            turn = self._turns[self._played - self._dropped]
            self._played += 1
            self._forget_played()
            if turn.wire.status == 200 and not self.dialect.wants_stream(request):
                wire = self._completion(turn, request)
            else:
                wire = turn.serve(request)
            if wire.status == 200:  # assert_merge on the message draws these lanes
                body, parse = wire.body, self.dialect.parse
                remember_served(lambda: parse(body))
            return wire

    def _completion(self, turn: Turn, request: ProviderRequest) -> Wire:
        """The provider's JSON body for a turn asked for without streaming.

        A plan's body holds its calls and text as planned (stream quirks are
        wire artefacts, not part of the answer); a wire given as is holds the
        calls its stream merges to.
        """
        plan = turn.plan
        if plan is None:
            merged = reference_merge(self.dialect.parse(turn.wire.body))
            plan = plan_of_calls(merged.calls())
        return self.dialect.completion_wire(self.dialect.complete(plan, request))

    def assert_all_played(self) -> None:
        """Fail when a scripted turn was not served or a request found no turn left.

        Raises:
            TooltapeAssertionError: Naming the unplayed turns and the unexpected requests.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        unplayed = self._turns[self._played - self._dropped :]
        problems = [f"{t.label} was not played" for t in unplayed]
        problems += self._turnless
        if problems:
            raise TooltapeAssertionError(
                f"fake {self.dialect.name} provider at {self.base_url}: " + "; ".join(problems)
            )


class ProviderRouter:
    """Route requests to fake providers by host and path; 404 for anything else."""

    def __init__(self, providers: Iterable[FakeProvider], *, match_host: bool = True):
        """Create a router.

        Args:
            providers: The providers, tried in order (the first that serves a request wins).
            match_host: Route by host and port too; a server reached at its own
                address turns this off.

        Raises:
            TooltapeUsageError: No provider given, or something that is not a FakeProvider.
        """
        self.providers = tuple(providers)
        if not self.providers:
            raise TooltapeUsageError("give at least one FakeProvider to serve")
        for provider in self.providers:
            if not isinstance(provider, FakeProvider):
                raise TooltapeUsageError(f"expected FakeProvider instances, got {provider!r}")
        self.match_host = match_host
        self.unrouted: list[str] = []
        """``METHOD URL`` of every request no provider serves."""

    def add(self, provider: FakeProvider) -> None:
        """Serve one more provider (tried after the ones already routed)."""
        if not isinstance(provider, FakeProvider):
            raise TooltapeUsageError(f"expected a FakeProvider, got {provider!r}")
        self.providers = (*self.providers, provider)

    def provider_for(self, method: str, url: str) -> FakeProvider | None:
        """The provider that serves ``method url``, if any."""
        host, port = _host_port(url) if self.match_host else (None, None)
        path = urlsplit(url).path
        return next(
            (p for p in self.providers if method == "POST" and p.serves(host, port, path)), None
        )

    def serves_host(self, url: str) -> bool:
        """True when some provider lives at ``url``'s host and port (its traffic is ours)."""
        if not self.match_host:
            return True
        return _host_port(url) in {(p.host, p.port) for p in self.providers}

    def dispatch(self, request: ProviderRequest, url: str) -> Wire:
        """Hand the request to its provider, or answer 404 naming the routes that exist."""
        provider = self.provider_for(request.method, url)
        if provider is not None:
            return provider.handle(request)
        self.unrouted.append(f"{request.method} {url}")
        routes = "; ".join(p.route for p in self.providers)
        return _tooltape_error(
            404,
            "tooltape_no_route",
            f"tooltape: no fake provider serves {request.method} {url}; routes: {routes}",
        )

    def assert_all_played(self) -> None:
        """Fail when any provider left turns unplayed or a request found no route or turn."""
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        failures = []
        for provider in self.providers:
            try:
                provider.assert_all_played()
            except TooltapeAssertionError as error:
                failures.append(str(error).removeprefix("tooltape: "))
        failures += [f"no route for {request}" for request in self.unrouted]
        if failures:
            raise TooltapeAssertionError("; ".join(failures))
