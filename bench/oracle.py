"""Oracle cost: tooltape's reference_merge vs langchain-core n-ary vs pairwise ``+``.

Measured side by side in one run, reported as ratios. Run:

    python bench/oracle.py [--chars 32000] [--delta 8]
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable

from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.messages.tool import tool_call_chunk

from tooltape.harness import reference_merge
from tooltape.harness._reference import pairwise_merge, to_message_chunks


def _timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, nargs="*", default=[8_000, 32_000, 128_000])
    parser.add_argument("--delta", type=int, default=8)
    parser.add_argument("--pairwise-limit", type=int, default=32_000)
    options = parser.parse_args()
    columns = ("chars", "deltas", "reference", "n-ary lc", "pairwise", "pairwise/ref")
    print("{:>8} {:>7} {:>10} {:>10} {:>10} {:>13}".format(*columns))
    for chars in options.chars:
        args = json.dumps({"text": "x" * chars})
        deltas = [[tool_call_chunk(name="write", args="", id="c1", index=0)]] + [
            [tool_call_chunk(name=None, args=args[i : i + options.delta], id=None, index=0)]
            for i in range(0, len(args), options.delta)
        ]
        messages = to_message_chunks(deltas)
        reference = _timed(functools.partial(reference_merge, deltas), 3)
        nary = _timed(functools.partial(add_ai_message_chunks, messages[0], *messages[1:]), 3)
        if chars <= options.pairwise_limit:
            pairwise = _timed(functools.partial(pairwise_merge, deltas), 1)
            ratio = f"{pairwise / reference:>12.1f}x"
            shown = f"{pairwise:>9.3f}s"
        else:
            shown, ratio = f"{'skipped':>10}", f"{'-':>13}"
        print(f"{chars:>8} {len(deltas):>7} {reference:>9.3f}s {nary:>9.3f}s {shown} {ratio}")


if __name__ == "__main__":
    main()
