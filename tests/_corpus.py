"""The conformance corpus (../shared/corpus): real provider streams, read-only, maybe absent."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = Path(os.environ.get("TOOLTAPE_CORPUS", REPO_ROOT.parent / "shared" / "corpus"))


def corpus_records(*apis: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(relative path, record)`` for corpus files whose ``api`` is one of ``apis``."""
    if not CORPUS_DIR.is_dir():
        return
    for path in sorted(CORPUS_DIR.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if not apis or record.get("api") in apis:
            yield str(path.relative_to(CORPUS_DIR)), record


def corpus_params(*apis: str) -> list[Any]:
    """Corpus records as pytest params (one skipped param when the corpus is absent)."""
    params = [pytest.param(record, id=name) for name, record in corpus_records(*apis)]
    if not params:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no corpus at {CORPUS_DIR}"))]
    return params
