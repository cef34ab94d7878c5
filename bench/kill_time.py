"""Time to find each buggy merger: check_merger against what a user would write (#22 item 4).

For every buggy merger in ``tests/_mergers.py`` (each one real bug seen in agent
frameworks and provider clients), side by side in one run:

- **check_merger**: the seconds until ``check_merger(fn)`` raises, under the
  default settings with a fresh example database (no database) and a fresh seed;
- **floor**: the same for a plain hand-written Hypothesis property, the test a
  user writes without tooltape: draw a stream of two calls (ids, names and JSON
  arguments split into fragments at drawn points, sequential or interleaved) and
  compare the merger's calls with langchain-core's own merge of the same chunks
  (``AIMessageChunk`` addition), with Hypothesis' default budget.

Each side runs ``--runs`` times per merger (fresh seeds); the table gives the kills
(runs that found the bug) and the median seconds of the kills. Correct mergers
are run too: neither side may flag them.

    python bench/kill_time.py [--runs N] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _mergers import BUGGY, CORRECT

from tooltape.harness import TooltapeUsageError, check_merger
from tooltape.harness._assertions import normalize_calls

Merger = Callable[[list[list[dict[str, Any]]]], Any]

_NAMES = st.sampled_from(["get_weather", "get_time", "search", "f"])
_VALUES = st.one_of(
    st.text(max_size=12), st.integers(-1000, 1000), st.booleans(), st.none(), st.floats(-1e6, 1e6)
)
_ARGS = st.dictionaries(st.text(min_size=1, max_size=8), _VALUES, max_size=3)


@st.composite
def two_call_streams(draw: st.DrawFn) -> list[list[dict[str, Any]]]:
    """Two calls, their argument text split at drawn points, one chunk per message."""
    import json

    calls = []
    for index in range(2):
        text = json.dumps(draw(_ARGS))
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=4)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        chunks = [
            {"name": draw(_NAMES) if n == 0 else None, "args": piece,
             "id": f"call_{index}" if n == 0 else None, "index": index, "type": "tool_call_chunk"}
            for n, piece in enumerate(pieces)
        ]  # fmt: skip
        calls.append(chunks)
    if draw(st.booleans()):  # interleaved: one fragment of each call in turn
        order = [c for pair in zip(*calls, strict=False) for c in pair]
        order += [c for chunks in calls for c in chunks[min(map(len, calls)) :]]
    else:
        order = calls[0] + calls[1]
    return [[chunk] for chunk in order]


def _langchain_core(deltas: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    message = AIMessageChunk(content="")
    for chunks in deltas:
        message = message + AIMessageChunk(content="", tool_call_chunks=chunks)
    return [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in message.tool_calls]


def floor_property(fn: Merger) -> Callable[[], None]:
    """The test a user writes by hand: the merger agrees with langchain-core on 2-call streams."""

    @settings(suppress_health_check=list(HealthCheck))
    @given(two_call_streams())
    def agrees(deltas: list[list[dict[str, Any]]]) -> None:
        expected = _langchain_core(deltas)
        got = normalize_calls(fn([[dict(c) for c in m] for m in deltas]))
        assert got == expected

    return agrees


def check_side(fn: Merger) -> Callable[[], None]:
    def run() -> None:
        check_merger(fn, derandomize=False)

    return run


def _time_to_fail(test: Callable[[], None]) -> float | None:
    """Seconds until ``test`` fails, or ``None`` when it passes (the bug was missed)."""
    started = time.perf_counter()
    try:
        test()
    except TooltapeUsageError:
        raise
    except Exception:  # MergeMismatch, AssertionError, the merger's own error, a group of them
        return time.perf_counter() - started
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    # The user's defaults, with a fresh database every run: nothing found before is replayed.
    settings.register_profile("kill-time", database=None, deadline=None)
    settings.load_profile("kill-time")
    mergers = [m for m in [*BUGGY, *CORRECT] if args.only is None or m.__name__ in args.only]
    rows = []
    for fn in mergers:
        sides = {"check_merger": check_side(fn), "floor": floor_property(fn)}
        found: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, test in sides.items():  # interleaved: load drifts hit both sides
                seconds = _time_to_fail(test)
                if seconds is not None:
                    found[name].append(seconds)
        rows.append((fn.__name__, fn in CORRECT, found))
        print(_row(fn.__name__, fn in CORRECT, found, args.runs), flush=True)
    buggy = [r for r in rows if not r[1]]
    for side in ("check_merger", "floor"):
        kills = sum(bool(r[2][side]) and len(r[2][side]) == args.runs for r in buggy)
        print(f"{side}: found on every run in {kills} of {len(buggy)} buggy mergers")
    print(f"(python {sys.version.split()[0]}, {args.runs} runs a side a merger)")


def _row(name: str, correct: bool, found: dict[str, list[float]], runs: int) -> str:
    cells = []
    for side in ("check_merger", "floor"):
        times = found[side]
        median = f"{statistics.median(times):.2f} s" if times else "-"
        cells.append(f"{len(times)}/{runs} {median}")
    mark = " (correct: must be 0)" if correct else ""
    return f"| {name}{mark} | {cells[0]} | {cells[1]} |"


if __name__ == "__main__":
    main()
