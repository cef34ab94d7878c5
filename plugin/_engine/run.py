"""Run the scenario x dialect matrix through the reference and every installed adapter.

A cell is one bundled scenario rendered in one dialect. Its wire is parsed by
the dialect (the deltas the provider's LangChain adapter yields) and merged by
langchain-core (the reference); then each adapter for that dialect streams the
same wire from a fake provider and its merged calls are compared with the
reference's (and with the plan, when the scenario is lossless). Results are
``pass``, ``hazard`` (passes, but the reference reports hazards), ``differs``
(with a diff) or ``crashes`` (exception type and message); ``n/a`` when the
dialect cannot say the scenario's quirks.

Adapters run in-process on the patched httpx2/httpx transports (no sockets),
Bedrock's botocore against one uvicorn server on 127.0.0.1 for the whole run.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import re
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tooltape.fake_providers import (
    Dialect,
    FakeProvider,
    FakeProviderApp,
    ProviderRouter,
    Wire,
    get_dialect,
    patch_httpx,
    patch_httpx2,
    serve_in_thread,
)
from tooltape.harness import (
    Deltas,
    MergeResult,
    Scenario,
    TooltapeUsageError,
    draw_lanes,
    reference_merge,
)
from tooltape.plugin._cell_limits import Bounds, CellHangs, CellMemory
from tooltape.plugin._engine.expectations import Expectations
from tooltape.plugin._engine.reference_pins import ReferencePins
from tooltape.plugin._engine.subjects import Adapter, Merged, adapters
from tooltape.plugin._engine.turns import (
    Text,
    Turn,
    keeps_plan,
    plan_text,
    text_lines,
    text_verdict,
    wire_text,
)

if TYPE_CHECKING:
    from tooltape.plugin._engine.js_subjects import BatchOutcome

__all__ = [
    "DEFAULT_CELL_MEMORY",
    "DEFAULT_CELL_TIMEOUT",
    "Cell",
    "Result",
    "is_lossless",
    "run_matrix",
    "skipped_subjects",
    "subjects_for",
]

_UUID4 = re.compile(
    r"^(?:[A-Za-z_]+_)?"
    r"[0-9a-f]{8}(-?)[0-9a-f]{4}(?:\1)4[0-9a-f]{3}\1[89ab][0-9a-f]{3}\1[0-9a-f]{12}$"
)
"""A uuid4, dashed or as ``.hex`` (ChatMistralAI's), maybe prefixed (pydantic-ai's ``pyd_ai_``)."""
_RANK = {
    "n/a": 0,
    "pass": 1,
    "hazard": 2,
    "better": 3,
    "differs": 4,
    "crashes": 5,
    "memory": 6,
    "hangs": 7,
}


@dataclass
class Result:
    """One subject's outcome in one cell."""

    adapter: str
    status: str
    """``pass`` or ``hazard`` (as the reference), ``better`` (than the reference: shown,
    not failed), ``differs`` (worse), ``crashes``, ``hangs``, ``memory`` or ``n/a``."""
    detail: str = ""
    """The diff, or ``Type: message`` for a crash."""
    error: str | None = None
    """The exception's type name, for a crash."""
    expected: bool = True
    """What the expectations file says (False fails the run)."""
    reason: str = ""
    """The expectation's reason, or why the result is unexpected."""
    seconds: float = 0.0
    """Wall time of the subject's turn."""
    warnings: list[str] = field(default_factory=list)
    """Warnings the subject emitted while streaming."""


@dataclass
class Cell:
    """One scenario rendered in one dialect, and what every subject made of it."""

    scenario: Scenario
    dialect: str
    lossless: bool = False
    """True when a correct consumer must recover the plan exactly."""
    skipped: str = ""
    """Why the dialect cannot render the scenario (empty when it can)."""
    reference: MergeResult | None = None
    deltas: Deltas | None = None
    """What the dialect's reference adapter yields from the wire (``None``: not parsed)."""
    results: list[Result] = field(default_factory=list)
    wire: Wire | None = field(default=None, repr=False)
    """The rendered wire while its subjects run (dropped after: the reference's text is read
    from it, when first asked)."""

    @functools.cached_property
    def reference_text(self) -> Text | None:
        """The text the wire carries and its order, as the dialect reads its events."""
        return wire_text(get_dialect(self.dialect), self.wire) if self.wire is not None else None

    @functools.cached_property
    def plan_text(self) -> Text:
        """The plan's text and order: ``text_before``, the calls, ``text_after``."""
        return plan_text(self.scenario.plan)

    @functools.cached_property
    def lanes(self) -> str:
        """The parsed stream drawn as index lanes, drawn when first shown."""
        return draw_lanes(self.deltas) if self.deltas is not None else ""

    @functools.cached_property
    def reference_calls(self) -> Merged:
        """The reference's valid and invalid calls, as subjects' merges are compared with them."""
        assert self.reference is not None
        return _reference_calls(self.reference)

    @property
    def status(self) -> str:
        """The worst result in the cell (``n/a`` when nothing ran)."""
        return max((r.status for r in self.results), key=_RANK.__getitem__, default="n/a")

    @property
    def unexpected(self) -> list[Result]:
        """The results the expectations do not allow."""
        return [r for r in self.results if not r.expected]


def subjects_for(
    dialect: Dialect, selected: Sequence[str] | None, extra: Sequence[Adapter] = ()
) -> list[Adapter]:
    """The installed adapters that read ``dialect`` (its base for a profile), in column order.

    ``extra`` are the users' subjects (:mod:`tooltape.plugin._subjects`), after the built-in ones.
    """
    base = getattr(dialect, "base", dialect).name
    return [
        a
        for a in (*adapters(), *extra)
        if base in a.dialects and (selected is None or a.name in selected) and a.available()
    ]


def skipped_subjects(dialects: Sequence[str], selected: Sequence[str] | None) -> dict[str, str]:
    """The subjects that read ``dialects`` but are not installed, each with its install line."""
    bases = {getattr(d, "base", d).name for d in map(get_dialect, dialects)}
    return {
        a.name: a.install_line
        for a in adapters()
        if bases & set(a.dialects)
        and (selected is None or a.name in selected)
        and not a.available()
    }


# --- comparing ---------------------------------------------------------------------------


def _reference_calls(reference: MergeResult) -> Merged:
    invalid = [
        {"name": c.get("name"), "args": c.get("args"), "id": c.get("id")}
        for c in reference.invalid_tool_calls
    ]
    return reference.calls(), invalid


def _minted(call_id: Any) -> bool:
    return bool(_UUID4.match(str(call_id)))


def _no_sent_id(call_id: Any) -> bool:
    """An id no provider sent: none, empty (``""`` and ``None`` alike), or a minted uuid4."""
    return not call_id or _minted(call_id)


def _align_generated_ids(got: Merged, want: Merged) -> Merged:
    """Give the subject's calls that carry no sent id the reference's ids, by position.

    Where the stream sent no id, the subject and the reference each do their own
    thing: leave it ``None`` or ``""``, or mint a uuid4 (dashed, hex, prefixed). A
    subject is not wrong for that, so when both sides hold as many such calls, the
    subject's take the reference's ids in order. An id the provider sent is the
    subject's to keep, and a made-up constant such as mistralai's ``"null"`` is not
    aligned away.
    """
    theirs = [
        (p, i) for p, part in enumerate(got) for i, c in enumerate(part) if _no_sent_id(c.get("id"))
    ]
    ours = [c.get("id") for part in want for c in part if _no_sent_id(c.get("id"))]
    if not theirs or len(theirs) != len(ours):
        return got
    aligned = [list(part) for part in got]
    for (part, at), call_id in zip(theirs, ours, strict=True):
        aligned[part][at] = {**aligned[part][at], "id": call_id}
    return aligned[0], aligned[1]


def _dump(label: str, call: dict[str, Any]) -> str:
    return f"{label} " + json.dumps(call, sort_keys=True, ensure_ascii=False, default=str)


def _lines(merged: Merged, text: Sequence[str] = ()) -> list[str]:
    calls = [_dump("call", c) for c in merged[0]] + [_dump("invalid", c) for c in merged[1]]
    return [*calls, *text]


def _diff(
    want: Merged,
    got: Merged,
    want_label: str,
    got_label: str,
    texts: tuple[Sequence[str], Sequence[str]] = ((), ()),
) -> str:
    """A unified diff of the calls, then ``text`` and ``parts`` lines where they are compared."""
    lines = difflib.unified_diff(
        _lines(want, texts[0]),
        _lines(got, texts[1]),
        fromfile=want_label,
        tofile=got_label,
        lineterm="",
        n=1,
    )
    return "\n".join(lines)


def _plan_view(merged: Merged, planned: list[dict[str, Any]]) -> Merged:
    """The merge with the plan's ids where the provider renamed them consistently.

    Providers mint their own ids (Ollama's and Gemini's adapters a uuid4, Kimi
    ``functions.<name>:<n>``): a merge recovers the plan when its ids are present,
    distinct, and in one-to-one correspondence with the planned ones.
    """
    ids = [call.get("id") for call in merged[0]]
    if len(ids) != len(planned) or not all(ids) or len(set(ids)) != len(ids):
        return merged
    valid = [{**call, "id": plan["id"]} for call, plan in zip(merged[0], planned, strict=True)]
    return valid, merged[1]


def is_lossless(scenario: Scenario, dialect: Dialect) -> bool:
    """True when a correct consumer recovers the plan: no lossy quirk, a profile's included."""
    return scenario.lossless and all(q.lossless for q in getattr(dialect, "quirks", ()))


def _reference_outcome(
    want: Merged, reference: MergeResult, scenario: Scenario, lossless: bool
) -> tuple[str, str]:
    """The reference's own ``(status, detail)``: the plan check, then its hazards.

    Its text is the wire's: that a lossless wire carries the plan's text is the
    dialect's to keep (``tests/plugin/test_subject_text.py`` holds every bundled cell to it).
    """
    if lossless:
        planned = scenario.plan.expected_calls()
        if _plan_view(want, planned) != (planned, []):
            return "differs", _diff((planned, []), want, "plan", "merged")
    return ("hazard", "; ".join(map(str, reference.hazards))) if reference.hazards else ("pass", "")


# --- serving ----------------------------------------------------------------------------


def _base_url(dialect: Dialect) -> str:
    """A host of the dialect's own under ``.invalid``, with the public base URL's path."""
    host = dialect.name.replace("_", "-") + ".matrix.tooltape.invalid"
    return f"http://{host}{urlsplit(dialect.base_url or '').path.rstrip('/')}"


class _Stage:
    """The routers the adapters reach, and the clients built for each dialect."""

    def __init__(
        self, stack: ExitStack, needs_server: bool, seconds: float | None, megabytes: float | None
    ) -> None:
        placeholder = FakeProvider("openai_chat", base_url="http://placeholder.invalid/v1")
        self.patched = ProviderRouter([placeholder])
        stack.enter_context(patch_httpx2(router=self.patched))
        stack.enter_context(patch_httpx(router=self.patched))
        self.logs = stack.enter_context(_captured_logs())
        self.server_url = ""
        self.app = FakeProviderApp(placeholder)
        if needs_server:
            self.server_url = stack.enter_context(serve_in_thread(self.app))
        self.clients: dict[tuple[int, str], Any] = {}
        self.providers: dict[tuple[str, str], FakeProvider] = {}
        self.bounds = stack.enter_context(Bounds(seconds, megabytes))
        """The time limit and memory bound of every subject's turn (``.seconds``: the limit)."""
        self.batched: dict[tuple[str, str, str], BatchOutcome] = {}
        """Batched subjects' outcomes by ``(subject, scenario, dialect)``, run ahead."""

    def serve(self, adapter: Adapter, dialect: Dialect, wire: Wire) -> FakeProvider:
        provider = self._provider(adapter.transport, dialect).stream(wire)
        self.patched.providers = (provider,)
        if adapter.transport == "server":
            # The server's host is routed in-process too: an httpx or httpx2 client pointed
            # at it (a user's subject) is answered by the patched transport, any other
            # client (botocore's urllib3, aiohttp, requests) by the server itself.
            self.app.router.providers = (provider,)
        return provider

    def _provider(self, transport: str, dialect: Dialect) -> FakeProvider:
        """The dialect's provider, reused while every turn it queued was played."""
        provider = self.providers.get((transport, dialect.name))
        if provider is None or provider.played < provider.scripted:
            url = self.server_url if transport == "server" else _base_url(dialect) or None
            provider = FakeProvider(dialect, base_url=url)
            provider.limit_log(0, None)  # the matrix reads no request back
            self.providers[transport, dialect.name] = provider
        return provider

    def client(self, adapter: Adapter, dialect: Dialect) -> Any:
        key = (id(adapter), dialect.name)
        if key not in self.clients:
            url = self.server_url if adapter.transport == "server" else _base_url(dialect)
            self.clients[key] = adapter.build(dialect.name, url)
        return self.clients[key]


def _short(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}"


class _LogCapture(logging.Handler):
    """Collect what libraries log while a subject runs (cohere logs bad SSE data).

    One handler stays on the root logger for the whole run; :meth:`take` empties it
    before a subject streams and hands over what it logged after.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split())[:300])

    def take(self) -> list[str]:
        """The messages logged since the last call."""
        messages, self.messages = self.messages, []
        return messages


@contextmanager
def _captured_logs() -> Iterator[_LogCapture]:
    handler = _LogCapture()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def _run_subject(
    stage: _Stage, adapter: Adapter, dialect: Dialect, cell: Cell, wire: Wire
) -> Result:
    assert cell.reference is not None
    if adapter.batch is not None:
        return _batched_result(stage, adapter, cell)
    started = time.perf_counter()
    stage.logs.take()  # what was logged between subjects is not this one's
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            client = stage.client(adapter, dialect)
            stage.serve(adapter, dialect, wire)
            with stage.bounds.block():
                got = adapter.run(client, cell.scenario.plan)
        except CellHangs as error:
            result = Result(adapter.name, "hangs", f"{cell.scenario.name}: {error}", "CellHangs")
        except CellMemory as error:
            result = Result(adapter.name, "memory", f"{cell.scenario.name}: {error}", "CellMemory")
        except Exception as error:
            result = Result(adapter.name, "crashes", _short(error), type(error).__name__)
        else:
            result = Result(adapter.name, *_subject_outcome(cell, got))
    result.seconds = time.perf_counter() - started
    result.warnings = sorted({str(w.message) for w in caught} | set(stage.logs.take()))
    return result


def _batched_result(stage: _Stage, adapter: Adapter, cell: Cell) -> Result:
    """A batched subject's result in ``cell``, from what its batch made of it."""
    outcome = stage.batched[adapter.name, cell.scenario.name, cell.dialect]
    error = outcome.error
    if isinstance(error, CellHangs):
        result = Result(adapter.name, "hangs", f"{cell.scenario.name}: {error}", "CellHangs")
    elif error is not None:
        result = Result(adapter.name, "crashes", _short(error), type(error).__name__)
    else:
        assert outcome.merged is not None
        turn = Turn(*outcome.merged, outcome.text, outcome.parts)
        result = Result(adapter.name, *_subject_outcome(cell, turn))
    result.seconds = outcome.seconds
    return result


Rendered = Wire | TooltapeUsageError
"""A cell's wire, or why its dialect cannot render the scenario."""


def _render(scenario: Scenario, dialect: Dialect) -> Rendered:
    try:
        return dialect.render(scenario.plan, scenario.quirks, scenario.seed)
    except TooltapeUsageError as error:
        return error


def _run_batches(
    stage: _Stage, pairs: Sequence[tuple[Scenario, Dialect]], subjects: dict[str, list[Adapter]]
) -> dict[tuple[str, str], Rendered]:
    """Run each batched subject over every cell it reads, at once, before the cells stream.

    Returns:
        The wires rendered for them by ``(scenario, dialect)``: the cells take them
        (:func:`_prepared`) rather than render them again.
    """
    from tooltape.plugin._engine.js_subjects import BatchCell

    batched = {a.name: a for group in subjects.values() for a in group if a.batch is not None}
    wires: dict[tuple[str, str], Rendered] = {}
    for adapter in batched.values():
        assert adapter.batch is not None
        keys, cells = [], []
        for scenario, dialect in pairs:
            if adapter not in subjects[dialect.name]:
                continue
            key = (scenario.name, dialect.name)
            if key not in wires:
                wires[key] = _render(scenario, dialect)
            wire = wires[key]
            if isinstance(wire, Wire):
                keys.append((adapter.name, scenario.name, dialect.name))
                cells.append(BatchCell(dialect, wire, scenario.plan))
        stage.batched.update(zip(keys, adapter.batch(cells, stage.bounds.seconds), strict=True))
    return wires


def _subject_outcome(cell: Cell, turn: Turn) -> tuple[str, str]:
    """``(status, detail)`` of a subject's turn against the reference (and the plan).

    A subject that merged what the reference merged, and kept its text and order of
    parts (where it reports them), shares the reference's outcome (the plan check
    and the hazards are the reference's), so only a difference is worked out here.
    The calls and the text are judged alike: matching the plan where the reference
    does not is better, any other difference worse.
    """
    want, got = cell.reference_calls, turn.calls
    # A turn with the plan's text and order has what the wire carries (a lossless wire carries
    # the plan's; a lossy one no more): the wire is read only for a turn that differs.
    score, why = (
        (0, "")
        if keeps_plan(turn, cell.plan_text)
        else (text_verdict(turn, cell.reference_text, cell.plan_text))
    )
    texts: tuple[list[str], list[str]] = ([], [])
    if score:
        texts = (text_lines(turn, cell.reference_text), text_lines(turn, None))
    shown = got
    better = ""
    calls_differ = False
    if got != want:  # equal calls need no id alignment
        # Ids the subject minted for idless calls may be what recovers the plan: judged first.
        better = _better(cell, got)
        aligned = _align_generated_ids(got, want)
        if better or aligned != want:
            better = better or _better(cell, aligned)
            shown = got if aligned == want else aligned  # the ids that make it better, if so
            calls_differ = not better
        else:
            shown = want
    if calls_differ or score or better:
        diff = _diff(want, shown, "reference", "subject", texts)
        if calls_differ or score < 0:
            return "differs", f"{why}\n{diff}" if score < 0 else diff
        reasons = "; ".join(r for r in (better, why) if r)
        return "better", f"{reasons}\n{diff}"
    reference = cell.results[0]  # _prepared put the reference's result first
    return reference.status, reference.detail


def _canonical(calls: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(c, sort_keys=True, ensure_ascii=False, default=str) for c in calls)


def _recovery(merged: Merged, planned: list[dict[str, Any]], idless: bool) -> int:
    """How much of the plan a merge recovers: 2 all of it, 1 all but the ids, 0 less.

    Ids the merge minted count as the plan's when they pair up one to one
    (:func:`_plan_view`). Where no call's id reached the wire (``idless``), no
    consumer can recover the planned ids: names and arguments as planned, with no
    id or one of its own, is all but the ids.
    """
    if _plan_view(merged, planned) == (planned, []):
        return 2
    valid, invalid = merged
    names_and_args = (
        not invalid
        and len(valid) == len(planned)
        and all(
            (c.get("name"), c.get("args")) == (p["name"], p["args"]) and _no_sent_id(c.get("id"))
            for c, p in zip(valid, planned, strict=True)
        )
    )
    return 1 if idless and names_and_args else 0


def _better(cell: Cell, got: Merged) -> str:
    """Why a subject that differs from the reference is better than it (empty: it is not).

    Judged against the plan, with langchain-core as context: the subject recovers
    the plan where langchain-core does not (it lost or mangled data), or it keeps
    invalid exactly the calls whose arguments langchain-core repaired (invented)
    into valid ones, and agrees with it on everything else.
    """
    assert cell.reference is not None
    planned = cell.scenario.plan.expected_calls()
    want = cell.reference_calls
    chunks = cell.reference.chunks
    idless = not any(chunk.get("id") for chunk in chunks)
    if _recovery(got, planned, idless) > _recovery(want, planned, idless):
        return "better than the reference: recovers the plan, which langchain-core does not"
    positions = [h.position for h in cell.reference.hazards if h.kind == "args_repaired"]
    streamed = [  # the repaired calls as the stream sent them: name, id, the raw argument text
        {key: chunks[at].get(key) for key in ("name", "args", "id")}
        for at in positions
        if at is not None and at < len(chunks)
    ]
    if not streamed:
        return ""
    repaired = {(c["name"], c["id"]) for c in streamed}
    kept = [c for c in want[0] if (c.get("name"), c.get("id")) not in repaired]
    moved = [c for c in want[0] if (c.get("name"), c.get("id")) in repaired]
    if (
        len(moved) == len(streamed)
        and _canonical(got[0]) == _canonical(kept)
        and _canonical(got[1]) == _canonical([*want[1], *streamed])
    ):
        return (
            "better than the reference: keeps invalid the arguments langchain-core "
            "repaired into a valid call (" + ", ".join(repr(c.get("name")) for c in moved) + ")"
        )
    return ""


def _reference_result(cell: Cell, scenario: Scenario) -> Result:
    assert cell.reference is not None
    # The reference's calls are worked out with the preparation: every subject compares with them.
    outcome = _reference_outcome(cell.reference_calls, cell.reference, scenario, cell.lossless)
    return Result("reference", *outcome)


def _prepared(
    scenario: Scenario, dialect: Dialect, rendered: Rendered | None = None
) -> tuple[Cell, Wire | None]:
    """A cell rendered, parsed and merged by the reference, and its wire (``None``: no subject).

    ``rendered``: the cell's wire when it was rendered already (for a batched subject).
    """
    wires = {} if rendered is None else {(scenario.name, dialect.name): rendered}
    return _prepared_block([(scenario, dialect)], wires)[0]


def _prepared_block(
    block: Sequence[tuple[Scenario, Dialect]], rendered: dict[tuple[str, str], Rendered]
) -> list[tuple[Cell, Wire | None]]:
    """:func:`_prepared` for every cell of ``block``, one step at a time.

    Every cell is rendered, then every wire parsed, then every stream merged:
    each step's code runs many times in a row rather than once between the
    others, which evict it (``bench/run.py``'s matrix row: 1.26x to 1.24x the
    bare adapter). ``rendered`` holds the wires rendered already (for a batched
    subject); the cells take theirs out of it.
    """
    cells = [Cell(s, d.name, lossless=is_lossless(s, d)) for s, d in block]
    wires: list[Wire | None] = []
    for cell, (scenario, dialect) in zip(cells, block, strict=True):
        wire = rendered.pop((scenario.name, dialect.name), None)
        wire = _render(scenario, dialect) if wire is None else wire
        if isinstance(wire, TooltapeUsageError):
            cell.skipped = str(wire)
            wires.append(None)
        else:
            cell.wire = wire
            wires.append(wire)
    parsed = [_parsed(cell, d, w) for cell, (_, d), w in zip(cells, block, wires, strict=True)]
    for cell, deltas in zip(cells, parsed, strict=True):
        if deltas is not None and _merged(cell, deltas):
            cell.results.append(_reference_result(cell, cell.scenario))
    return [(cell, cell.wire if cell.reference is not None else None) for cell in cells]


def _parsed(cell: Cell, dialect: Dialect, wire: Wire | None) -> Deltas | None:
    """What the dialect's reference adapter reads from ``wire`` (``None``: none, or it crashed)."""
    if wire is None:
        return None
    try:
        return dialect.parse(wire.body)
    except Exception as error:
        cell.results.append(Result("reference", "crashes", _short(error), type(error).__name__))
        return None


def _merged(cell: Cell, deltas: Deltas) -> bool:
    """Merge ``deltas`` by the reference into ``cell``; False when it crashed."""
    try:
        cell.reference = reference_merge(deltas)
    except Exception as error:
        cell.results.append(Result("reference", "crashes", _short(error), type(error).__name__))
        return False
    cell.deltas = deltas
    return True


DEFAULT_CELL_TIMEOUT = 5.0
"""Seconds a subject may take over one cell before it is reported as ``hangs``."""
DEFAULT_CELL_MEMORY = 1024.0
"""MiB a subject may grow the process by over one cell before it is reported as ``memory``."""

_PREPARED_AHEAD = 64
"""Cells rendered, parsed and merged before their subjects stream them.

Each step then runs many times in a row instead of once between two adapter
runs, whose code evicts it: in ``bench/run.py``'s matrix row this took a cell
from 1.27-1.33x to 1.22-1.24x the bare adapter. The block bounds the wires held.
"""


@contextmanager
def _staged(
    needs_server: bool,
    seconds: float | None = DEFAULT_CELL_TIMEOUT,
    megabytes: float | None = DEFAULT_CELL_MEMORY,
) -> Iterator[_Stage]:
    with ExitStack() as stack:
        yield _Stage(stack, needs_server, seconds, megabytes)


def _judge_reference(cell: Cell, pins: ReferencePins) -> None:
    """Hold the reference row to its pinned outcome: any change makes it unexpected."""
    why = pins.judge(cell)
    if why is None:
        return
    if not cell.results or cell.results[0].adapter != "reference":
        cell.results.insert(0, Result("reference", "n/a"))  # skipped now, pinned otherwise
    cell.results[0].expected, cell.results[0].reason = False, why


def _run_cell(
    stage: _Stage,
    dialect: Dialect,
    cell: Cell,
    wire: Wire | None,
    subjects: Sequence[Adapter],
    expectations: Expectations,
    pins: ReferencePins | None,
) -> None:
    """Stream ``wire`` through each subject and judge every result of the prepared ``cell``."""
    if wire is not None:
        cell.results += [_run_subject(stage, a, dialect, cell, wire) for a in subjects]
    cell.wire = None  # the reference's text was read from it, if anyone asked
    for result in cell.results:
        verdict = expectations.judge(
            result.adapter,
            cell.dialect,
            cell.scenario.name,
            result.status,
            result.error,
            result.detail,
        )
        result.expected, result.reason = verdict.expected, verdict.reason
    if pins is not None:
        _judge_reference(cell, pins)


def run_matrix(
    scenarios: Sequence[Scenario],
    dialects: Sequence[str],
    adapters: Sequence[str] | None,
    expectations: Expectations,
    progress: Callable[[Cell], None] = lambda cell: None,
    pins: ReferencePins | None = None,
    cell_timeout: float | None = DEFAULT_CELL_TIMEOUT,
    cell_memory: float | None = DEFAULT_CELL_MEMORY,
    extra: Sequence[Adapter] = (),
) -> list[Cell]:
    """Run every scenario x dialect cell; judge each result against ``expectations``.

    With ``pins``, the reference row (langchain-core) is also held to its pinned
    outcome in every cell, lossy ones included. Each subject runs each cell under
    ``cell_timeout`` seconds and ``cell_memory`` MiB of growth (``None``: unbounded);
    one that exceeds either is ``hangs`` or ``memory`` there, and the run goes on.
    ``extra`` adds users' subjects to the built-in ones.
    """
    resolved = [get_dialect(name) for name in dialects]
    subjects = {d.name: subjects_for(d, adapters, extra) for d in resolved}
    needs_server = any(
        a.transport == "server" and a.batch is None for group in subjects.values() for a in group
    )
    pairs = [(scenario, dialect) for scenario in scenarios for dialect in resolved]
    cells = []
    with _staged(needs_server, cell_timeout, cell_memory) as stage:
        rendered = _run_batches(stage, pairs, subjects)
        for start in range(0, len(pairs), _PREPARED_AHEAD):
            block = pairs[start : start + _PREPARED_AHEAD]
            prepared = _prepared_block(block, rendered)
            for (cell, wire), (_, dialect) in zip(prepared, block, strict=True):
                _run_cell(stage, dialect, cell, wire, subjects[dialect.name], expectations, pins)
                cells.append(cell)
                progress(cell)
    return cells
