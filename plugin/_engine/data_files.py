"""The matrix's YAML data files: the bundled one, or the user's, read into a model.

``matrix_expectations.yaml`` and ``reference_outcomes.yaml`` ship beside the
plugin and may be replaced with ``--expectations`` / ``--reference``; both are
read the same way, with one-line errors that name the file.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from tooltape.harness import TooltapeUsageError
from tooltape.harness.user_files import read_text_file
from tooltape.harness.yaml_expansion import expanded_size, expansion_limit
from tooltape.harness.yaml_loader import BoundedSafeLoader

__all__ = ["parse_data_file", "read_data_file"]

_Model = TypeVar("_Model", bound=BaseModel)


def read_data_file(path: Path | None, *, bundled: str, what: str, option: str) -> tuple[str, str]:
    """The text of ``path`` (or of the ``bundled`` package file when None) and its name.

    Raises:
        TooltapeUsageError: The file is missing, unreadable or not UTF-8; for the
            bundled file, the message says to reinstall or pass ``option``.
    """
    if path is None:
        source = resources.files("tooltape.plugin").joinpath(bundled)
        try:
            return source.read_text(encoding="utf-8"), bundled
        except OSError:
            raise TooltapeUsageError(
                f"the installed tooltape.plugin has no {bundled} (package data); "
                f"reinstall tooltape, or pass {option} PATH"
            ) from None
    return read_text_file(path, what=what), str(path)


def parse_data_file(text: str, source: str, model: type[_Model]) -> _Model:
    """``text`` (YAML, from ``source``) validated as ``model``; an empty file is ``{}``.

    Raises:
        TooltapeUsageError: Not YAML, an alias bomb, or not shaped as ``model``.
    """
    try:
        document: Any = yaml.load(text, Loader=BoundedSafeLoader) or {}
        if expanded_size(document, limit=expansion_limit(text)) is None:
            raise TooltapeUsageError(
                f"{source}: not usable YAML: its aliases (*name) expand it far beyond its "
                f"{len(text):,} characters (an alias bomb?)"
            )
        return model.model_validate(document)
    except yaml.YAMLError as error:
        raise TooltapeUsageError(f"{source}: not valid YAML: {error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TooltapeUsageError(f"{source}: {where}: {first['msg']}") from None
