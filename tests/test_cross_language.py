"""`tooltape serve` drives a client in another language: LangChain.js streams tool calls from it.

The test installs ``@langchain/openai`` and ``@langchain/core`` (versions pinned
in tests/js/package.json and its lock file) into a cache folder with ``npm
install --no-audit --no-fund``, starts the installed ``tooltape serve`` on
127.0.0.1, and runs tests/js/stream_tools.mjs against it: the calls LangChain.js
merges must equal the scenario's plan. Skipped where node or npm is absent.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tooltape.cassettes import get_scenario

JS_DIR = Path(__file__).parent / "js"
TOOLTAPE = Path(sys.executable).parent / "tooltape"
NODE, NPM = shutil.which("node"), shutil.which("npm")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        NODE is None or NPM is None, reason="node and npm are needed for the LangChain.js client"
    ),
]


def _install_dir() -> Path:
    """A cache folder keyed by the package files, so reruns skip the install."""
    files = ("package.json", "package-lock.json", "stream_tools.mjs")
    digest = hashlib.sha256(b"".join((JS_DIR / name).read_bytes() for name in files)).hexdigest()
    root = Path(os.environ.get("TOOLTAPE_JS_CACHE", Path(tempfile.gettempdir()) / "tooltape-js"))
    folder = root / digest[:16]
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers install once, one at a time
        if not (folder / "node_modules" / "@langchain" / "openai").is_dir():
            _npm_install(folder, files)
    return folder


def _npm_install(folder: Path, files: tuple[str, ...]) -> None:
    for name in files:
        shutil.copy(JS_DIR / name, folder / name)
    assert NPM is not None
    done = subprocess.run(
        [NPM, "install", "--no-audit", "--no-fund"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"npm install failed:\n{done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def js_client() -> Path:
    return _install_dir()


def _lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in iter(stream.readline, ""):
        into.put(line)
    into.put("")


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, queue.Queue[str]]]:
    """``tooltape serve`` for one request of the scenario ``request.param``: (name, URL, log)."""
    scenario = request.param
    process = subprocess.Popen(
        [str(TOOLTAPE), "serve", "--dialect", "openai_chat", "--scenario", scenario, "--once"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        url = ""
        while not url:
            line = lines.get(timeout=60)
            assert line, "tooltape serve exited before listening"
            if "listening on " in line:
                url = line.split("listening on ", 1)[1].strip()
        yield scenario, url, lines
        assert process.wait(timeout=30) == 0  # --once: it stops by itself after the request
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        reader.join(timeout=30)
        assert process.stdout is not None
        process.stdout.close()


def _rest(log: queue.Queue[str]) -> str:
    text = []
    while (line := log.get(timeout=30)) != "":
        text.append(line)
    return "".join(text)


@pytest.mark.parametrize(
    "served", ["parallel_interleaved", "openai_golden", "unicode_args"], indirect=True
)
def test_langchain_js_merges_the_plan_from_tooltape_serve(
    js_client: Path, served: tuple[str, str, queue.Queue[str]]
) -> None:
    scenario, url, log = served
    plan = get_scenario(scenario).plan
    assert NODE is not None
    names = sorted({c.name for c in plan.calls})
    done = subprocess.run(
        [NODE, str(js_client / "stream_tools.mjs"), f"{url}/v1", *names],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    merged = json.loads(done.stdout.strip().splitlines()[-1])
    assert merged["tool_calls"] == plan.expected_calls()
    assert merged["invalid_tool_calls"] == []
    assert merged["chunks"] > len(merged["tool_calls"])  # streamed, not one whole message
    assert "#1 POST /v1/chat/completions -> 200 valid" in _rest(log)
