"""Lazy package facades (PEP 562), shared by the four packages' ``__init__`` modules.

A facade lists its public names in ``__all__`` and imports each one under
``if TYPE_CHECKING:``, which is what mypy, IDEs and the docs read. At run time
that block does not run: the facade installs :func:`lazy_exports` above it, which
reads the block and ``__all__`` from the facade's source instead, so the import line
is the one place that says where a name lives. A name is imported on first use
and then cached in the package's namespace, so the next lookup is a plain
attribute.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``globals()`` is ``namespace``.

    Raises:
        ImportError: A name of ``__all__`` that the facade's ``TYPE_CHECKING`` block
            does not import.
    """
    init_file = Path(namespace["__file__"])
    tree = ast.parse(init_file.read_text(encoding="utf-8"), filename=str(init_file))
    defined_in = _type_checking_imports(tree, package)
    unsourced = sorted(set(_all_names(tree)) - set(defined_in))
    if unsourced:
        raise ImportError(
            f"{package}.__all__ names {', '.join(unsourced)}, which its TYPE_CHECKING "
            "block does not import"
        )

    def __getattr__(name: str) -> Any:
        module = defined_in.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__


def _all_names(tree: ast.Module) -> list[str]:
    """The names of the facade's ``__all__`` list (it stands below the hook)."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
        ):
            return list(ast.literal_eval(statement.value))
    return []


def _type_checking_imports(tree: ast.Module, package: str) -> dict[str, str]:
    """Each name the facade imports under ``if TYPE_CHECKING:``, with its module."""
    defined_in: dict[str, str] = {}
    for block in tree.body:
        if not (isinstance(block, ast.If) and _is_type_checking(block.test)):
            continue
        for statement in block.body:
            if isinstance(statement, ast.ImportFrom) and statement.module is not None:
                for alias in statement.names:
                    if alias.asname not in (None, alias.name):
                        raise ImportError(f"{package}: import {alias.name} under its own name")
                    defined_in[alias.name] = statement.module
    return defined_in


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``<module>.TYPE_CHECKING``."""
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"
