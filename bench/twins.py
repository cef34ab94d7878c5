"""Does each fast twin earn its keep? (issue #24 item 3)

A fast path beside a slow one is a second copy to keep; the project keeps one only
where it moves a figure users see by at least 20%. For each twin this runs the
figure it was written for with the twin on and with it replaced by its slow
sibling, side by side in interleaved rounds (CPU time of this process, median of
the rounds), and prints the saving.

    python bench/twins.py [--rounds N]

Twins measured:

- ``_alnum`` / ``_length_up_to_15`` (openai_chat's chunk filler) vs
  ``random.choices`` / ``randint``: rendering a 4,000-event stream;
- the compact C JSON encoder built once (``_sse._compact_json``) vs ``json.dumps``:
  the same rendering;
- ``plain_data_frames`` (one-pass SSE cut) vs the line-by-line decoders: ``inspect``
  of a cassette streaming 10,000 calls, and parsing the rendered stream;
- ``parse_plain_data`` (deltas from already-decoded payloads) vs ``parse`` of the bytes:
  the same ``inspect``.

Each twin is also measured on a whole ``tooltape matrix`` run over openai_chat and
langchain-openai (the cell, whose bar is 1.2x the bare adapter).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any

from tooltape.cassettes import inspect_cassette
from tooltape.fake_providers import get_dialect
from tooltape.harness import Plan, PlannedCall

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "tests"))

from _hostile import many_calls_cassette  # noqa: E402

import tooltape.cassettes.body_events as events_module  # noqa: E402
import tooltape.fake_providers._sse as sse_module  # noqa: E402
import tooltape.fake_providers.dialects.openai_chat._dialect as chat_module  # noqa: E402
from tooltape.fake_providers._dialect import Dialect  # noqa: E402

_ALNUM = chat_module._ALNUM


@contextlib.contextmanager
def _patched(target: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(target, name)
    setattr(target, name, value)
    try:
        yield
    finally:
        setattr(target, name, old)


@contextlib.contextmanager
def slow_alnum() -> Iterator[None]:
    with (
        _patched(chat_module, "_alnum", lambda rng, k: "".join(rng.choices(_ALNUM, k=k))),
        _patched(chat_module, "_length_up_to_15", lambda rng: rng.randint(0, 15)),
    ):
        yield


@contextlib.contextmanager
def slow_encoder() -> Iterator[None]:
    def dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    with _patched(sse_module, "_compact_json", dumps):
        yield


@contextlib.contextmanager
def slow_frames() -> Iterator[None]:
    with (
        _patched(sse_module, "plain_data_frames", lambda body: None),
        _patched(events_module, "plain_data_frames", lambda body: None),
    ):
        yield


@contextlib.contextmanager
def slow_parse() -> Iterator[None]:
    chat = type(get_dialect("openai_chat"))
    with _patched(chat, "parse_plain_data", Dialect.parse_plain_data):
        yield


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _paired(fast: Callable[[], object], slow_context: Any, rounds: int) -> tuple[float, float]:
    """Median CPU seconds of ``fast`` as it is and under ``slow_context``, interleaved."""

    def slow() -> object:
        with slow_context():
            return fast()

    fast(), slow()  # warm caches and imports
    pairs = []
    for n in range(rounds):
        if n % 2:
            s, f = _cpu(slow), _cpu(fast)
        else:
            f, s = _cpu(fast), _cpu(slow)
        pairs.append((f, s))
    return statistics.median(f for f, _ in pairs), statistics.median(s for _, s in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds

    dialect = get_dialect("openai_chat")
    rng = Random(0)
    plan = Plan(
        calls=[
            PlannedCall("get_weather", {"city": "".join(rng.choices(_ALNUM, k=2000))})
            for _ in range(8)
        ]
    )
    wire = dialect.render(plan, ["split_args"], 0)
    events = wire.body.count(b"\n\n")

    def render() -> object:
        return dialect.render(plan, ["split_args"], 0)

    def parse() -> object:
        return dialect.parse(wire.body)

    with tempfile.TemporaryDirectory() as folder:
        cassette = many_calls_cassette(Path(folder) / "many.yaml", 10_000)

        def inspect() -> object:
            return inspect_cassette(cassette)

        from tooltape.cassettes import bundled_scenarios
        from tooltape.plugin._engine.expectations import Expectations
        from tooltape.plugin._engine.run import run_matrix

        scenarios = list(bundled_scenarios())

        def matrix() -> object:
            return run_matrix(
                scenarios, ["openai_chat"], ["langchain-openai"], Expectations((), "bench")
            )

        cells = f"matrix, openai_chat x langchain-openai, {len(scenarios)} cells"
        cases = [
            ("_alnum", cells, matrix, slow_alnum),
            ("C encoder", cells, matrix, slow_encoder),
            ("plain_data_frames", cells, matrix, slow_frames),
            ("parse_plain_data", cells, matrix, slow_parse),
            ("_alnum", f"render openai_chat, {events:,} events", render, slow_alnum),
            ("C encoder", f"render openai_chat, {events:,} events", render, slow_encoder),
            ("plain_data_frames", f"parse openai_chat, {events:,} events", parse, slow_frames),
            ("plain_data_frames", "inspect, 10,000 parallel calls", inspect, slow_frames),
            ("parse_plain_data", "inspect, 10,000 parallel calls", inspect, slow_parse),
        ]
        print(f"CPU seconds, median of {rounds} interleaved rounds")
        print("| twin | figure | fast | slow | saving |")
        print("| --- | --- | --- | --- | --- |")
        for twin, figure, run, slow in cases:
            fast_s, slow_s = _paired(run, slow, rounds)
            saving = 1 - fast_s / slow_s
            print(f"| {twin} | {figure} | {fast_s:.3f} s | {slow_s:.3f} s | {saving:.0%} |")


if __name__ == "__main__":
    main()
