"""tooltape leans on what its dependencies promise, not on their internals.

The oracle's whole claim is "langchain-core, run for real": a release of langchain-core
or pydantic that changes a private detail must not change what tooltape reports without
a test failing first. So the installed packages import no private module of another
distribution but one (langchain-core's ``merge_lists``, which its own partner packages
import, held to the n-ary merge by tests/harness/test_reference.py), and touch no pydantic
model state by hand (no pickled state, no hand-run validators, no ``__dict__`` writes).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ("tooltape.harness", "tooltape.fake_providers", "tooltape.plugin", "tooltape.cassettes")

ALLOWED_PRIVATE_IMPORTS = {("langchain_core.utils._merge", "merge_lists")}
"""(module, name) pairs of another distribution's private modules that tooltape may import."""
ALLOWED_PRIVATE_MODULES = {"_socket"}
"""Whole private modules tooltape may import: the network block guards ``_socket`` itself."""

MODEL_INTERNALS = {
    "__setstate__",
    "__getstate__",
    "__pydantic_fields_set__",
    "__pydantic_decorators__",
}
"""Attributes that read or write a model's state behind pydantic's back."""


def _writes_dict(node: ast.AST) -> bool:
    """``x.__dict__[key] = ...``: an instance's state written behind its validation."""
    return isinstance(node, ast.Assign) and any(
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr == "__dict__"
        for target in node.targets
    )


def _sources() -> list[Path]:
    files: list[Path] = []
    for package in PACKAGES:
        for folder in importlib.import_module(package).__path__:
            files += sorted(Path(folder).rglob("*.py"))
    return files


def _private(module: str) -> bool:
    return any(part.startswith("_") and part != "__future__" for part in module.split("."))


def _findings(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("tooltape") or not _private(node.module):
                continue
            for alias in node.names:
                if (node.module, alias.name) not in ALLOWED_PRIVATE_IMPORTS:
                    found.append(f"{path.name}:{node.lineno} imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ALLOWED_PRIVATE_MODULES or alias.name.startswith("tooltape"):
                    continue
                if _private(alias.name):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in MODEL_INTERNALS:
            found.append(f"{path.name}:{node.lineno} touches .{node.attr}")
        elif _writes_dict(node):
            found.append(f"{path.name}:{node.lineno} writes __dict__")
    return found


def test_sources_are_found():
    names = {path.name for path in _sources()}
    assert {"_reference.py", "_lane_merge.py", "_models.py"} <= names


@pytest.mark.parametrize("path", _sources(), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_private_module_and_no_model_internals(path):
    assert _findings(path) == []


def test_the_check_sees_what_it_forbids(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from pydantic._internal import _model_construction\n"
        "import langchain_core.messages._private\n"
        "from langchain_core.utils._merge import merge_dicts\n"
        "m.__setstate__({})\n"
        "M.__pydantic_decorators__\n"
        "c.__dict__['id'] = 1\n",
        encoding="utf-8",
    )
    assert len(_findings(bad)) == 6
