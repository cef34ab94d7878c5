"""Record mode ``all`` keeps what it did not replace: in one process, four, and under xdist.

A re-recording replaces only the interaction the same request recorded (method,
URL and body, by the cassette's matcher). Every chat call has the same URL, so
pairing on less would throw other tests' recordings away. The "real provider"
is tooltape's fake served on 127.0.0.1; the clients are real (httpx2, openai).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tooltape.cassettes import load_cassette, use_cassette
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

pytest_plugins = ["pytester"]


def _plan(tag: str) -> Plan:
    return Plan(calls=[PlannedCall(name="f", args={"tag": tag}, id=f"id_{tag}")])


def _post(url: str, model: str) -> bytes:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx2.Client() as client:
        return client.post(url + "/v1/chat/completions", json=body).content


def _models(path: Path) -> list[str]:
    return sorted(i.request.json()["model"] for i in load_cassette(path).interactions)


def test_all_keeps_the_other_requests_recording_and_replaces_the_same_ones(tmp_path):
    path = tmp_path / "c.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    with serve_in_thread(provider) as url:
        for model in ("a", "b"):  # two tests, one cassette, one URL
            provider.stream(_plan(model))
            with use_cassette(path, record_mode="all"):
                _post(url, model)
        assert _models(path) == ["a", "b"]
        provider.stream(_plan("a-again"))
        with use_cassette(path, record_mode="all"):
            _post(url, "a")  # the same request: its own recording is replaced
    interactions = load_cassette(path).interactions
    assert _models(path) == ["a", "b"]
    by_model = {i.request.json()["model"]: i.response.body for i in interactions}
    assert b"id_a-again" in by_model["a"] and b"id_b" in by_model["b"]


WORKER = """
import sys, httpx2
from tooltape.cassettes import use_cassette
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

path, tag, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
with serve_in_thread(provider) as url:
    for n in range(rounds):
        provider.stream(Plan(calls=[PlannedCall(name="f", args={"n": n}, id=f"{tag}_{n}")]))
        # The port differs per process, so it is not matched on; the body is.
        with use_cassette(path, record_mode="all", match_on=("method", "path", "body")):
            with httpx2.Client() as client:
                body = {"model": f"{tag}-{n}", "messages": [], "stream": True}
                client.post(url + "/v1/chat/completions", json=body).raise_for_status()
print("ok")
"""


@pytest.mark.slow
def test_four_processes_rerecording_one_cassette_keep_every_interaction(tmp_path):
    path = tmp_path / "shared.yaml"
    tags, rounds = ("w0", "w1", "w2", "w3"), 3
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), tag, str(rounds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in tags
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        assert out.strip() == "ok"
    assert _models(path) == sorted(f"{tag}-{n}" for tag in tags for n in range(rounds))
    for interaction in load_cassette(path).interactions:
        tag, n = interaction.request.json()["model"].split("-")
        assert f'"id":"{tag}_{n}"'.encode() in interaction.response.body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.yaml"]  # no lock, no temp


XDIST_TESTS = """
import httpx2, pytest
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan

@pytest.fixture(scope="module")
def live():
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
    for n in range(16):
        provider.stream(Plan(calls=[{"name": "f", "args": {"n": n}, "id": f"c{n}"}]))
    with serve_in_thread(provider) as url:
        yield url

@pytest.mark.parametrize("n", range(6))
@pytest.mark.tooltape_cassette("shared", match_on=["method", "path", "body"])
def test_one(live, n):
    with httpx2.Client() as client:
        body = {"model": f"m{n}", "messages": [], "stream": True}
        client.post(live + "/v1/chat/completions", json=body).raise_for_status()
"""


@pytest.mark.slow
def test_all_under_xdist_keeps_every_tests_recording(pytester: pytest.Pytester):
    pytester.makepyfile(test_many=XDIST_TESTS)
    for _ in range(2):  # the second run re-records over the first one's file
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "-n", "2", "--tooltape-record-mode=all"
        )
        result.assert_outcomes(passed=6)
        path = pytester.path / "cassettes" / "test_many" / "shared.yaml"
        assert _models(path) == [f"m{n}" for n in range(6)]
