"""Replay cost: a bundled cassette streamed into ChatOpenAI, four ways, side by side.

``bare``: an ``httpx2.MockTransport`` serving the recorded reads (the floor).
``tooltape``: ``use_cassette`` (patched transports: secret scrubbing, matching,
play accounting). ``transport``: tooltape's explicit ``CassetteTransport``.
``vcrpy``: ``vcr.use_cassette`` on the same file. Rounds interleave the
variants; each cell is the best round's mean CPU time per stream (CPU time, so
other load on the machine does not skew the ratios).

The second table is per test, as a test pays it: each run opens the cassette
(``use_cassette``; vcrpy's ``use_cassette``; the bare variant builds its
``MockTransport`` over bytes in memory), builds the ``ChatOpenAI`` model and
reads one stream, with body matching on (tooltape's default). Run:

    python bench/replay.py [--scenario parallel_sequential] [--streams 200] [--rounds 7]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, nullcontext

import httpx2
import vcr
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import CassetteTransport, library_path, load_cassette, use_cassette


class _Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        yield from self.reads

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read


def _model(client: httpx2.Client | None = None) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0, http_client=client
    )


def _variants(path: str) -> dict[str, tuple[ChatOpenAI, Callable[[], AbstractContextManager]]]:
    response = load_cassette(path).interactions[0].response
    reads, headers = response.reads(), list(response.headers)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=_Reads(reads))

    bare = _model(httpx2.Client(transport=httpx2.MockTransport(handler)))
    explicit = _model(httpx2.Client(transport=CassetteTransport(path, allow_repeats=True)))
    patched = _model()
    return {
        "bare": (bare, nullcontext),
        "tooltape": (patched, lambda: use_cassette(path, allow_repeats=True)),
        "transport": (explicit, nullcontext),
        "vcrpy": (
            patched,
            lambda: vcr.VCR().use_cassette(path, record_mode="none", allow_playback_repeats=True),
        ),
    }


def _run(model: ChatOpenAI, context: Callable[[], AbstractContextManager], streams: int) -> float:
    with context():
        start = time.process_time()
        for _ in range(streams):
            for _chunk in model.stream("hi"):
                pass
        return (time.process_time() - start) / streams


def _per_test(path: str) -> dict[str, Callable[[], None]]:
    response = load_cassette(path).interactions[0].response
    reads, headers = response.reads(), list(response.headers)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, stream=_Reads(reads))

    def stream(model: ChatOpenAI) -> None:
        for _chunk in model.stream("hi"):
            pass

    def bare() -> None:
        stream(_model(httpx2.Client(transport=httpx2.MockTransport(handler))))

    # The test code is the user's: a model with its default client, as in production.
    def tooltape() -> None:
        with use_cassette(path):
            stream(_model())

    def vcrpy() -> None:
        with vcr.VCR().use_cassette(path, record_mode="none"):
            stream(_model())

    return {"bare": bare, "tooltape": tooltape, "vcrpy": vcrpy}


def _time_tests(test: Callable[[], None], count: int) -> float:
    start = time.process_time()
    for _ in range(count):
        test()
    return (time.process_time() - start) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", default="parallel_sequential")
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    path = str(library_path(options.scenario, "openai_chat"))
    variants = _variants(path)
    for model, context in variants.values():  # warm up imports, caches and pools
        _run(model, context, 5)
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(options.rounds):
        for name, (model, context) in variants.items():
            best[name] = min(best[name], _run(model, context, options.streams))
    reads = len(load_cassette(path).interactions[0].response.reads())
    print(
        f"{options.scenario} (openai_chat, {reads} reads), {options.streams} streams x "
        f"{options.rounds} rounds, best round"
    )
    print(f"{'variant':>10} {'per stream':>12} {'vs bare':>8}")
    for name, seconds in best.items():
        print(f"{name:>10} {seconds * 1e3:>10.3f}ms {seconds / best['bare']:>7.2f}x")
    tests = _per_test(path)
    for test in tests.values():
        _time_tests(test, 5)
    per_test = dict.fromkeys(tests, float("inf"))
    for _ in range(options.rounds):
        for name, test in tests.items():
            per_test[name] = min(per_test[name], _time_tests(test, options.streams))
    print("per test: cassette opened, model built, one stream read (body matching on)")
    print(f"{'variant':>10} {'per test':>12} {'vs bare':>8}")
    for name, seconds in per_test.items():
        print(f"{name:>10} {seconds * 1e3:>10.3f}ms {seconds / per_test['bare']:>7.2f}x")


if __name__ == "__main__":
    main()
