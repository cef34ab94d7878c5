"""Lazy package facades (PEP 562), shared by the four packages' ``__init__`` modules.

A facade lists its public names in ``__all__`` and, in a table, the private
module that defines each one; a name is imported on first use and then cached
in the package's namespace, so the next lookup is a plain attribute.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, defined_in: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``.

    ``defined_in`` maps each public name to its module, relative to ``package``;
    ``namespace`` is the package's ``globals()``.
    """

    def __getattr__(name: str) -> Any:
        module = defined_in.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__
