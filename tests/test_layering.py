"""No package imports another's ``_private`` module.

The four packages share helpers through small modules named for what they hold
(``tooltape.harness.name_checks``, ``tooltape.fake_providers.framing``, ...), or
through the facades; a private module is its package's own business. The source
is read with ``ast``, so imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "fake_providers", "cassettes", "plugin")


def _imports(tree: ast.AST) -> list[tuple[int, str, list[str]]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, a.name, []) for a in node.names)
    return found


def private_imports_of_other_packages(package: str, source: str) -> list[str]:
    """Each import in ``source`` that reaches into another package's privates."""
    found = []
    for line, module, names in _imports(ast.parse(source)):
        parts = module.split(".")
        if parts[0] != "tooltape" or len(parts) < 2 or parts[1] == package:
            continue
        private_module = any(part.startswith("_") for part in parts[2:])
        private_name = any(n.startswith("_") and not n.startswith("__") for n in names)
        if private_module or private_name:
            found.append(f"line {line}: {module} {names}")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_another_packages_private_module(package):
    problems = [
        f"{path.relative_to(ROOT)} {problem}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for problem in private_imports_of_other_packages(package, path.read_text(encoding="utf-8"))
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from tooltape.harness._reference import reference_merge", True),
        ("def f():\n    from tooltape.cassettes._player import CassettePlayer", True),
        ("import tooltape.fake_providers._sse", True),
        ("from tooltape.harness._quirks import _REGISTRY", True),
        ("from tooltape.harness import _REGISTRY", True),
        ("from tooltape.fake_providers.dialects.openai_chat._parse import x", True),
        ("from tooltape.plugin._engine import run", False),  # its own package
        ("from tooltape.harness import TooltapeUsageError", False),
        ("from tooltape.harness.name_checks import check_names", False),
        ("from tooltape.fake_providers.dialects.openai_chat import read_chat_stream", False),
    ],
)
def test_the_scan_tells_a_private_import_from_a_shared_one(source, caught):
    assert bool(private_imports_of_other_packages("plugin", source)) is caught
