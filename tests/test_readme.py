"""The README and the docs run as shown, and the README's set-up commands are what CI runs.

Every Python block of ``README.md`` and ``docs/*.md`` is found, linted and run with
pydantic's pytest-examples:

- a ```` ```python ```` / ```` ```py ```` block runs as a module; its ``#>`` comments are
  checked against what it prints;
- a block that defines ``test_*`` functions is a test file: when the line before it
  names an ``examples/`` file it must be that file's text (pytest runs ``examples/``
  with the suite), otherwise it runs in a nested pytest with the tooltape plugin;
- a block fenced ```` ```py test="skip" ```` is illustrative (it imports your package,
  say) and is only linted;
- shell commands and program output are fenced ``sh`` / ``text``, which pytest-examples
  does not collect.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
EXAMPLES = list(find_examples(*DOCUMENTS))
NAMES_AN_EXAMPLE_FILE = re.compile(r"\(this is `(examples/[\w/]+\.py)`")


def example_id(example: CodeExample) -> str:
    return f"{example.path.relative_to(ROOT)}:{example.start_line}"


def named_example_file(example: CodeExample) -> Path | None:
    """The ``examples/`` file the paragraph before the block says it is, if any."""
    before = example.path.read_text(encoding="utf-8")[: example.start_index]
    before = before.rstrip("\n").rsplit("\n", 1)[0]  # the fence line
    paragraph = before.rstrip().rsplit("\n\n", 1)[-1]
    found = NAMES_AN_EXAMPLE_FILE.search(paragraph.replace("\n", " "))
    return ROOT / found.group(1) if found else None


def is_test_file(example: CodeExample) -> bool:
    return re.search(r"^def test_", example.source, flags=re.M) is not None


@pytest.fixture
def linted(eval_example: EvalExample) -> EvalExample:
    eval_example.set_config(
        line_length=100,
        target_version="py311",
        ruff_line_length=100,
        ruff_select=["E", "F", "W", "I", "B", "UP", "SIM"],
        ruff_ignore=["D"],  # the project's docstring rules are for its modules
    )
    return eval_example


def test_every_document_has_its_blocks_found():
    found = {example.path.name for example in EXAMPLES}
    assert {"README.md", "fuzzing.md"} <= found
    assert sum(example.path.name == "README.md" for example in EXAMPLES) >= 5


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_python_block_is_lint_clean(example: CodeExample, linted: EvalExample):
    linted.lint_ruff(example)


RUNNABLE = [
    example
    for example in EXAMPLES
    if example.prefix_settings().get("test") != "skip" and not is_test_file(example)
]


@pytest.mark.parametrize("example", RUNNABLE, ids=example_id)
def test_python_block_runs_and_prints_what_it_says(example: CodeExample, linted: EvalExample):
    linted.run_print_check(example)


TEST_FILES = [example for example in EXAMPLES if is_test_file(example)]


@pytest.mark.parametrize("example", TEST_FILES, ids=example_id)
def test_test_block_passes_as_a_test_file(example: CodeExample, pytester: pytest.Pytester):
    named = named_example_file(example)
    if named is not None:
        assert example.source.strip() in named.read_text(encoding="utf-8"), (
            f"{example_id(example)} differs from {named.relative_to(ROOT)}"
        )
        return  # pytest collects examples/ with the suite
    pytester.makepyfile(**{f"test_{example.module_name.replace('.', '_')}": example.source})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    tests = len(re.findall(r"^def test_", example.source, flags=re.M))
    result.assert_outcomes(passed=tests)


def test_the_readme_shows_a_first_test_and_its_example_files_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = {named_example_file(example) for example in TEST_FILES}
    assert ROOT / "examples" / "test_first.py" in named
    for mentioned in re.findall(r"`(examples/[\w/]+\.py)`", readme):
        assert (ROOT / mentioned).is_file(), mentioned
    for link in re.findall(r"\]\((docs/[\w/.-]+\.md)\)", readme):
        assert (ROOT / link).is_file(), link


def setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up the repository", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_readme_has_exactly_two_setup_commands():
    commands = setup_commands()
    assert len(commands) == 2
    assert "tooltape matrix" in commands[0]
    assert '".[test]"' in commands[1] and "pytest" in commands[1]


def test_ci_runs_the_readme_commands_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in setup_commands():
        assert command in ci.splitlines()


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
