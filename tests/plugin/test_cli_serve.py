"""``tooltape serve`` through its console script, driven by the official SDKs over 127.0.0.1."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anthropic
import httpx2
import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from tooltape.cassettes import get_scenario

pytestmark = pytest.mark.slow

TOOLTAPE = Path(sys.executable).parent / "tooltape"
PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


class Server:
    """A running ``tooltape serve``: its URL and its output, line by line."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.banner = self._until("listening on ")
        self.url = self.banner[-1].split("listening on ", 1)[1].strip()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, ""):
            self.lines.put(line)
        self.lines.put("")

    def _until(self, marker: str) -> list[str]:
        seen = []
        while True:
            line = self.lines.get(timeout=60)
            assert line, f"tooltape serve ended before {marker!r}: {''.join(seen)}"
            seen.append(line)
            if marker in line:
                return seen

    def log(self) -> str:
        """Everything printed until the server exits (it must stop by itself)."""
        assert self.process.wait(timeout=60) == 0
        text = []
        while (line := self.lines.get(timeout=30)) != "":
            text.append(line)
        return "".join(self.banner + text)


@contextmanager
def serving(*args: str) -> Iterator[Server]:
    process = subprocess.Popen(
        [str(TOOLTAPE), "serve", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    server = None
    try:
        server = Server(process)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        if server is not None:
            server.reader.join(timeout=30)
        assert process.stdout is not None
        process.stdout.close()


def openai_client(url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", base_url=f"{url}/v1", max_retries=0)


def accumulated(client: openai.OpenAI) -> list[dict[str, object]]:
    state: ChatCompletionStreamState[object] = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(model="gpt-4o", messages=PROMPT, stream=True):
        state.handle_chunk(chunk)
    calls = state.get_final_completion().choices[0].message.tool_calls or []
    return [
        {"name": c.function.name, "args": json.loads(c.function.arguments), "id": c.id}
        for c in calls
    ]


def test_serve_streams_a_scenario_validates_pairing_and_logs_each_request() -> None:
    with serving("--scenario", "parallel_interleaved", "--max-requests", "3") as server:
        assert server.url.startswith("http://127.0.0.1:")
        client = openai_client(server.url)
        plan = get_scenario("parallel_interleaved").plan
        assert accumulated(client) == plan.expected_calls()
        assert accumulated(client) == plan.expected_calls()  # --scenario answers every request
        dangling = [
            *PROMPT,
            {"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]},
        ]  # fmt: skip
        with pytest.raises(openai.BadRequestError, match="must be followed by tool messages"):
            client.chat.completions.create(model="gpt-4o", messages=dangling, stream=True)
        log = server.log()
    assert "serving openai_chat: POST" in log
    assert "#1 POST /v1/chat/completions -> 200 valid" in log
    assert "#2 POST /v1/chat/completions -> 200 valid" in log
    assert "#3 POST /v1/chat/completions -> 400 rejected: An assistant message with" in log
    assert "stopped after 3 request(s)" in log


def test_serve_plays_a_script_in_order(tmp_path: Path) -> None:
    script = tmp_path / "turns.yaml"
    script.write_text(
        "turns:\n"
        "  - unicode_args\n"
        "  - {plan: {calls: [{name: add, args: {a: 1}, id: toolu_1}]}, quirks: [split_utf8]}\n"
        "  - {error: 429, body: {type: error, error: {type: rate_limit_error, message: slow}}}\n"
    )
    with serving(
        "-d", "anthropic_messages", "--script", str(script), "--max-requests", "3"
    ) as server:
        client = anthropic.Anthropic(api_key="sk-ant", base_url=server.url, max_retries=0)

        def final() -> list[tuple[str, object, str]]:
            with client.messages.stream(model="m", max_tokens=64, messages=PROMPT) as stream:
                message = stream.get_final_message()
            return [(b.name, b.input, b.id) for b in message.content if b.type == "tool_use"]

        unicode_plan = get_scenario("unicode_args").plan
        assert final() == [(c.name, c.args, c.id) for c in unicode_plan.calls]
        assert final() == [("add", {"a": 1}, "toolu_1")]
        with pytest.raises(anthropic.RateLimitError, match="slow"):
            final()
        log = server.log()
    assert "#3 POST /v1/messages -> 429 rejected: slow" in log


def test_serve_once_replays_a_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "golden.yaml"
    subprocess.run(
        [
            str(TOOLTAPE),
            "render",
            "openai_golden",
            "-d",
            "openai_chat",
            "--cassette",
            str(cassette),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    with serving("--cassette", str(cassette), "--once") as server:
        calls = accumulated(openai_client(server.url))
        log = server.log()
    assert calls == get_scenario("openai_golden").plan.expected_calls()
    assert "replaying" in log
    assert "stopped after 1 request(s)" in log


def test_serve_answers_an_unknown_route_with_a_404_naming_the_routes() -> None:
    with serving("--once") as server:
        response = httpx2.post(f"{server.url}/v1/embeddings", json={"input": "x"})
        log = server.log()
    assert response.status_code == 404
    assert "/chat/completions" in response.json()["error"]["message"]
    assert "#1 POST /v1/embeddings -> 404 rejected: tooltape: no fake provider serves" in log


def run_failing(*args: str) -> str:
    done = subprocess.run(
        [str(TOOLTAPE), "serve", *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "listening" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_serve_refuses_headers_over_max_header_bytes_and_serves_on() -> None:
    with serving(
        "--max-header-bytes", "2048", "--write-timeout", "5", "--max-requests", "1"
    ) as server:
        with httpx2.Client(timeout=30) as client:
            body = {"model": "m", "stream": True, "messages": PROMPT}
            url = f"{server.url}/v1/chat/completions"
            refused = client.post(url, json=body, headers={"x-big": "a" * 4096})
            served = client.post(url, json=body)
        log = server.log()
    assert refused.status_code == 431
    assert "over 2048 bytes (max_header_bytes)" in refused.text
    assert served.status_code == 200
    assert "#1 POST /v1/chat/completions -> 200 valid" in log


def test_serve_refuses_a_cassette_header_http_forbids_in_one_line(tmp_path: Path) -> None:
    from tooltape.cassettes import library_path

    text = library_path("parallel_sequential", "openai_chat").read_text()
    bad = tmp_path / "nul.yaml"
    event_stream = "      - text/event-stream; charset=utf-8\n"
    bad.write_text(text.replace(event_stream, event_stream + '      x-note: ["a\\0b"]\n', 1))
    line = run_failing("--cassette", str(bad))
    assert f"{bad}: interaction 0: response header 'x-note': its value holds NUL" in line


def test_serve_refuses_a_non_loopback_host() -> None:
    line = run_failing("--host", "0.0.0.0", "--once")
    assert "not a loopback address" in line
    assert "--allow-non-loopback" in line


def test_serve_errors_are_one_line(tmp_path: Path) -> None:
    assert "unknown scenario" in run_failing("--scenario", "nope")
    assert "unknown dialect 'nope'" in run_failing("-d", "nope")
    assert "does not exist" in run_failing("--script", str(tmp_path / "none.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("turns: [{speak: 1}]\n")
    assert "turn 0: expected a scenario name" in run_failing("--script", str(bad))
    assert "give one of --scenario, --script or --cassette" in run_failing(
        "--scenario", "missing_id", "--script", str(bad)
    )
    assert "0 is not in the range" in run_failing("--max-requests", "0")
