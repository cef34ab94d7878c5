"""Every tooltape benchmark in one run, as ratios measured side by side.

    python bench/run.py [--quick] [--markdown]

1. oracle: ``reference_merge`` vs langchain-core's n-ary merge of prebuilt chunks on one
   128,000-character argument (pairwise ``+`` too at 32,000 and less);
   hazards: ``find_hazards`` on a merge of 8,000 calls vs that merge;
2. fuzzing: ``check_merger`` examples per second vs the floor: a bare Hypothesis property
   that draws a 2-call stream and merges it with langchain-core;
3. serve: ``tooltape serve`` (the console script, a real server on 127.0.0.1) streaming a
   10 MB body to an httpx2 client: events per second, MB per second, server memory;
4. matrix: what one ``tooltape matrix`` cell costs per stream vs streaming the same wire
   into the bare adapter over an httpx2 MockTransport, in CPU time, 21 rounds, each
   bare stream run next to its cell: the median ratio and its spread (min, max);
5. replay: bench/replay.py (tooltape vs bare httpx2 MockTransport vs vcrpy), when present;
6. parallel: ``reference_merge`` on 1,000, 10,000 and 100,000 parallel calls (a name
   delta and an argument delta each): microseconds per delta, flat when linear;
7. inspect: ``tooltape inspect`` (the console script) on a cassette streaming 100,000
   parallel tool calls (a name event and an argument event each), against one tenth
   of it: the time ratio shows the scaling (10x is linear), and the peak memory;
8. turns: one in-process fake provider serving 5,000 turns one after another, as
   ``tooltape serve --repeat`` does: CPU time per turn of the first 200 vs the last 200
   (flat is 1x), and how much the process grew;
9. serve_requests: ``tooltape serve --scenario`` answering 5,000 requests from one
   client: the server's RSS after 500 and after 5,000 (bounded: about the same).

Other times are the best of a few repeats (wall clock); the machine is whatever runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.messages.tool import tool_call_chunk
from oracle import _timed

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import get_dialect
from tooltape.harness import check_merger, find_hazards, reference_merge
from tooltape.harness._merger_examples import library_examples
from tooltape.harness._reference import pairwise_merge, to_message_chunks
from tooltape.harness.strategies import _allowed_kinds

HERE = Path(__file__).parent
TOOLTAPE = Path(sys.executable).parent / "tooltape"
Row = tuple[str, str, str]
"""(measurement, result, ratio)."""


def oracle(chars: int) -> list[Row]:
    args = json.dumps({"text": "x" * chars})
    deltas = [[tool_call_chunk(name="write", args="", id="c1", index=0)]] + [
        [tool_call_chunk(name=None, args=args[i : i + 8], id=None, index=0)]
        for i in range(0, len(args), 8)
    ]
    messages = to_message_chunks(deltas)
    nary = _timed(functools.partial(add_ai_message_chunks, messages[0], *messages[1:]), 5)
    del messages  # the prebuilt chunks are the baseline's input, not the reference's heap
    reference = _timed(functools.partial(reference_merge, deltas), 5)
    label = f"{chars:,} chars in {len(deltas):,} deltas"
    rows = [
        (f"oracle: n-ary lc merge of prebuilt chunks, {label}", f"{nary:.3f} s", "1x"),
        (f"oracle: reference_merge, {label}", f"{reference:.3f} s", f"{reference / nary:.2f}x"),
    ]
    if chars <= 32_000:
        pairwise = _timed(functools.partial(pairwise_merge, deltas), 1)
        ratio = f"{pairwise / nary:.0f}x"
        rows.append((f"oracle: pairwise full + chunk, {label}", f"{pairwise:.2f} s", ratio))
    return rows


def hazards(calls: int, rounds: int = 9) -> list[Row]:
    """find_hazards on a merge with ``calls`` calls, half of its chunks nameless orphans.

    CPU time in interleaved rounds (merge, hazards; hazards, merge; ...), the median
    ratio with its spread, as the matrix row does: best-of-3 wall clock moved 1.3-1.9x
    with the machine's load.
    """
    deltas: list[list[Any]] = []
    for n in range(calls):
        deltas.append([tool_call_chunk(name="f", args="", id=f"c{n}", index=None)])
        deltas.append([tool_call_chunk(name=None, args='{"a": 1}', id=None, index=None)])
    messages = to_message_chunks(deltas)
    merge = functools.partial(add_ai_message_chunks, messages[0], *messages[1:])
    chunks = merge().tool_call_chunks
    pairs = _paired(merge, functools.partial(find_hazards, chunks), rounds)
    nary = statistics.median(a for a, _ in pairs)
    found = statistics.median(b for _, b in pairs)
    label = f"{calls:,} calls, {len(chunks):,} merged chunks, CPU time, {rounds} rounds"
    return [
        (f"hazards: n-ary lc merge, {label}", f"{nary * 1000:.0f} ms", "1x"),
        (
            f"hazards: find_hazards, {label}",
            f"{found * 1000:.0f} ms",
            _spread([b / a for a, b in pairs]),
        ),
    ]


def parallel(sizes: tuple[int, ...]) -> list[Row]:
    """``reference_merge`` per delta as the number of parallel calls grows (issue #24).

    langchain-core's n-ary merge of these chunks grows quadratically with the calls
    (each lane is found by a scan); the reference merges lane by lane and should not.
    """
    rows: list[Row] = []
    first = 0.0
    for calls in sizes:
        deltas: list[list[Any]] = []
        for n in range(calls):
            deltas.append([tool_call_chunk(name="f", args="", id=f"c{n}", index=n)])
        for n in range(calls):
            deltas.append([tool_call_chunk(name=None, args='{"a": 1}', id=None, index=n)])
        seconds = _timed(functools.partial(reference_merge, deltas), 1 if calls > 10_000 else 3)
        per_delta = seconds / len(deltas) * 1e6
        first = first or per_delta
        rows.append(
            (
                f"parallel: reference_merge, {calls:,} parallel calls, {len(deltas):,} deltas",
                f"{per_delta:.1f} us per delta",
                f"{per_delta / first:.2f}x",
            )
        )
    return rows


def _paired(
    first: Callable[[], object], second: Callable[[], object], rounds: int
) -> list[tuple[float, float]]:
    """CPU seconds of ``first`` and ``second`` per round, each going first in every other one.

    The garbage collector is collected before and paused during each call, as ``timeit``
    does: a collection triggered by one side's garbage would otherwise land on either.
    """
    pairs = []
    gc_was_enabled = gc.isenabled()
    try:
        for n in range(rounds):
            times = {}
            for fn in (second, first) if n % 2 else (first, second):
                gc.collect()
                gc.disable()
                times[fn] = _cpu(fn)
                gc.enable()
            pairs.append((times[first], times[second]))
    finally:
        if not gc_was_enabled:
            gc.disable()
    return pairs


_ARGS = st.dictionaries(
    st.sampled_from(["city", "query", "n"]), st.text(max_size=8) | st.integers(), max_size=3
)


@given(
    st.lists(st.tuples(st.sampled_from(["get_weather", "search"]), _ARGS), min_size=2, max_size=2),
    st.integers(1, 8),
)
def _floor(calls: list[tuple[str, dict[str, Any]]], piece: int) -> None:
    """The floor: draw a 2-call stream, merge it with langchain-core, check the result."""
    messages = []
    for index, (name, args) in enumerate(calls):
        text = json.dumps(args)
        head = tool_call_chunk(name=name, args="", id=f"call_{index}", index=index)
        messages.append(AIMessageChunk(content="", tool_call_chunks=[head]))
        for start in range(0, len(text), piece):
            fragment = tool_call_chunk(name=None, args=text[start : start + piece], index=index)
            messages.append(AIMessageChunk(content="", tool_call_chunks=[fragment]))
    merged = add_ai_message_chunks(messages[0], *messages[1:])
    assert [call["args"] for call in merged.tool_calls] == [args for _, args in calls]


def fuzzing(examples: int) -> list[Row]:
    def merger(deltas: Any) -> Any:
        return reference_merge(deltas).calls()

    check_merger(merger, max_examples=5, derandomize=True)  # load the library once
    library = len(library_examples(None, _allowed_kinds(None, ())))
    started = time.perf_counter()
    check_merger(merger, max_examples=examples, derandomize=True)
    merge_rate = (examples + library) / (time.perf_counter() - started)
    started = time.perf_counter()
    check_merger(merger, max_examples=examples, derandomize=True, scenarios=[])
    fuzz_rate = examples / (time.perf_counter() - started)

    floor = settings(max_examples=examples, derandomize=True, database=None, deadline=None)(_floor)
    started = time.perf_counter()
    floor()
    floor_rate = examples / (time.perf_counter() - started)
    label = f"{library} library examples + {examples} drawn"
    return [
        (
            "fuzzing: floor, @given 2-call stream merged by langchain-core",
            f"{floor_rate:,.0f} examples/s",
            "1x",
        ),
        (
            f"fuzzing: check_merger (reference-backed merger), {label}",
            f"{merge_rate:,.0f} examples/s",
            f"{merge_rate / floor_rate:.2f}x",
        ),
        (
            f"fuzzing: check_merger, drawn streams only ({examples})",
            f"{fuzz_rate:,.0f} examples/s",
            f"{fuzz_rate / floor_rate:.2f}x",
        ),
    ]


def _rss_kib(pid: int, field: str) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) if match else 0


def _listening(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    for line in iter(process.stdout.readline, ""):
        if "listening on " in line:
            return line.split("listening on ", 1)[1].strip()
    raise RuntimeError("tooltape serve did not start")


def serve(megabytes: int) -> list[Row]:
    # ~2 kB of argument text per event, so the body (text plus event framing) is ~``megabytes``.
    text = "x" * int(megabytes * 830_000)
    pieces = megabytes * 400
    script = {
        "turns": [
            {
                "plan": {"calls": [{"name": "write", "args": {"text": text}, "id": "call_big"}]},
                "quirks": [{"kind": "split_args", "pieces": pieces}],
            }
        ]
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.json"
        path.write_text(json.dumps(script))
        process = subprocess.Popen(
            [str(TOOLTAPE), "serve", "--script", str(path), "--once"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            url = _listening(process)
            before = _rss_kib(process.pid, "VmRSS")
            body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
            received = events = 0
            started = time.perf_counter()
            with httpx2.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=120) as r:
                for read in r.iter_raw():
                    received += len(read)
                    events += read.count(b"\n\n")
            seconds = time.perf_counter() - started
            peak = _rss_kib(process.pid, "VmHWM")
        finally:
            process.wait(timeout=60)
            if process.stdout is not None:
                process.stdout.close()
    mb = received / 1e6
    return [
        (
            f"serve: one {mb:.1f} MB openai_chat stream, {events:,} events, over 127.0.0.1",
            f"{events / seconds:,.0f} events/s, {mb / seconds:.0f} MB/s",
            "-",
        ),
        (
            "serve: server memory (RSS after start, with the rendered wire; peak while streaming)",
            f"{before / 1024:.0f} MiB; peak {peak / 1024:.0f} MiB",
            f"peak - start = {(peak - before) / 1024:.0f} MiB",
        ),
    ]


def _turn_cost(provider: Any, plan: Any, request: Any, turns: int) -> float:
    """CPU seconds per turn of ``turns`` turns, each queued then served, as ``--repeat`` does."""
    started = time.process_time()
    for _ in range(turns):
        provider.stream(plan)
        provider.handle(request)
    return (time.process_time() - started) / turns


def turns(served: int, batch: int = 200) -> list[Row]:
    """One in-process fake provider serving turn after turn: the first turns vs the last.

    The provider is set up as ``tooltape serve`` sets it up (the last 100 requests
    logged, 64 KiB of each body): a turn's cost must not grow with the turns before
    it, nor its memory with the turns served.
    """
    from tooltape.fake_providers import FakeProvider, ProviderRequest
    from tooltape.harness import Plan

    plan = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    request = ProviderRequest("POST", "/v1/chat/completions", {}, json.dumps(body).encode())
    provider = FakeProvider("openai_chat", base_url="http://tooltape.invalid")
    provider.limit_log(100, 64 * 1024)
    gc.collect()
    start_rss = _rss_kib(os.getpid(), "VmRSS")
    first = _turn_cost(provider, plan, request, batch)
    _turn_cost(provider, plan, request, served - 2 * batch)
    last = _turn_cost(provider, plan, request, batch)
    gc.collect()
    grown = (_rss_kib(os.getpid(), "VmRSS") - start_rss) / 1024
    return [
        (
            f"turns: in-process FakeProvider, µs per turn, turns 1-{batch} vs "
            f"{served - batch + 1:,}-{served:,}",
            f"{first * 1e6:.0f} / {last * 1e6:.0f} µs",
            f"{last / first:.2f}x (1x = flat)",
        ),
        (
            f"turns: process RSS grown over {served:,} turns (log of 100 requests)",
            f"{grown:+.1f} MiB",
            f"{len(provider.turns)} turn(s) held",
        ),
    ]


def serve_requests(requests: int) -> list[Row]:
    """``tooltape serve --scenario`` answering ``requests`` requests: server RSS along the way."""
    process = subprocess.Popen(
        [str(TOOLTAPE), "serve", "--scenario", "openai_golden", "--log-requests", "100"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    marks = {requests // 10: 0, requests: 0}
    try:
        url = _listening(process)
        assert process.stdout is not None
        # One log line per request: keep the pipe drained.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        with httpx2.Client(timeout=60) as client:
            for number in range(1, requests + 1):
                client.post(f"{url}/v1/chat/completions", json=body).raise_for_status()
                if number in marks:
                    marks[number] = _rss_kib(process.pid, "VmRSS")
    finally:
        process.terminate()
        process.wait(timeout=60)
        if process.stdout is not None:
            process.stdout.close()
    (few, early), (many, late) = sorted(marks.items())
    return [
        (
            f"serve: tooltape serve --scenario openai_golden, server RSS after {few:,} and "
            f"{many:,} requests",
            f"{early / 1024:.0f} MiB; {late / 1024:.0f} MiB",
            f"{(late - early) / 1024:+.0f} MiB",
        )
    ]


class _Reads(httpx2.SyncByteStream):
    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads


def _bare_chat_openai(wire: Any, plan: Any) -> Callable[[], Any]:
    """``ChatOpenAI.stream`` reading ``wire`` from a MockTransport: the chat model, tools
    and prompt a matrix cell uses, and nothing else of tooltape's."""
    from tooltape.plugin._engine.subjects import tools_for

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(wire.status, headers=list(wire.headers), stream=_Reads(wire.reads))

    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    model = get_dialect("openai_chat").chat_model("http://bench/v1", http_client=client)
    bound = model.bind_tools(tools_for(plan))

    def run() -> Any:
        chunks = list(bound.stream("What is the weather in Paris?"))
        return add_ai_message_chunks(chunks[0], *chunks[1:])

    return run


def _cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of one call (this process only: other engineers' load is not counted)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def _cell_rounds(
    scenarios: list[Any], bare: list[Callable[[], object] | None], rounds: int
) -> list[tuple[float, float]]:
    """Per round, the CPU time of a whole matrix run and of the bare streams, cell by cell.

    The bare stream of a scenario runs next to its cell (after it in even rounds,
    before it in odd ones), so the two sides of a ratio are never more than one
    cell apart: a load change on the shared machine moves both, and neither side
    always goes first. The matrix side is everything ``run_matrix`` spends between
    its cells (set-up, render, parse, reference, stream, compare, judge).
    """
    from tooltape.plugin._engine.expectations import Expectations
    from tooltape.plugin._engine.run import run_matrix

    pairs = []
    for n in range(rounds):
        clock = _CellClock(bare, ahead=n % 2)
        run_matrix(
            scenarios, ["openai_chat"], ["langchain-openai"], Expectations((), "bench"), clock.cell
        )
        pairs.append(clock.stop())
    return pairs


class _CellClock:
    """Splits a matrix run's CPU time at its cells and runs each cell's bare stream there."""

    def __init__(self, bare: list[Callable[[], object] | None], ahead: int) -> None:
        self.bare, self.ahead = bare, ahead  # ahead=1: the next cell's bare stream, before it
        self.cells = 0
        self.matrix_time = 0.0
        self.bare_time = self._run_bare(0) if ahead else 0.0
        self.mark = time.process_time()

    def _run_bare(self, index: int) -> float:
        run = self.bare[index] if index < len(self.bare) else None
        if run is None:
            return 0.0
        start = time.process_time()
        with contextlib.suppress(Exception):  # the error scenarios raise, as in the matrix
            run()
        return time.process_time() - start

    def cell(self, _cell: object) -> None:
        self.matrix_time += time.process_time() - self.mark
        self.bare_time += self._run_bare(self.cells + self.ahead)
        self.cells += 1
        self.mark = time.process_time()

    def stop(self) -> tuple[float, float]:
        self.matrix_time += time.process_time() - self.mark
        return self.matrix_time, self.bare_time


def _spread(ratios: list[float]) -> str:
    """``median (min-max)`` of per-round ratios."""
    return f"{statistics.median(ratios):.2f}x (min {min(ratios):.2f}x, max {max(ratios):.2f}x)"


def matrix(rounds: int) -> list[Row]:
    dialect = get_dialect("openai_chat")
    scenarios = [
        s for s in bundled_scenarios() if s.plan.effective_finish in ("tool_calls", "stop")
    ]
    bare: list[Callable[[], object] | None] = []
    for scenario in scenarios:
        try:
            wire = dialect.render(scenario.plan, scenario.quirks, scenario.seed)
        except Exception:
            bare.append(None)  # the matrix skips it too (after trying to render it)
            continue
        bare.append(_bare_chat_openai(wire, scenario.plan))
    _cell_rounds(scenarios, bare, 1)  # build the chat model and warm imports once
    pairs = _cell_rounds(scenarios, bare, rounds)
    ratios = [m / b for m, b in pairs]
    n = sum(run is not None for run in bare)
    matrix_time = statistics.median(m for m, _ in pairs)
    bare_time = statistics.median(b for _, b in pairs)
    return [
        (
            f"matrix: openai_chat x langchain-openai, {n} scenarios, per stream, CPU time, "
            f"median of {rounds} rounds interleaved cell by cell",
            f"{matrix_time / n * 1000:.1f} ms (render, parse, reference, stream, compare)",
            _spread(ratios),
        ),
        (
            "matrix: bare ChatOpenAI.stream() on httpx2 MockTransport, same wires, per stream",
            f"{bare_time / n * 1000:.1f} ms",
            "1x",
        ),
    ]


def replay() -> list[Row]:
    """bench/replay.py's table (another script; run as it is, its rows re-labelled)."""
    script = HERE / "replay.py"
    if not script.exists():
        return [("replay: bench/replay.py", "not present", "-")]
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=900, check=False
    )
    lines = (done.stdout or done.stderr).strip().splitlines()
    row = re.compile(r"^\s*(\S+)\s+([\d.]+\s*ms)\s+([\d.]+x)\s*$")
    rows: list[Row] = []
    unit = "per stream"
    for line in lines:
        if line.startswith("per test"):
            unit = "per test (cassette opened, model built, stream read)"
        match = row.match(line)
        if match:
            variant, cost, ratio = match.groups()
            rows.append((f"replay: {variant}, {unit}", cost, ratio))
    if rows:
        return [("replay: bench/replay.py", lines[0].strip(), "vs bare"), *rows]
    return [("replay: bench/replay.py", line, "") for line in lines[-12:]]


def inspect_many(calls: int) -> list[Row]:
    """``tooltape inspect`` on ``calls`` parallel calls vs a tenth: time, memory, scaling."""
    import resource

    sys.path.insert(0, str(HERE.parent / "tests"))
    from _hostile import many_calls_cassette

    rows: list[Row] = []
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for size in (calls // 10, calls):
            path = many_calls_cassette(Path(folder) / f"many{size}.yaml", size)
            start = time.perf_counter()
            done = subprocess.run(
                [str(TOOLTAPE), "inspect", str(path)],
                capture_output=True,
                timeout=1800,
                check=False,
            )
            times.append(time.perf_counter() - start)
            found = "all" if done.returncode == 0 else "error"
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            ratio = "1x" if len(times) == 1 else f"{times[1] / times[0]:.1f}x (10x = linear)"
            rows.append(
                (
                    f"inspect: {size:,} parallel calls ({path.stat().st_size / 1e6:.0f} MB), "
                    f"{found} read, peak RSS so far {peak:.0f} MB",
                    f"{times[-1]:.1f} s",
                    ratio,
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--only", nargs="*", metavar="SECTION", help="run these sections only (names as below)"
    )
    options = parser.parse_args()
    quick = options.quick
    sections: list[Callable[[], list[Row]]] = [
        functools.partial(oracle, 8_000 if quick else 128_000),
        functools.partial(hazards, 1_000 if quick else 8_000),
        functools.partial(fuzzing, 50 if quick else 200),
        functools.partial(serve, 1 if quick else 10),
        functools.partial(matrix, 3 if quick else 21),
        replay,
        functools.partial(parallel, (1_000, 10_000) if quick else (1_000, 10_000, 100_000)),
        functools.partial(inspect_many, 10_000 if quick else 100_000),
        functools.partial(turns, 1_000 if quick else 5_000),
        functools.partial(serve_requests, 1_000 if quick else 5_000),
    ]
    names = [getattr(section, "func", section).__name__ for section in sections]
    unknown = sorted(set(options.only or ()) - set(names))
    if unknown:
        parser.error(f"unknown section(s) {unknown}; sections: {names}")
    if options.only:
        sections = [s for s, name in zip(sections, names, strict=True) if name in options.only]
    rows: list[Row] = []
    for section in sections:
        found = section()
        rows += found
        for row in found:
            print(" | ".join(row), file=sys.stderr, flush=True)
    if options.markdown:
        print("| measurement | result | ratio |\n| --- | --- | --- |")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        width = max(len(r[0]) for r in rows)
        for name, result, ratio in rows:
            print(f"{name:<{width}}  {result}  {ratio}")
    print(f"(python {sys.version.split()[0]}, {os.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
