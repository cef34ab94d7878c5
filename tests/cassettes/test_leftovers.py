"""What a write leaves on disk: the cassette alone, with the mode any new file gets.

Locks live in the temporary directory, temporary files are hidden and the
next writer of a cassette removes those a killed writer orphaned; a cassette
parsed once is served from the cache until its file changes.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tooltape.cassettes import library_path, load_cassette, save_cassette
from tooltape.cassettes._store import lock_path, write_atomically

pytestmark = pytest.mark.slow

BASE = library_path("openai_golden", "openai_chat")


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_new_cassette_gets_the_mode_the_umask_gives(tmp_path, umask_027):
    written = save_cassette(load_cassette(BASE), tmp_path / "c.yaml")
    assert stat.S_IMODE(written.stat().st_mode) == 0o640  # 0o666 & ~0o027, not mkstemp's 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_rewritten_cassette_keeps_its_mode(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("x")
    path.chmod(0o664)
    save_cassette(load_cassette(BASE), path, overwrite=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o664


def test_the_lock_is_outside_the_cassette_folder(tmp_path):
    lock = lock_path(tmp_path / "c.yaml")
    assert tmp_path not in lock.parents
    assert lock != lock_path(tmp_path / "d.yaml")


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from tooltape.cassettes import _store
real_fdopen = os.fdopen
def fdopen(fd, mode):  # die half-way, as a SIGKILL would, once the temp file exists
    handle = real_fdopen(fd, mode)
    handle.write(b"half")
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)
os.fdopen = fdopen
_store.write_atomically(Path(sys.argv[1]), b"interactions: []\\n")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_the_next_writer_removes_what_a_killed_writer_left(tmp_path):
    path = tmp_path / "c.yaml"
    run = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path)], check=False)
    assert run.returncode == -signal.SIGKILL
    orphans = [p.name for p in tmp_path.iterdir()]
    assert len(orphans) == 1 and orphans[0].startswith(".c.yaml.tooltape-")
    assert orphans[0].endswith(".tmp")  # hidden, and matched by a `*.tmp` ignore rule
    save_cassette(load_cassette(BASE), path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_a_parsed_cassette_is_reused_until_its_file_changes(tmp_path, monkeypatch):
    from tooltape.cassettes import _store

    path = tmp_path / "c.yaml"
    path.write_bytes(BASE.read_bytes())
    parses = []
    real = _store.parse_cassette
    monkeypatch.setattr(_store, "parse_cassette", lambda raw, p: parses.append(p) or real(raw, p))
    first = load_cassette(path)
    assert load_cassette(path) is first
    assert len(parses) == 1
    text = BASE.read_text().replace("get_weather", "get_weathe2")
    write_atomically(path, text.encode())
    again = load_cassette(path)
    assert len(parses) == 2 and again is not first
    assert b"get_weathe2" in again.interactions[0].response.body or "get_weathe2" in str(again.info)
    copy = Path(tmp_path / "elsewhere.yaml")
    copy.write_bytes(path.read_bytes())
    assert load_cassette(copy).path == copy
