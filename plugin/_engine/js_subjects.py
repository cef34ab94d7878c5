"""LangChain.js and the Vercel AI SDK as matrix subjects, all of a run's cells in one node process.

Spawning node per cell would cost more than the cells (node starts and imports
the library in about a second), so these subjects are *batched*: before the
matrix streams its cells, the engine hands each one every cell it reads (the
dialect, the wire, the plan), and :func:`run_batch` serves all the wires on one
127.0.0.1 server, one path prefix per cell (``/job/N/`` then the real base URL's
path), and runs ``js/subjects.mjs`` once over them:

- ``langchain-js``: ``@langchain/openai``'s ``ChatOpenAI`` (``openai_chat``) and
  ``@langchain/anthropic``'s ``ChatAnthropic`` (``anthropic_messages``),
  ``.stream()`` merged with ``concat``; its ``tool_calls`` and
  ``invalid_tool_calls``;
- ``vercel-ai``: the ``ai`` package's ``streamText`` over ``@ai-sdk/openai``'s
  chat model (``openai.chat(...)``) and ``@ai-sdk/anthropic``, the tools declared
  without ``execute`` so the calls come back as the result's ``toolCalls``
  (``invalid`` ones, or args that are not an object, as invalid calls).

Each cell has the matrix's per-cell time limit inside node (the stream is
aborted and the cell ``hangs``); a cell that blocks node's event loop is caught
here (no answer within the limit plus a grace), node is stopped, the cell
``hangs`` and the rest run in a new process; the whole batch has a time limit
too (:data:`RUN_TIMEOUT`). The packages live in ``js/node_modules`` (pinned by
``js/package-lock.json``) or ``$TOOLTAPE_JS_DIR``; without node or them, the
subjects are skipped with the ``npm ci`` line that installs them.
"""

from __future__ import annotations

import functools
import json
import logging
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import urlsplit

from tooltape.fake_providers import Dialect, FakeProvider, FakeProviderApp, Wire, serve_in_thread
from tooltape.harness import Plan
from tooltape.harness.json_text import loads
from tooltape.plugin._cell_limits import CellHangs

__all__ = [
    "RUN_TIMEOUT",
    "BatchCell",
    "BatchOutcome",
    "JsError",
    "js_adapters",
    "run_batch",
]

RUN_TIMEOUT = 900.0
"""Seconds one subject's whole batch may take before its unanswered cells are ``hangs``."""
_GRACE = 15.0
"""Seconds beyond the cell limit before a cell that blocks node's event loop is called hung
(node's start and first import count against the first cell)."""
_NEEDS = {
    "langchain-js": ("@langchain/core", "@langchain/openai", "@langchain/anthropic"),
    "vercel-ai": ("ai", "@ai-sdk/openai", "@ai-sdk/anthropic"),
}
_DESCRIPTIONS = {
    "langchain-js": "LangChain.js: ChatOpenAI / ChatAnthropic .stream() merged with concat "
    "(node, a 127.0.0.1 server)",
    "vercel-ai": "Vercel AI SDK: streamText over @ai-sdk/openai (chat) and @ai-sdk/anthropic, "
    "toolCalls (node, a 127.0.0.1 server)",
}
DIALECTS = ("openai_chat", "anthropic_messages")


@dataclass(frozen=True)
class BatchCell:
    """One cell a batched subject streams: the dialect, its wire and the turn's plan."""

    dialect: Dialect
    wire: Wire
    plan: Plan


@dataclass(frozen=True)
class BatchOutcome:
    """What a batched subject made of one cell: its calls, or the error it ended with."""

    merged: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None
    error: BaseException | None
    seconds: float
    text: str | None = None
    """The turn's visible text, where the subject reports it."""
    parts: tuple[str, ...] | None = None
    """The order of its text and calls, where the subject keeps it."""


class JsError(Exception):
    """An error a JavaScript subject raised; subclasses carry the JS error's name."""


@functools.cache
def _js_error(name: str) -> type[JsError]:
    """A :class:`JsError` subclass named as the JS error (``AI_APICallError``, ``TypeError``)."""
    valid = name if name.isidentifier() else "JsError"
    return type(valid, (JsError,), {"__module__": "javascript"})


def _missing(subject: str) -> str | None:
    """The install line when node or the subject's packages are absent, else ``None``."""
    from tooltape.plugin._js_reference import js_missing, js_reference_dir

    directory = js_reference_dir()
    why = js_missing(directory, _NEEDS[subject])
    if why is None:
        return None
    install = f"npm ci --no-audit --no-fund --prefix {directory}"
    return install if shutil.which("node") else f"Node.js 20 or newer on PATH, then {install}"


def _url(server: str, key: int, dialect: Dialect) -> str:
    """The cell's base URL: its job prefix, then the real base URL's path (``/v1``)."""
    return f"{server}/job/{key}{urlsplit(dialect.base_url or '').path.rstrip('/')}"


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _node_run(
    subject: str, jobs: list[dict[str, Any]], cell_timeout: float | None, deadline: float
) -> tuple[dict[int, dict[str, Any]], int | None, str]:
    """Run ``subjects.mjs`` over ``jobs``: the answers, the job it hung on (if so), stderr."""
    from tooltape.plugin._js_reference import js_reference_dir

    node = shutil.which("node") or "node"
    script = js_reference_dir() / "subjects.mjs"
    process = subprocess.Popen(
        [node, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()
    errors: list[str] = []
    readers = [
        threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True),
        threading.Thread(target=lambda: errors.extend(process.stderr or ()), daemon=True),
    ]
    for reader in readers:
        reader.start()
    timeout_ms = 0 if cell_timeout is None else int(cell_timeout * 1000)
    process.stdin.write(json.dumps({"subject": subject, "timeout_ms": timeout_ms, "jobs": jobs}))
    process.stdin.close()
    answers: dict[int, dict[str, Any]] = {}
    current: int | None = None
    hung: int | None = None
    limit = (cell_timeout or RUN_TIMEOUT) + _GRACE
    cell_deadline = time.monotonic() + limit
    try:
        while True:
            wait = min(cell_deadline, deadline) - time.monotonic()
            try:
                line = lines.get(timeout=max(wait, 0.0))
            except queue.Empty:
                hung = current if current is not None else (jobs[0]["key"] if jobs else None)
                break
            if line is None:
                break
            if not line.startswith("{"):
                continue
            message = loads(line)
            if "start" in message:
                current, cell_deadline = message["start"], time.monotonic() + limit
            else:
                answers[message["key"]], current = message, None
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for reader in readers:  # the pipes end with the process
            reader.join()
        process.stdout.close()
        process.stderr.close()
    return answers, hung, " ".join("".join(errors).split())[-300:]


def _outcome(answer: dict[str, Any]) -> BatchOutcome:
    seconds = float(answer.get("ms", 0.0)) / 1000
    error = answer.get("error")
    if answer.get("hangs"):
        return BatchOutcome(None, CellHangs(seconds), seconds)
    if error is not None:
        return BatchOutcome(None, _js_error(error["type"])(error["message"]), seconds)
    parts = answer.get("parts")
    merged = (answer["valid"], answer["invalid"])
    text = answer.get("text")
    return BatchOutcome(merged, None, seconds, text, None if parts is None else tuple(parts))


def run_batch(
    subject: str, cells: Sequence[BatchCell], cell_timeout: float | None
) -> list[BatchOutcome]:
    """Stream every cell through the JS ``subject`` in one node process (more after a hang).

    Returns:
        One outcome per cell, in order: the calls, or a :class:`JsError` (a crash)
        or :class:`~tooltape.plugin._cell_limits.CellHangs` to report.
    """
    from tooltape.plugin._engine.subjects import tools_for
    from tooltape.plugin._js_reference import _JobsApp, _QuietCuts

    apps = [
        FakeProviderApp(FakeProvider(cell.dialect, base_url=f"http://127.0.0.1/job/{key}").stream(cell.wire))
        for key, cell in enumerate(cells)
    ]  # fmt: skip
    outcomes: dict[int, BatchOutcome] = {}
    quiet = _QuietCuts(apps)
    logging.getLogger("uvicorn.error").addFilter(quiet)
    deadline = time.monotonic() + RUN_TIMEOUT
    try:
        with serve_in_thread(_JobsApp(apps)) as server:
            jobs: list[dict[str, Any]] = [
                {"key": key, "dialect": getattr(cell.dialect, "base", cell.dialect).name,
                 "url": _url(server, key, cell.dialect), "tools": tools_for(cell.plan)}
                for key, cell in enumerate(cells)
            ]  # fmt: skip
            while jobs and time.monotonic() < deadline:
                answers, hung, stderr = _node_run(subject, jobs, cell_timeout, deadline)
                outcomes.update({key: _outcome(answer) for key, answer in answers.items()})
                if hung is not None:
                    outcomes[hung] = BatchOutcome(None, CellHangs(cell_timeout or RUN_TIMEOUT), 0.0)
                elif len(answers) < len(jobs):  # node ended early: a crash of the runner itself
                    failure = _js_error("NodeExited")(f"subjects.mjs ended early: {stderr}")
                    for job in jobs:
                        outcomes.setdefault(job["key"], BatchOutcome(None, failure, 0.0))
                jobs = [job for job in jobs if job["key"] not in outcomes]
    finally:
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    timed_out = BatchOutcome(None, CellHangs(RUN_TIMEOUT), 0.0)
    return [outcomes.get(key, timed_out) for key in range(len(cells))]


def js_adapters() -> list[Any]:
    """The ``langchain-js`` and ``vercel-ai`` matrix rows."""
    from tooltape.plugin._engine.subjects import Adapter

    def unbatched(*_: Any) -> Any:  # pragma: no cover - the engine calls batch instead
        raise AssertionError("a batched subject runs through Adapter.batch")

    rows = []
    for name in _NEEDS:
        rows.append(
            Adapter(
                name,
                DIALECTS,
                (),
                unbatched,
                unbatched,
                "server",
                _DESCRIPTIONS[name],
                install="npm ci --no-audit --no-fund --prefix <tooltape>/plugin/js (Node.js 20+)",
                batch=functools.partial(run_batch, name),
                missing=functools.partial(_missing, name),
            )
        )
    return rows
