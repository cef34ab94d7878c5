"""tests/corpus/NOTICE.md lists every vendored file, and each row says what the file says.

The recordings are other projects' work under MIT or Apache-2.0: a file without its
source repository, commit and licence in the NOTICE must not ship, and a NOTICE row
without its file is stale.
"""

from __future__ import annotations

import json
import re

from _corpus import VENDORED_CORPUS

NOTICE = VENDORED_CORPUS / "NOTICE.md"
ROW = re.compile(
    r"^\| `(?P<file>[^`]+)` \| (?P<repo>\S+) \| `(?P<path>[^`]+)` "
    r"\| (?P<commit>[0-9a-f]{40}) \| (?P<licence>[^|]+?) \|$"
)


def _notice() -> str:
    return NOTICE.read_text(encoding="utf-8")


def _rows() -> list[dict[str, str]]:
    return [m.groupdict() for line in _notice().splitlines() if (m := ROW.match(line))]


def test_every_vendored_file_is_in_the_notice_and_every_listed_file_is_vendored() -> None:
    on_disk = {
        p.relative_to(VENDORED_CORPUS).as_posix()
        for p in VENDORED_CORPUS.rglob("*")
        if p.is_file() and p != NOTICE
    }
    licences = set(re.findall(r"`(LICENSES/[^`]+)`", _notice()))
    listed = {row["file"] for row in _rows()} | licences
    assert on_disk - listed == set(), "vendored but not in tests/corpus/NOTICE.md"
    assert listed - on_disk == set(), "in tests/corpus/NOTICE.md but not vendored"
    assert licences == {"LICENSES/MIT.txt", "LICENSES/Apache-2.0.txt"}


def test_each_row_gives_the_files_own_source_commit_and_licence() -> None:
    rows = _rows()
    assert len(rows) == len(list(VENDORED_CORPUS.glob("*/*.json")))
    for row in rows:
        record = json.loads((VENDORED_CORPUS / row["file"]).read_text(encoding="utf-8"))
        assert (row["repo"], row["path"], row["commit"], row["licence"]) == (
            record["source_repo"],
            record["source_path"],
            record["source_commit"],
            record["license"],
        ), row["file"]
        assert record["license"] in {"MIT", "Apache-2.0", "Apache-2.0 OR BSD-3-Clause"}


def test_each_mit_source_has_its_copyright_notice() -> None:
    notice = _notice()
    mit = {
        json.loads(p.read_text(encoding="utf-8"))["source_repo"]
        for p in VENDORED_CORPUS.glob("*/*.json")
        if json.loads(p.read_text(encoding="utf-8"))["license"] == "MIT"
    }
    assert mit
    for repo in mit:
        assert re.search(rf"^- {re.escape(repo)}: Copyright ", notice, re.MULTILINE), repo
