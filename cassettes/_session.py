"""Use a cassette in a test: replay it, record it, or both, by record mode.

Record modes (pytest-recording's names):

``none`` (default)
    Replay only. The cassette must exist; a request it does not hold fails
    the test (live calls are blocked, nothing reaches the network).
``once``
    Record when the cassette does not exist yet, otherwise behave as ``none``.
``new_episodes``
    Replay what matches; record requests that match nothing and add them.
``all``
    Record every request again. A new recording replaces only the one the same
    request recorded (by the matcher: method, URL and body); every other
    recording is kept (vcrpy's rule), so nothing is lost by a partial run or by
    other tests writing the same cassette; a change of the stream's shape prints
    a drift report.

When the block ends, new recordings are written (secrets removed, under the
cassette's lock, atomically); then a request that matched nothing fails the
test with the nearest recorded request and a diff, and recorded interactions
that were never played fail it with their counts and indexes.
"""

from __future__ import annotations

import datetime
import inspect
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Literal

from tooltape.cassettes._dialects import infer_dialect
from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._match import RequestMatcher
from tooltape.cassettes._model import (
    Cassette,
    CassetteInfo,
    Interaction,
    RecordedRequest,
    tooltape_version,
)
from tooltape.cassettes._network import block_network
from tooltape.cassettes._player import CassettePlayer
from tooltape.cassettes._record_modes import RECORD_MODES, RecordMode
from tooltape.cassettes._scrub import KEPT_REQUEST_HEADERS, Scrubber
from tooltape.cassettes._shape import drift, drift_report
from tooltape.cassettes._store import (
    cassette_lock,
    encode_checked,
    load_cassette,
    remove_orphans,
    write_atomically,
    writing,
)
from tooltape.cassettes.scrub_rules import Replacement, scrub_rules
from tooltape.cassettes.transport_seam import patched_transports
from tooltape.fake_providers import Wire
from tooltape.harness import Quirk
from tooltape.harness.name_checks import check_names, unknown_name

__all__ = [
    "RECORD_MODES",
    "CassetteSession",
    "RecordMode",
    "record",
    "replay",
    "USE_CASSETTE_OPTIONS",
    "check_options",
    "run_session",
    "use_cassette",
]

Filter = str | tuple[str, Replacement]
"""A vcrpy filter item: a name, or a ``(name, replacement)`` pair."""
Hooks = Callable[[Any], Any] | Sequence[Callable[[Any], Any]]

_NOTES = {
    "none": "record mode 'none' replays only and blocks live calls",
    "once": "record mode 'once' and the cassette exists: re-record with record_mode='all'",
}


class CassetteSession:
    """One use of a cassette: the player, the recordings and what happens at the end."""

    def __init__(
        self,
        path: str | Path,
        *,
        record_mode: str = "none",
        match_on: Sequence[str] | None = None,
        ignore_body_fields: Iterable[str] = (),
        quirks: Iterable[Quirk | str | dict[str, Any]] = (),
        seed: int = 0,
        allow_unplayed: bool = False,
        allow_repeats: bool = False,
        dialect: str | None = None,
        request_headers: Iterable[str] | Literal["all"] = KEPT_REQUEST_HEADERS,
        filter_headers: Iterable[Filter] = (),
        filter_query_parameters: Iterable[Filter] = (),
        filter_post_data_parameters: Iterable[Filter] = (),
        before_record_request: Hooks | None = None,
        before_record_response: Hooks | None = None,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        """Prepare a session; see :func:`use_cassette` for the arguments."""
        if record_mode not in RECORD_MODES:
            raise unknown_name("record mode", record_mode, RECORD_MODES, error=CassetteError)
        self.path = Path(path)
        self.record_mode = record_mode
        self.allow_unplayed = allow_unplayed
        self.dialect = dialect
        keep = None if request_headers == "all" else frozenset(h.lower() for h in request_headers)
        rules = scrub_rules(
            {
                "filter_headers": filter_headers,
                "filter_query_parameters": filter_query_parameters,
                "filter_post_data_parameters": filter_post_data_parameters,
                "before_record_request": before_record_request,
                "before_record_response": before_record_response,
            }
        )
        self.scrubber = Scrubber(request_headers=keep, rules=rules)
        self.existed = self.path.exists()
        # A broken file fails here, in every mode: nothing is ever written over it.
        needed = self.existed or record_mode == "none"
        self.previous = load_cassette(self.path) if needed else None
        playable = self.previous if record_mode != "all" and self.previous else None
        self.player = CassettePlayer(
            playable or Cassette(interactions=(), path=self.path),
            match_on=match_on,
            ignore_body_fields=ignore_body_fields,
            quirks=quirks,
            seed=seed,
            allow_repeats=allow_repeats,
            scrubber=self.scrubber,
            note=_NOTES.get(record_mode, ""),
        )
        self.records = record_mode in ("new_episodes", "all") or (
            record_mode == "once" and not self.existed
        )
        self.drift_lines: list[str] = []
        """What the re-recording changed in the stream's shape (record mode ``all``)."""
        self.written = False
        """True once new recordings were written to the file."""
        self.kept_existing = False
        """True when another process created the cassette first (``once``): this one added to it."""
        self._echo = echo or (lambda text: sys.stderr.write(text))
        self._slots: list[Interaction | bool | None] = []
        self._lock = threading.Lock()

    @property
    def replays(self) -> bool:
        """True when the session only replays (it never sends a request out)."""
        return not self.records

    # -- the Handler interface of the patched transports --------------------------------

    def answer(self, live: RecordedRequest) -> Wire | None:
        """Replay a matching recording; ``None`` sends the request out to be recorded."""
        if self.record_mode != "all":
            wire = self.player.take(live)
            if wire is not None:
                return wire
        if self.records:
            return None
        return self.player.refuse(live)

    def begin(self, live: RecordedRequest) -> Callable[[Interaction | None], None]:
        """Reserve the place of a recording (request order, whatever order bodies end in)."""
        with self._lock:
            self._slots.append(None)
            slot = len(self._slots) - 1

        def done(interaction: Interaction | None) -> None:
            with self._lock:  # False: a before_record_response hook left it out
                self._slots[slot] = False if interaction is None else interaction

        return done

    @property
    def recorded(self) -> list[Interaction]:
        """The recordings of this session, in request order."""
        return [i for i in self._slots if isinstance(i, Interaction)]

    # -- the end ------------------------------------------------------------------------

    def close(self, failed: bool = False) -> None:
        """Write new recordings, then fail on unmatched requests and unplayed recordings.

        Raises:
            UnmatchedRequest: A request matched no recording.
            UnplayedInteractions: Recordings were not played (unless allowed, or the
                block already failed, or the mode is ``all``).
            CassetteError: The file could not be written safely.
        """
        pending = sum(slot is None for slot in self._slots)
        if pending:
            self._echo(
                f"tooltape: {self.path}: {pending} response(s) were not read to the end (or "
                "closed) before the cassette closed; they were not recorded\n"
            )
        if self.recorded:
            self._save()
        self.player.check_unmatched()
        if not failed and not self.allow_unplayed and self.record_mode != "all":
            self.player.check_unplayed()

    def _save(self) -> None:
        with writing(self.path, len(self.recorded)), cassette_lock(self.path):
            remove_orphans(self.path)
            current = load_cassette(self.path) if self.path.exists() else None
            new = self.recorded
            if self.record_mode == "once" and current is not None:
                # Another test (an xdist worker, say) created the cassette while this one
                # recorded: add what this test recorded, so no recording is lost.
                self.kept_existing = True
                interactions = _added(current.interactions, new)
            else:
                interactions = self._merged(current, new)
            info = (current or self.previous or Cassette(())).info
            cassette = Cassette(tuple(interactions), self._info(info, new), self.path)
            data = encode_checked(cassette, self.scrubber, self.path)
            write_atomically(self.path, data)
            self.written = True
        if self.drift_lines:
            self._echo(drift_report(self.drift_lines, self.path))

    def _merged(self, current: Cassette | None, new: list[Interaction]) -> list[Interaction]:
        if current is None:
            return new
        if self.record_mode == "new_episodes":
            return _added(current.interactions, new)
        olds = current.interactions
        pairs = _pairs(olds, new, self.player.matcher)
        if pairs:
            before = current.with_interactions(tuple(olds[o] for o in pairs))
            after = current.with_interactions(tuple(new[n] for n in pairs.values()))
            self.drift_lines = drift(before, after)
        kept = [old for index, old in enumerate(olds) if index not in pairs]
        return [*kept, *new]

    def _info(self, info: CassetteInfo, new: list[Interaction]) -> CassetteInfo:
        dialect = self.dialect or info.dialect or (infer_dialect(new[0]) if new else None)
        now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
        changes = {
            "tooltape_version": tooltape_version(),
            "dialect": dialect,
            "recorded_at": now.isoformat().replace("+00:00", "Z"),
        }
        return CassetteInfo.model_validate({**info.model_dump(exclude_defaults=True), **changes})


def _pairs(
    olds: Sequence[Interaction], new: Sequence[Interaction], matcher: RequestMatcher
) -> dict[int, int]:
    """Which new recording replaces which old one (index to index), one to one.

    Only the interaction the same request recorded is replaced: the same request by
    the cassette's matcher (method, URL *and* body by default). Every chat call has
    the same URL, so pairing on less would throw away other tests' recordings; what
    pairs with nothing is kept (vcrpy's rule: a partial run loses nothing).
    """
    free = list(range(len(new)))
    pairs: dict[int, int] = {}
    new_keys = [matcher.key(n.request) for n in new]
    for index, old in enumerate(olds):
        key = matcher.key(old.request)
        match = next((n for n in free if new_keys[n] == key), None)
        if match is not None:
            free.remove(match)
            pairs[index] = match
    return pairs


def _added(old: Sequence[Interaction], new: Sequence[Interaction]) -> list[Interaction]:
    """``old`` then every interaction of ``new`` it does not already hold."""
    return [*old, *(i for i in new if i not in old)]


@contextmanager
def use_cassette(
    path: str | Path,
    *,
    record_mode: str = "none",
    match_on: Sequence[str] | None = None,
    ignore_body_fields: Iterable[str] = (),
    quirks: Iterable[Quirk | str | dict[str, Any]] = (),
    seed: int = 0,
    allow_unplayed: bool = False,
    allow_repeats: bool = False,
    dialect: str | None = None,
    request_headers: Iterable[str] | Literal["all"] = KEPT_REQUEST_HEADERS,
    filter_headers: Iterable[Filter] = (),
    filter_query_parameters: Iterable[Filter] = (),
    filter_post_data_parameters: Iterable[Filter] = (),
    before_record_request: Hooks | None = None,
    before_record_response: Hooks | None = None,
) -> Iterator[CassetteSession]:
    """Replay (or record) a cassette for every httpx and httpx2 client inside the block.

    Args:
        path: The cassette file.
        record_mode: ``none`` (default), ``once``, ``new_episodes`` or ``all``.
        match_on: How a request finds its recording: ``method``, ``uri`` (or its parts
            ``scheme``, ``host``, ``port``, ``path``, ``query``) and ``body``; the default
            is all three, the body compared as JSON without ``user``, ``safety_identifier``,
            ``prompt_cache_key``, ``metadata`` and ``stream_options`` (``method`` and ``uri``
            for a generated, mutated or converted cassette, whose request is a stand-in).
        ignore_body_fields: More JSON body fields the ``body`` matcher ignores, as dotted
            paths (``metadata.run_id``; ``*`` matches any key or list item).
        quirks: Wire (framing) quirks applied on top of every replayed body.
        seed: Fixes the quirks' random choices.
        allow_unplayed: Do not fail when recordings were not played.
        allow_repeats: Let one recording answer several requests.
        dialect: The dialect written in a new cassette (inferred from the URL otherwise).
        request_headers: Request headers kept in recordings, or ``"all"`` (secret
            headers are removed either way).
        filter_headers: More headers to remove, as vcrpy: names, or ``(name,
            replacement)`` pairs (a string, ``None`` to remove, or a callable
            ``(name, value, request)``); the values taken out are swept like secrets.
        filter_query_parameters: The same for query parameters.
        filter_post_data_parameters: The same for JSON (at any depth) and form body fields.
        before_record_request: A callable (or a list) given each cleaned
            :class:`RecordedRequest`, also before matching; returns it or ``None``
            (not recorded, sent out).
        before_record_response: A callable (or a list) given each
            :class:`RecordedResponse` before it is kept; returns it or ``None``.

    Yields:
        The session (``.player.play_counts``, ``.recorded``, ``.drift_lines``).

    Raises:
        CassetteError: A missing or broken cassette (when it must be read), or bad options.
        UnmatchedRequest: At the end, a request matched no recording.
        UnplayedInteractions: At the end, recordings were never played.
    """
    session = CassetteSession(
        path,
        record_mode=record_mode,
        match_on=match_on,
        ignore_body_fields=ignore_body_fields,
        quirks=quirks,
        seed=seed,
        allow_unplayed=allow_unplayed,
        allow_repeats=allow_repeats,
        dialect=dialect,
        request_headers=request_headers,
        filter_headers=filter_headers,
        filter_query_parameters=filter_query_parameters,
        filter_post_data_parameters=filter_post_data_parameters,
        before_record_request=before_record_request,
        before_record_response=before_record_response,
    )
    with run_session(session):
        yield session


@contextmanager
def run_session(session: CassetteSession) -> Iterator[CassetteSession]:
    """Serve ``session`` to every client inside the block, then close it.

    A session that only replays blocks the network beyond loopback too
    (:func:`~tooltape.cassettes.block_network`): nothing reaches it, by any library.
    """
    try:
        with ExitStack() as stack:
            if session.replays:
                stack.enter_context(block_network())
            stack.enter_context(patched_transports(session))
            yield session
    except BaseException:
        session.close(failed=True)
        raise
    session.close()


def check_options(options: Iterable[str]) -> None:
    """Refuse a name :func:`use_cassette` does not take, with the closest ones.

    Raises:
        CassetteError: An unknown option.
    """
    check_names("cassette option", options, USE_CASSETTE_OPTIONS, error=CassetteError)


@contextmanager
def replay(path: str | Path, **options: Any) -> Iterator[CassetteSession]:
    """Replay a cassette, live calls blocked: :func:`use_cassette` with record mode ``none``."""
    check_options(options)
    if options.setdefault("record_mode", "none") != "none":
        raise CassetteError("replay() never records; use use_cassette(record_mode=...) or record()")
    with use_cassette(path, **options) as session:
        yield session


@contextmanager
def record(path: str | Path, **options: Any) -> Iterator[CassetteSession]:
    """Record a new cassette from the real provider: :func:`use_cassette` with record mode ``once``.

    Raises:
        CassetteError: The cassette exists (replay it, or pass ``record_mode="all"`` to
            re-record it, or ``"new_episodes"`` to add to it), or the mode is ``none``.
    """
    check_options(options)
    mode = options.setdefault("record_mode", "once")
    if mode == "none":
        raise CassetteError("record() needs a recording mode: once, new_episodes or all")
    if mode == "once" and Path(path).exists():
        raise CassetteError(
            f"{path}: the cassette exists and is kept; replay it with use_cassette(), or pass "
            "record_mode='all' to re-record it (a drift report shows what changed) or "
            "'new_episodes' to add to it"
        )
    with use_cassette(path, **options) as session:
        yield session


USE_CASSETTE_OPTIONS: tuple[str, ...] = tuple(
    name for name in inspect.signature(use_cassette).parameters if name != "path"
)
"""The keyword options of :func:`use_cassette` (and of the marker and ``tooltape_config``)."""
