"""The README's two set-up commands are exactly what CI runs."""

import re
from pathlib import Path

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
