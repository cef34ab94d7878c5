"""What recording does when it cannot keep something: an error that says so, never a traceback.

A request body nested deeper than ``json`` can go is stored as the text it was; a
file system that refuses the write (a path through a file, ``ulimit -f``) is one
:class:`CassetteError` naming the file, the reason and what was not saved.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import httpx2
import pytest

from tooltape.cassettes import CassetteError, load_cassette, record, use_cassette
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

PLAN = Plan(calls=[PlannedCall("get_weather", {"city": "Paris"}, "call_1")])
CHAT = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]'


def _post(url: str, body: str) -> httpx2.Response:
    with httpx2.Client() as client:
        headers = {"content-type": "application/json"}
        return client.post(url + "/v1/chat/completions", content=body, headers=headers)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_request_nested_deeper_than_json_goes_is_recorded_as_text_and_replays(
    tmp_path: Path, depth: int
) -> None:
    body = CHAT + ', "metadata": ' + "[" * depth + "]" * depth + "}"
    path = tmp_path / "deep.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url:
        with record(path):
            live = _post(url, body)
        (interaction,) = load_cassette(path).interactions
        assert interaction.request.body == body.encode()

        with use_cassette(path, record_mode="none") as session:
            replayed = _post(url, body)

    assert (replayed.status_code, replayed.content) == (live.status_code, live.content)
    assert session.player.play_counts == [1] and len(provider.requests) == 1


def test_a_path_through_a_file_is_a_cassette_error_naming_what_was_not_saved(
    tmp_path: Path,
) -> None:
    (tmp_path / "not-a-folder").write_text("x")
    path = tmp_path / "not-a-folder" / "chat.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url, pytest.raises(CassetteError) as caught, record(path):
        _post(url, CHAT + "}")

    message = str(caught.value)
    assert message.startswith(f"{path}: cannot write the cassette: File exists")
    assert "not-a-folder)" in message and "its 1 interaction(s) were not saved" in message


FULL_DISK = """
import resource, sys
import httpx2
from tooltape.cassettes import CassetteError, record
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
plan = Plan(calls=[PlannedCall("f", {"text": "x" * 20_000}, "call_1")])
provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(plan)
with serve_in_thread(provider) as url:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # `ulimit -f 4`
    try:
        with record(sys.argv[1]), httpx2.Client() as client:
            client.post(url + "/v1/chat/completions", json=BODY)
    except CassetteError as error:
        print(error)
"""


def test_a_write_over_ulimit_f_is_one_line_and_leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    script = textwrap.dedent(FULL_DISK)

    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{path}: cannot write the cassette: File too large")
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
