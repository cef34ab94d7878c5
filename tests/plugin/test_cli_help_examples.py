"""Every example in every ``--help`` runs, as printed, and exits 0.

The examples are read from the help texts themselves (every command and
subcommand of the ``tooltape`` group), so an example added to a docstring is
tested without touching this file. Each runs in a fresh folder holding the
inputs the examples name (body.sse, old.yaml, turns.yaml, mine.yaml, a corpus
record ...). ``tooltape serve`` runs until Ctrl-C: it is started on a free
port, must print its address and answer a request, and must stop cleanly
(by itself with ``--once``, else on SIGTERM, its Ctrl-C).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tooltape.cassettes import get_scenario, save_rendered
from tooltape.fake_providers import get_dialect
from tooltape.plugin.cli import cli

BIN = Path(sys.executable).parent


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name)


def _help(path: tuple[str, ...]) -> str:
    done = CliRunner().invoke(cli, [*path, "--help"], prog_name="tooltape")
    assert done.exit_code == 0, done.output
    return done.output


def examples_in(text: str) -> list[str]:
    """The command lines under ``Example:`` / ``Examples:``, up to the next blank line."""
    found, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("Example:", "Examples:"):
            inside = True
        elif not stripped:
            inside = False
        elif inside and stripped.startswith("tooltape "):
            found.append(stripped)
    return found


HELP = {path: _help(path) for path in _commands(cli)}
EXAMPLES = list(dict.fromkeys(e for text in HELP.values() for e in examples_in(text)))


@pytest.mark.parametrize("path", list(HELP), ids=lambda p: " ".join(("tooltape", *p)))
def test_every_command_has_an_example(path: tuple[str, ...]) -> None:
    examples = examples_in(HELP[path])
    assert examples, f"tooltape {' '.join(path)} --help has no example"
    if path:  # a command's own examples use it (the group's help shows them all)
        assert any(e.split()[1 : 1 + len(path)] == list(path) for e in examples), examples


def _cassette(path: Path, scenario: str, dialect: str) -> None:
    chosen, provider = get_scenario(scenario), get_dialect(dialect)
    wire = provider.render(chosen.plan, chosen.quirks, chosen.seed)
    save_rendered(path, chosen, provider, wire, chosen.quirks)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder with every input an example names."""
    golden, openai_chat = get_scenario("parallel_interleaved"), get_dialect("openai_chat")
    body = openai_chat.render(golden.plan, golden.quirks, golden.seed).body
    (tmp_path / "body.sse").write_bytes(body)
    _cassette(tmp_path / "old.yaml", "openai_golden", "openai_chat")
    _cassette(tmp_path / "new.yaml", "missing_id", "openai_chat")
    _cassette(tmp_path / "weather.yaml", "openai_golden", "openai_chat")
    (tmp_path / "turns.yaml").write_text("- openai_golden\n- parallel_sequential\n")
    (tmp_path / "mine.yaml").write_text(
        "scenarios:\n"
        "  - name: mine\n"
        "    description: one call\n"
        "    plan: {calls: [{name: add, args: {a: 1}, id: call_add}]}\n"
        "    quirks: [split_args]\n"
    )
    record = {
        "api": "chat_completions",
        "provider": "openai",
        "request_method": "POST",
        "request_url": "https://api.openai.com/v1/chat/completions",
        "request": {"model": "m"},
        "response_status": 200,
        "response_body": body.decode(),
    }
    (tmp_path / "corpus" / "openai").mkdir(parents=True)
    (tmp_path / "corpus" / "openai" / "weather.json").write_text(json.dumps(record))
    return tmp_path


def _environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _post(url: str) -> int:
    request = urllib.request.Request(
        url, data=b"{}", headers={"content-type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:  # the provider's own 400 for an empty body
        return error.code


def _serve(command: str, cwd: Path) -> None:
    """Start the server as the example says (on a free port), ask it once, stop it.

    After its banner the server gets one request (the banner's URL; a cassette's
    path for a cassette); ``--once`` then stops by itself, the others on SIGTERM
    (serve's Ctrl-C).
    """
    command = re.sub(r"(--port|-p) \d+", r"\1 0", command)
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=cwd,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("tooltape serve: listening on http://127.0.0.1:"), first
        banner = process.stdout.readline()
        if banner.startswith("replaying "):
            url = first.split()[-1] + "/v1/chat/completions"  # weather.yaml is openai_chat
            assert _post(url) == 200
        else:
            assert _post(banner.split("POST ")[1].split()[0]) < 500, banner
        if "--once" not in command:
            process.terminate()
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.rstrip().endswith("stopped after 1 request(s)"), out


@pytest.mark.parametrize("command", EXAMPLES)
@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_the_example_runs(command: str, workdir: Path) -> None:
    if shlex.split(command)[1] == "serve":
        _serve(command, workdir)
        return
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=workdir,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
