"""Play a cassette: find the recording that answers each request, and account for all of them.

:class:`CassettePlayer` is a :class:`~tooltape.fake_providers.ProviderRouter`
whose answers come from recordings instead of scripted providers, so every
fake-provider transport (httpx2, the real server) serves a cassette unchanged.
Each recorded interaction plays once, in order among those that match. A
request that matches none gets an HTTP 404 whose body says why (the SDK
raises with that text) and is kept, so the test fails with the nearest
recorded request and a diff; interactions never played fail it too.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from tooltape.cassettes._errors import CassetteError, UnmatchedRequest, UnplayedInteractions
from tooltape.cassettes._http_headers import header_problem
from tooltape.cassettes._match import (
    RequestMatcher,
    default_match_on,
    diff_requests,
    similarity,
)
from tooltape.cassettes._model import Cassette, RecordedRequest
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes.body_framing import reframe
from tooltape.fake_providers import ProviderRequest, ProviderRouter, Wire
from tooltape.fake_providers.framing import AbortedWire
from tooltape.fake_providers.http_objects import json_wire
from tooltape.harness import Quirk
from tooltape.harness.bounded_reprs import bounded
from tooltape.harness.quirk_registry import wire_quirk

__all__ = ["CassettePlayer", "wire_quirks"]


_VARIANT = "derive a variant with tooltape.cassettes.mutate() instead"


def wire_quirks(quirks: Iterable[Quirk | str | dict[str, Any]]) -> tuple[Quirk, ...]:
    """Parse replay quirks, which must be wire (framing) quirks.

    Raises:
        CassetteError: An unknown quirk, or one that is not a wire quirk.
    """
    parsed = []
    for spec in quirks:
        try:
            parsed.append(wire_quirk(spec, "replay", _VARIANT))
        except ValueError as error:
            raise CassetteError(f"replay quirk {spec!r}: {str(error).splitlines()[0]}") from None
    return tuple(parsed)


class CassettePlayer(ProviderRouter):
    """Answers requests from a cassette's recordings (a router with no providers)."""

    def __init__(
        self,
        cassette: Cassette,
        *,
        match_on: Sequence[str] | None = None,
        ignore_body_fields: Iterable[str] = (),
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int = 0,
        allow_repeats: bool = False,
        scrubber: Scrubber | None = None,
        note: str = "",
    ) -> None:
        """Play ``cassette``.

        Args:
            cassette: What to play.
            match_on: Matcher names (see :mod:`tooltape.cassettes._match`); by default
                the method, URL and body, or the method and URL for a cassette whose
                request is a stand-in (generated, mutated, converted).
            ignore_body_fields: More body fields the ``body`` matcher ignores.
            quirks: Wire quirks applied on top of every recorded body.
            seed: Fixes the quirks' random choices.
            allow_repeats: Let an interaction answer more than once.
            scrubber: Cleans live requests the way recordings were cleaned.
            note: Said in the unmatched-request message (e.g. the record mode).
        """
        # ProviderRouter.__init__ wants providers; a cassette has recordings instead.
        self.providers = ()
        self.unrouted: list[str] = []
        if match_on is None:
            match_on = default_match_on(cassette.info)
        self.matcher = RequestMatcher(match_on, ignore_body_fields)
        self.match_on = self.matcher.match_on
        self.match_host = "host" in self.match_on
        self.cassette = cassette
        self.quirks = wire_quirks(quirks)
        self.seed = seed
        self.allow_repeats = allow_repeats
        self.scrubber = scrubber or Scrubber(request_headers=None)
        self.note = note
        self.play_counts = [0] * len(cassette.interactions)
        self.unmatched: list[str] = []
        """One message per request that matched nothing."""
        self._wires: dict[int, Wire] = {}
        self._lock = threading.Lock()
        self._reported = False
        self._keys: list[tuple[object, ...]] | None = None
        self._check_headers()

    def _check_headers(self) -> None:
        """Refuse a recorded response header that HTTP forbids: serving it would break.

        Raises:
            CassetteError: Naming the cassette, the interaction, the header and why.
        """
        for index, interaction in enumerate(self.cassette.interactions):
            response = interaction.response
            cut = response.aborted is not None
            found = header_problem(response.headers, len(response.body), cut)
            if found is not None:
                name, problem = found
                raise CassetteError(
                    f"{self.label}: interaction {index}: response header {bounded(name, 80)}: "
                    f"{problem}; HTTP forbids it, so it cannot be replayed: fix or remove it "
                    "in the cassette"
                )

    @property
    def label(self) -> str:
        """How messages name the cassette."""
        return str(self.cassette.path) if self.cassette.path else "the cassette"

    def live_request(
        self, method: str, url: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> RecordedRequest:
        """A live request cleaned like a recording, ready to compare."""
        headers = tuple(headers)
        # A request a before_record_request hook leaves out can only be refused here.
        live = self.scrubber.request(method, url, headers, body)
        return live or self.scrubber.clean(method, url, headers, body)

    def find(self, live: RecordedRequest) -> int | None:
        """The first unplayed interaction matching ``live`` (any, with ``allow_repeats``)."""
        if self._keys is None:  # each recorded request is parsed once, at the first request
            self._keys = [self.matcher.key(i.request) for i in self.cassette.interactions]
        wanted = self.matcher.key(live)
        for index, key in enumerate(self._keys):
            if self.play_counts[index] and not self.allow_repeats:
                continue
            if key == wanted:
                return index
        return None

    def take(self, live: RecordedRequest) -> Wire | None:
        """Find and play the recording that answers ``live`` (one step, thread-safe)."""
        with self._lock:
            index = self.find(live)
            if index is None:
                return None
            self.play_counts[index] += 1
            if index not in self._wires:
                self._wires[index] = self._wire(index)
            return self._wires[index]

    def _wire(self, index: int) -> Wire:
        response = self.cassette.interactions[index].response
        if not self.quirks:
            return response.wire()
        try:
            wire = reframe(
                response.body, response.headers, self.quirks, seed=self.seed, status=response.status
            )
        except ValueError as error:
            raise CassetteError(f"{self.label}: interaction {index}: {error}") from None
        if response.aborted is not None and not isinstance(wire, AbortedWire):
            wire = AbortedWire(
                reads=wire.reads, status=wire.status, headers=wire.headers, error=response.aborted
            )
        elif not isinstance(wire, AbortedWire):
            # The quirks reframed the body: a recorded length no longer holds.
            length = str(len(wire.body))
            headers = tuple(
                (k, length if k.lower() == "content-length" else v) for k, v in wire.headers
            )
            wire = dataclasses.replace(wire, headers=headers)
        return wire

    def refuse(self, live: RecordedRequest) -> Wire:
        """Keep the failure for ``live`` and answer 404 with its text."""
        message = self.unmatched_message(live)
        with self._lock:
            self.unmatched.append(message)
        first_line = message.splitlines()[0]
        body = {"type": "error", "error": {"type": "tooltape_no_recording", "message": first_line}}
        return json_wire(404, body)

    def unmatched_message(self, live: RecordedRequest) -> str:
        """Why ``live`` matched nothing: the nearest recorded request and a diff."""
        uri = bounded(live.uri, 200)[1:-1]
        head = (
            f"tooltape: no recorded interaction in {self.label} matches {live.method} {uri} "
            f"(matching on {', '.join(self.match_on)}{'; ' + self.note if self.note else ''})"
        )
        interactions = self.cassette.interactions
        if not interactions:
            return head + "; the cassette holds no interactions"
        matcher, wanted = self.matcher, self.matcher.key(live)
        differing = [matcher.differs(matcher.key(i.request), wanted) for i in interactions]
        fewest = min(len(d) for d in differing)
        candidates = [i for i, d in enumerate(differing) if len(d) == fewest][:50]
        nearest = min(
            candidates,
            key=lambda i: (
                self.play_counts[i] > 0,
                -similarity(interactions[i].request, live, matcher),
                i,
            ),
        )
        recorded = interactions[nearest].request
        differs = differing[nearest]
        played = " (already played)" if self.play_counts[nearest] else ""
        why = f"differs on {', '.join(differs)}" if differs else "matches, but was played"
        diff = (
            diff_requests(recorded, live, matcher=matcher)
            or "(no difference in method, URL or body)"
        )
        return (
            f"{head}. Nearest: interaction {nearest}{played}, {recorded.method} "
            f"{bounded(recorded.uri, 200)[1:-1]}, {why}.\n{diff}"
        )

    # -- the router interface the fake-provider transports call -------------------------

    def dispatch(self, request: ProviderRequest, url: str) -> Wire:
        """Answer a request from the recordings (or refuse it)."""
        live = self.live_request(request.method, url, request.headers.items(), request.body)
        wire = self.take(live)
        return wire if wire is not None else self.refuse(live)

    def unplayed(self) -> list[int]:
        """Indexes of the interactions never played."""
        return [i for i, count in enumerate(self.play_counts) if not count]

    def unmatched_failure(self, raised: BaseException | None = None) -> UnmatchedRequest | None:
        """The failure for the requests that matched nothing, reported once (else ``None``).

        Args:
            raised: What the code under test raised meanwhile (named in the message:
                typically the SDK's error for the 404 the request got).
        """
        with self._lock:
            if not self.unmatched or self._reported:
                return None
            self._reported = True
        more = len(self.unmatched) - 1
        extra = f"\n({more} more unmatched request(s))" if more else ""
        if raised is not None:
            said = bounded(str(raised).split("\n", 1)[0], 200)
            extra += f"\n(the code under test then raised {type(raised).__name__}: {said})"
        return UnmatchedRequest(self.unmatched[0] + extra)

    def check_unmatched(self) -> None:
        """Fail when a request matched nothing (unless that failure was already reported).

        Raises:
            UnmatchedRequest: With the first such request's nearest recording and diff.
        """
        failure = self.unmatched_failure()
        if failure is not None:
            raise failure

    def check_unplayed(self) -> None:
        """Fail when recorded interactions were never played.

        Raises:
            UnplayedInteractions: With the counts and the indexes.
        """
        unplayed = self.unplayed()
        if not unplayed:
            return
        total = len(self.play_counts)
        listed = ", ".join(
            f"#{i} {self.cassette.interactions[i].request.method} "
            f"{bounded(self.cassette.interactions[i].request.uri, 120)[1:-1]}"
            for i in unplayed[:20]
        ) + (f" and {len(unplayed) - 20} more" if len(unplayed) > 20 else "")
        raise UnplayedInteractions(
            f"{self.label}: {len(unplayed)} of {total} recorded interaction(s) were not played "
            f"({total - len(unplayed)} played): {listed}. Re-record the cassette "
            "(record_mode='all') or pass allow_unplayed=True."
        )

    def assert_all_played(self) -> None:
        """Fail on an unmatched request, then on unplayed interactions."""
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        self.check_unmatched()
        self.check_unplayed()
