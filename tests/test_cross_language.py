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
import re
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
        NODE is None or NPM is None,
        reason="node and npm are needed for the LangChain.js client: install Node.js 20 or "
        "newer with npm (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org)",
    ),
]


def npm_installed(source: Path, files: tuple[str, ...], command: tuple[str, ...]) -> Path:
    """``files`` of ``source`` with their node_modules, in a cache folder keyed by the files.

    Reruns skip the install; pytest-xdist workers install once, one at a time. Skips the
    test when npm cannot install (no registry reachable).
    """
    digest = hashlib.sha256(b"".join((source / name).read_bytes() for name in files)).hexdigest()
    root = Path(os.environ.get("TOOLTAPE_JS_CACHE", Path(tempfile.gettempdir()) / "tooltape-js"))
    folder = root / digest[:16]
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".installed").is_file():
            _npm_install(source, folder, files, command)
    return folder


def _npm_install(
    source: Path, folder: Path, files: tuple[str, ...], command: tuple[str, ...]
) -> None:
    for name in files:
        shutil.copy(source / name, folder / name)
    assert NPM is not None
    done = subprocess.run(
        [NPM, *command, "--no-audit", "--no-fund"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(
            f"npm {' '.join(command)} failed (it needs the npm registry once; later runs use "
            f"the cache in {folder}, or set TOOLTAPE_JS_CACHE to a folder where it ran):\n"
            f"{done.stderr[-2000:]}"
        )
    (folder / ".installed").touch()


@pytest.fixture(scope="module")
def js_client() -> Path:
    return npm_installed(
        JS_DIR, ("package.json", "package-lock.json", "stream_tools.mjs"), ("install",)
    )


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


# -- tooltape differential with LangChain.js as a second reference ------------------------


@pytest.fixture(scope="module")
def js_reference() -> Path:
    """plugin/js's LangChain.js (``npm ci`` of its lock file) in a cache folder."""
    import tooltape.plugin

    source = Path(tooltape.plugin.__file__).parent / "js"
    files = ("package.json", "package-lock.json", "chat_models.mjs", "merge.mjs")
    return npm_installed(source, files, ("ci",))


def test_differential_js_reports_where_langchain_js_and_python_merge_differently(
    js_reference: Path,
) -> None:
    scenarios = ("repeated_name", "openai_golden", "parallel_interleaved")
    done = subprocess.run(
        [str(TOOLTAPE), "differential", "--js", *(f"--scenario={s}" for s in scenarios)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "TOOLTAPE_JS_DIR": str(js_reference)},
    )
    assert done.returncode == 0, done.stderr
    table, report = done.stdout.split("\nLangChain.js vs langchain-core: ")
    # one stream per scenario and dialect: openai_chat x 3, anthropic_messages x 2
    assert report.startswith("1 of 5 scenario x dialect merge(s) differ\n")
    # Python concatenates a name repeated on every chunk; LangChain.js keeps the first
    assert report.splitlines()[1:] == [
        "  repeated_name / openai_chat",
        '    python: get_weatherget_weatherget_weather({"city": "Paris", "unit": "celsius"})'
        " id='call_weather_1'",
        '    js:     get_weather({"city": "Paris", "unit": "celsius"}) id=\'call_weather_1\'',
    ]
    golden = table.split("openai_golden (lossless)")[1].split("\n\n")[0]
    # column widths follow the longest subject name, which grows as subjects are added
    assert re.search(r"openai_chat\s+langchain-js\s+= plan", golden)
    assert re.search(r"anthropic_messages\s+langchain-js\s+= plan", golden)
    assert "! langchain-js disagrees with langchain-core on openai_chat" in table
