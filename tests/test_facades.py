"""Each facade's names are pinned, and each is one the prose docs use or a user extends with.

A facade is what a user types after ``from tooltape.<package> import``. Adding or
dropping a name changes the snapshot (``pytest --snapshot-update``), so it is a
deliberate, reviewed change. "The size of the docs" as a test: every name is written
as code in the README, the prose docs (``docs/api`` renders every ``__all__`` name, so
it does not count) or the examples, or it sits in a small allowance below, one reason
per group. The quirk catalogues (``tooltape.harness.quirks``,
``tooltape.fake_providers.quirks``) are derived from the quirk registry and pinned there
(``tests/harness/test_exports.py``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FACADES = ("tooltape.harness", "tooltape.cassettes", "tooltape.plugin", "tooltape.fake_providers")

ALLOWED: dict[str, set[str]] = {
    "tooltape.harness": {
        # Writing a quirk: its base class, the stage it runs at, the citation decorator.
        *("Quirk", "Stage", "evidence"),
        # Writing a dialect: `parse` returns Deltas of Delta; rendering reads Fragments
        # and the plan's Finish.
        *("Delta", "Deltas", "Fragment", "Finish"),
        # Annotating a user's merger and checks: check_merger's fn, reference_merge's
        # input, assert_merge's two arguments, one merged call.
        *("MergerFn", "DeltasLike", "SubjectLike", "ExpectedCalls", "ToolCallDict"),
    },
    "tooltape.cassettes": set(),
    "tooltape.plugin": set(),
    "tooltape.fake_providers": {
        # Writing a dialect: what `validate` and `body_error` return, the events
        # `build_events` yields, the request `validate` reads.
        *("ProviderError", "BodyProblem", "ProviderEvent", "ProviderRequest"),
        # Raised into the user's client by a fake, to be caught there.
        *("FakeStreamError", "FakeHistoryRejected"),
    },
}


def _prose_files() -> list[Path]:
    """The README, the prose docs (not ``docs/api``) and the examples."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if p.parent.name != "api")
    return [ROOT / "README.md", *docs, *sorted((ROOT / "examples").rglob("*.py"))]


def _code(markdown: str) -> str:
    """The code a Markdown text shows: its fenced blocks and its code spans."""
    blocks = re.findall(r"```.*?```", markdown, flags=re.DOTALL)
    spans = re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", markdown, flags=re.DOTALL))
    return "\n".join([*blocks, *spans])


def _prose_code() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") if p.suffix == ".py" else _code(p.read_text(encoding="utf-8"))
        for p in _prose_files()
    )


def _used(names: list[str], code: str) -> set[str]:
    return {name for name in names if re.search(rf"\b{re.escape(name)}\b", code)}


@pytest.mark.parametrize("facade", FACADES)
def test_each_facade_exports_exactly_its_pinned_names(facade, snapshot):
    assert sorted(importlib.import_module(facade).__all__) == snapshot


@pytest.mark.parametrize("facade", FACADES)
def test_each_facade_name_is_in_the_prose_docs_or_in_the_allowance(facade):
    names = list(importlib.import_module(facade).__all__)
    used = _used(names, _prose_code())
    assert sorted(set(names) - used - ALLOWED[facade]) == []
    # the allowance stays small: a name there is public and not documented
    assert sorted(ALLOWED[facade] - set(names)) == []
    assert sorted(ALLOWED[facade] & used) == []


def test_only_code_in_the_prose_docs_counts():
    markdown = "The Cassette options.\n`use_cassette(path)`, then\n```python\nrecord(path)\n```\n"
    assert _used(["Cassette", "use_cassette", "record", "drift"], _code(markdown)) == {
        "use_cassette",
        "record",
    }
    files = {p.relative_to(ROOT).as_posix() for p in _prose_files()}
    assert {"README.md", "docs/library.md", "examples/test_first.py"} <= files
    assert not any(f.startswith("docs/api/") for f in files)
