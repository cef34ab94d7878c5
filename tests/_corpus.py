"""The conformance corpus (tests/corpus): real provider streams, vendored with their NOTICE.

``TOOLTAPE_CORPUS`` points the tests at another copy of the same layout
(``<provider>/<name>.json``). A missing or empty corpus is an error, not a skip: a test
that would read it has nothing to check.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
VENDORED_CORPUS = Path(__file__).resolve().parent / "corpus"
CORPUS_DIR = Path(os.environ.get("TOOLTAPE_CORPUS", VENDORED_CORPUS))


def corpus_files() -> list[Path]:
    """Every record file of the corpus, sorted; raises when there is none."""
    files = sorted(CORPUS_DIR.glob("*/*.json"))
    if not files:
        where = "TOOLTAPE_CORPUS" if "TOOLTAPE_CORPUS" in os.environ else "tests/corpus"
        raise FileNotFoundError(
            f"no corpus records (<provider>/<name>.json) in {CORPUS_DIR} ({where}); the "
            "vendored copy is part of the repository: restore tests/corpus "
            "(git checkout -- tests/corpus) or unset TOOLTAPE_CORPUS"
        )
    return files


def corpus_path(provider: str, name: str) -> Path:
    """One record file, by provider folder and file name; raises when it is absent."""
    path = CORPUS_DIR / provider / name
    if not path.is_file():
        raise FileNotFoundError(f"no corpus record {provider}/{name} in {CORPUS_DIR}")
    return path


def corpus_records(*apis: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(relative path, record)`` for corpus files whose ``api`` is one of ``apis``."""
    for path in corpus_files():
        record = json.loads(path.read_text(encoding="utf-8"))
        if not apis or record.get("api") in apis:
            yield path.relative_to(CORPUS_DIR).as_posix(), record


def corpus_params(*apis: str) -> list[Any]:
    """Corpus records as pytest params, ids their relative paths; raises when none match."""
    params = [pytest.param(record, id=name) for name, record in corpus_records(*apis)]
    if not params:
        raise LookupError(f"no corpus record in {CORPUS_DIR} has api in {apis}")
    return params
