"""The README's two set-up commands are exactly what CI runs."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def setup_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_readme_has_exactly_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2
    assert "examples/quickstart.py" in commands[0] or "tooltape matrix" in commands[0]
    assert '".[test]"' in commands[1] and "pytest" in commands[1]


def test_ci_runs_the_readme_commands_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in setup_commands():
        assert command in ci.splitlines()


def python_blocks():
    """``(text before the block, code)`` for every Python block of the README."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"([^\n]*)\n\n```python\n(.+?)\n```", readme, flags=re.S)


def test_readme_examples_that_name_an_example_file_are_in_it():
    named = 0
    for intro, code in python_blocks():
        found = re.search(
            r"this is `(examples/[\w/]+\.py)`|^Run .*\(`(examples/[\w/]+\.py)`\)", intro
        )
        if not found:
            continue
        named += 1
        source = (ROOT / (found.group(1) or found.group(2))).read_text(encoding="utf-8")
        assert code in source, f"the README's example differs from {found.group(0)}"
    assert named >= 2


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_the_examples_run_warning_free_under_W_error():
    """The examples folder and the quickstart, every warning an error (as a user might run)."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    tests = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            "-m",
            "pytest",
            "examples",
            "-W",
            "error",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert "warning" not in tests.stdout.splitlines()[-1]
    quickstart = subprocess.run(
        [sys.executable, "-W", "error", "examples/quickstart.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert quickstart.returncode == 0, quickstart.stderr[-2000:]
    assert "== pairing check" in quickstart.stdout
