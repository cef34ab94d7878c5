"""LangChain.js as a second reference for ``tooltape differential``.

Each scenario is rendered in every dialect LangChain.js has an adapter for
(Chat Completions through ``@langchain/openai``'s ``ChatOpenAI``, Messages
through ``@langchain/anthropic``'s ``ChatAnthropic``); the wires are served by
:func:`~tooltape.fake_providers.serve_in_thread` on 127.0.0.1, one path prefix
per wire, and ``js/merge.mjs`` streams each with the real adapter, merges the
chunks with ``concat`` and prints the calls. They join the differential rows as
the ``langchain-js`` accumulator, so every row compares them with
langchain-core's merge of the same bytes.

LangChain.js lives in ``js/node_modules`` beside ``merge.mjs`` (pinned by
``js/package-lock.json``), or in ``$TOOLTAPE_JS_DIR``; :func:`js_missing` says
what is absent and prints the ``npm ci`` command that installs it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tooltape.fake_providers import FakeProvider, FakeProviderApp, get_dialect, serve_in_thread
from tooltape.harness import Plan, Scenario, TooltapeUsageError
from tooltape.harness.json_text import loads
from tooltape.harness.name_checks import check_names
from tooltape.plugin._engine.differential import (
    LANGCHAIN,
    AccumulatorResult,
    DifferentialRow,
    _brief,
)

__all__ = [
    "JS_ACCUMULATOR",
    "JS_DIALECTS",
    "js_differences",
    "js_missing",
    "js_reference_dir",
    "render_js_report",
    "require_js",
    "with_langchain_js",
]

JS_ACCUMULATOR = "langchain-js"
"""The accumulator name of LangChain.js's merge in differential rows."""
JS_DIALECTS = ("openai_chat", "anthropic_messages")
"""The dialects LangChain.js reads, through ``ChatOpenAI`` and ``ChatAnthropic``."""
PACKAGED = Path(__file__).parent / "js"
_FILES = ("package.json", "package-lock.json", "chat_models.mjs", "merge.mjs", "subjects.mjs")
_NEEDS = ("@langchain/core", "@langchain/openai", "@langchain/anthropic")
_JOB = re.compile(r"^/job/(\d+)(/.*)$")
_TIMEOUT = 300.0


def js_reference_dir() -> Path:
    """Where LangChain.js is looked for: ``$TOOLTAPE_JS_DIR``, else the packaged ``js`` folder."""
    override = os.environ.get("TOOLTAPE_JS_DIR")
    return Path(override) if override else PACKAGED


def _prepare(directory: Path) -> None:
    """Put the package files and ``merge.mjs`` into ``directory`` (a no-op for the packaged one)."""
    if directory.resolve() == PACKAGED.resolve():
        return
    directory.mkdir(parents=True, exist_ok=True)
    for name in _FILES:
        source = (PACKAGED / name).read_bytes()
        target = directory / name
        if not target.is_file() or target.read_bytes() != source:
            target.write_bytes(source)


def js_missing(directory: Path | None = None, needs: Sequence[str] = _NEEDS) -> str | None:
    """What LangChain.js (or the ``needs`` packages) lacks, in one sentence with the fix.

    ``None`` when node is on PATH and every package is installed.
    """
    directory = js_reference_dir() if directory is None else directory
    if shutil.which("node") is None:
        return "node is not on PATH (LangChain.js needs Node.js 20 or newer)"
    absent = [name for name in needs if not (directory / "node_modules" / name).is_dir()]
    if absent:
        _prepare(directory)
        return (
            f"{', '.join(absent)} not installed in {directory}; "
            f"install with: npm ci --no-audit --no-fund --prefix {directory}"
        )
    return None


def require_js() -> Path:
    """The folder LangChain.js is installed in.

    Raises:
        TooltapeUsageError: node or a LangChain.js package is missing (the message says
            which, and how to install it).
    """
    directory = js_reference_dir()
    missing = js_missing(directory)
    if missing is not None:
        raise TooltapeUsageError(f"--js: {missing}")
    return directory


# -- serving ---------------------------------------------------------------------------------


class _JobsApp:
    """ASGI app: ``/job/N/<path>`` goes to the N-th app, with ``/job/N`` taken off the path."""

    def __init__(self, apps: Sequence[FakeProviderApp]) -> None:
        self.apps = list(apps)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        match = _JOB.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None or int(match.group(1)) >= len(self.apps):
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b"tooltape: no such job"})
            return
        path = match.group(2)
        inner = {**scope, "path": path, "raw_path": path.encode("latin-1")}
        await self.apps[int(match.group(1))](inner, receive, send)


class _QuietCuts(logging.Filter):
    """Drop uvicorn's complaint about a response a job's app cut on purpose (a cut wire)."""

    def __init__(self, apps: Sequence[FakeProviderApp]) -> None:
        super().__init__()
        self._apps = apps

    def filter(self, record: logging.LogRecord) -> bool:
        cut = str(record.msg).startswith("ASGI callable returned without completing")
        return not (cut and any(app.take_abort() for app in self._apps))


def _render(scenario: Scenario | Plan, dialect: str) -> Any:
    """The wire :func:`~tooltape.plugin.differential` renders, or the reason it cannot."""
    if isinstance(scenario, Scenario):
        plan, quirks, seed = scenario.plan, list(scenario.quirks), scenario.seed or 0
    else:
        plan, quirks, seed = scenario, [], 0
    try:
        return get_dialect(dialect).render(plan, quirks, seed)
    except TooltapeUsageError as error:
        return f"{dialect} cannot express it ({' '.join(str(error).split())[:100]}...)"


def _run_node(directory: Path, jobs: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    node = shutil.which("node")
    if node is None:  # pragma: no cover - js_missing checked it
        raise TooltapeUsageError("node is not on PATH")
    done = subprocess.run(
        [node, str(directory / "merge.mjs")],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        tail = " ".join(done.stderr.split())[-300:]
        raise TooltapeUsageError(f"{directory / 'merge.mjs'} exited {done.returncode}: {tail}")
    answers = [loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {answer["key"]: answer for answer in answers}


def _js_results(
    scenarios: Sequence[Scenario | Plan], dialects: Sequence[str], directory: Path
) -> list[list[AccumulatorResult]]:
    """Per scenario, LangChain.js's result on each of ``dialects``."""
    results: list[list[AccumulatorResult | None]] = []
    jobs: list[dict[str, Any]] = []
    apps: list[FakeProviderApp] = []
    for row, scenario in enumerate(scenarios):
        results.append([])
        plan = scenario.plan if isinstance(scenario, Scenario) else scenario
        for dialect in dialects:
            wire = _render(scenario, dialect)
            if isinstance(wire, str):
                results[row].append(AccumulatorResult(JS_ACCUMULATOR, dialect, skipped=wire))
                continue
            key = len(apps)
            base = f"http://127.0.0.1/job/{key}"
            apps.append(FakeProviderApp(FakeProvider(dialect, base_url=base).stream(wire)))
            tools = sorted({call.name for call in plan.calls})
            jobs.append({"key": key, "dialect": dialect, "tools": tools, "row": row})
            results[row].append(None)
    quiet = _QuietCuts(apps)
    logging.getLogger("uvicorn.error").addFilter(quiet)
    try:
        with serve_in_thread(_JobsApp(apps)) as url:
            for job in jobs:
                job["url"] = f"{url}/job/{job['key']}"
            answers = _run_node(directory, jobs)
    finally:
        logging.getLogger("uvicorn.error").removeFilter(quiet)
    for job in jobs:
        answer = answers.get(job["key"], {"calls": None, "error": "merge.mjs gave no answer"})
        slot = results[job["row"]]
        slot[slot.index(None)] = AccumulatorResult(
            JS_ACCUMULATOR, job["dialect"], answer["calls"], answer["error"]
        )
    return [[r for r in row if r is not None] for row in results]


def with_langchain_js(
    scenarios: Sequence[Scenario | Plan],
    rows: Sequence[DifferentialRow],
    *,
    required: bool | None = None,
    dialects: Sequence[str] = JS_DIALECTS,
) -> tuple[list[DifferentialRow], str | None]:
    """Add LangChain.js's results to differential rows (one per scenario, in order).

    Args:
        scenarios: The scenarios the rows were made from.
        rows: :func:`~tooltape.plugin.differential_table`'s rows for them.
        required: ``True``: fail when LangChain.js cannot run; ``None``: skip it with a
            note; ``False``: leave it out.
        dialects: The dialects LangChain.js reads (a subset of :data:`JS_DIALECTS`).

    Returns:
        The rows with a ``langchain-js`` result per dialect, and a note when it was skipped.

    Raises:
        TooltapeUsageError: ``required`` and node or LangChain.js is missing, or a
            dialect has no LangChain.js adapter here.
    """
    check_names("LangChain.js dialect", dialects, JS_DIALECTS)
    if required is False:
        return list(rows), None
    if required:
        directory = require_js()
    else:
        directory = js_reference_dir()
        missing = js_missing(directory)
        if missing is not None:
            return list(rows), f"tooltape: LangChain.js skipped: {missing} (--no-js hides this)"
    added = _js_results(scenarios, dialects, directory)
    return [
        dataclasses.replace(row, results=(*row.results, *extra))
        for row, extra in zip(rows, added, strict=True)
    ], None


def js_differences(rows: Iterable[DifferentialRow]) -> list[tuple[str, str, Any, Any]]:
    """``(scenario, dialect, python result, js result)`` where the two merges differ."""
    found = []
    for row in rows:
        for js in row.results:
            if js.accumulator != JS_ACCUMULATOR or js.skipped:
                continue
            python = row.result(LANGCHAIN, js.dialect)
            if not python.skipped and python.outcome != js.outcome:
                found.append((row.scenario, js.dialect, python, js))
    return found


def _describe(result: AccumulatorResult) -> str:
    calls = "no calls" if not result.calls else _brief(result.calls)
    if result.calls is None:
        calls = "no result"
    return calls + (f" (raised {result.error})" if result.error else "")


def render_js_report(rows: Iterable[DifferentialRow]) -> str:
    """Where LangChain.js and langchain-core merge the same bytes differently, as plain text."""
    rows = list(rows)
    compared = sum(
        1 for row in rows for r in row.results if r.accumulator == JS_ACCUMULATOR and not r.skipped
    )
    if not compared:
        return ""
    differences = js_differences(rows)
    lines = [
        f"LangChain.js vs langchain-core: {len(differences)} of {compared} "
        "scenario x dialect merge(s) differ"
    ]
    for scenario, dialect, python, js in differences:
        lines += [
            f"  {scenario} / {dialect}",
            f"    python: {_describe(python)}",
            f"    js:     {_describe(js)}",
        ]
    return "\n".join(lines)
