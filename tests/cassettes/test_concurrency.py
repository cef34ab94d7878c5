"""Two processes (as pytest-xdist workers would) recording into one cassette at once.

Each process runs its own fake provider on 127.0.0.1 and records its own
requests into the same file in ``new_episodes`` mode, many times over. The
cassette lock makes each writer re-read the file and add to it, and the
atomic replace means a reader never sees half a file: every recording of both
processes must be in the final file, which must load.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooltape.cassettes import load_cassette

pytestmark = pytest.mark.slow

ROUNDS = 12

WORKER = """
import sys, httpx2
from tooltape.cassettes import load_cassette, use_cassette
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

path, tag, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
provider = FakeProvider("openai_chat", base_url="http://127.0.0.1")
with serve_in_thread(provider) as url:
    for n in range(rounds):
        provider.stream(Plan(calls=[PlannedCall(name="f", args={"n": n}, id=f"{tag}_{n}")]))
        with use_cassette(path, record_mode="new_episodes", match_on=("method", "path", "body"),
                          allow_unplayed=True):
            with httpx2.Client() as client:
                body = {"model": f"{tag}-{n}", "messages": [], "stream": True}
                client.post(url + "/v1/chat/completions", json=body).raise_for_status()
        load_cassette(path)  # every state another process can see is a whole cassette
print("ok")
"""


def test_two_processes_recording_one_cassette_lose_nothing(tmp_path):
    path = tmp_path / "shared.yaml"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), tag, str(ROUNDS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("w0", "w1")
    ]
    outputs = [worker.communicate(timeout=300) for worker in workers]
    for worker, (out, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, err
        assert out.strip() == "ok"
    cassette = load_cassette(path)
    models = sorted(i.request.json()["model"] for i in cassette.interactions)
    assert models == sorted(f"{tag}-{n}" for tag in ("w0", "w1") for n in range(ROUNDS))
    for interaction in cassette.interactions:
        tag, n = interaction.request.json()["model"].split("-")
        assert f'"id":"{tag}_{n}"'.encode() in interaction.response.body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.yaml"]  # no lock, no temp
