"""Cassette files on disk: load with one-paragraph errors, write atomically under a lock.

Writes never leave a half-written file: the text goes to a hidden temporary
file in the same directory (``.<name>.tooltape-*.tmp``), is flushed to disk,
then ``os.replace`` swaps it in; the new file gets the permissions any file the
user creates gets (``0o666`` less the umask, or the old file's mode). A temporary
file orphaned by a killed writer is removed by the next writer of that cassette.
Writers of one cassette take an exclusive lock first, so pytest-xdist workers
recording the same cassette queue up instead of overwriting each other; each
re-reads the file under the lock before deciding what to write. The lock files
live in the system's temporary directory (``tooltape-locks/``), never beside a
cassette where they could be committed.

Parsed cassettes are cached by path, modification time and size, so replaying
one file in many tests parses its YAML once per process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

from tooltape.cassettes._codec import cassette_from_data, cassette_to_data, check_interaction_count
from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import Cassette
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes.yaml_text import dump_yaml, load_yaml
from tooltape.harness.user_files import read_regular_file

__all__ = [
    "cassette_lock",
    "cassette_text",
    "load_cassette",
    "lock_path",
    "remove_orphans",
    "save_cassette",
    "write_atomically",
]


def load_cassette(path: str | Path) -> Cassette:
    """Read a cassette file (tooltape's or any vcrpy YAML cassette).

    Raises:
        CassetteError: The file is missing, a link, FIFO or other non-regular file,
            over ``$TOOLTAPE_MAX_CASSETTE_BYTES``, unreadable, not UTF-8, not YAML, or
            not a cassette with interactions; one paragraph naming the file and the field.
    """
    path = Path(path)
    try:
        stat = path.lstat()  # a link is never a cache hit: read_regular_file refuses it
        key = (str(path.absolute()), stat.st_mtime_ns, stat.st_size, stat.st_ino)
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
        if cached is not None:
            return cached if cached.path == path else dataclasses.replace(cached, path=path)
        raw = read_regular_file(path, error=CassetteError)
    except FileNotFoundError:
        raise CassetteError(
            f"{path}: no such cassette; record it first (record_mode='once')"
        ) from None
    except OSError as error:
        raise CassetteError(f"{path}: cannot read the cassette ({error.strerror})") from None
    cassette = parse_cassette(raw, path)
    if len(raw) == key[2]:  # not rewritten between stat and read
        with _CACHE_LOCK:
            _CACHE[key] = cassette
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return cassette


_CACHE: OrderedDict[tuple[str, int, int, int], Cassette] = OrderedDict()
"""Parsed cassettes by (absolute path, mtime, size, inode); cassettes are immutable."""
_CACHE_SIZE = 64
_CACHE_LOCK = threading.Lock()


def parse_cassette(raw: bytes, path: Path | None = None) -> Cassette:
    """A cassette from the bytes of its file (see :func:`load_cassette`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CassetteError(
            f"{path or '<cassette>'}: not UTF-8 text (invalid byte at offset {error.start}); "
            "a YAML cassette is text, binary bodies go in !!binary base64"
        ) from None
    # Count before parsing: YAML builds every node first, and that is what takes the memory.
    check_interaction_count(len(_INTERACTION_START.findall(text)), path)
    return cassette_from_data(load_yaml(text, path), path)


_INTERACTION_START = re.compile(r"^- request:", re.MULTILINE)
"""Where each interaction of a block-style cassette (vcrpy's and tooltape's layout) begins."""


def cassette_text(cassette: Cassette) -> str:
    """The YAML text of a cassette, checked to read back to the same interactions.

    A body YAML would change (an exotic line separator, say) is stored as
    ``!!binary`` instead, so what is written always replays byte for byte.
    """
    text = dump_yaml(cassette_to_data(cassette))
    again = cassette_from_data(load_yaml(text, cassette.path), cassette.path)
    if _bodies(again) != _bodies(cassette_from_data(cassette_to_data(cassette, binary=True))):
        text = dump_yaml(cassette_to_data(cassette, binary=True))
    return text


def _bodies(cassette: Cassette) -> list[tuple[bytes, bytes]]:
    """What must read back byte for byte (headers come back sorted, which is fine)."""
    return [(i.request.body, i.response.body) for i in cassette.interactions]


def lock_path(path: Path) -> Path:
    """Where the lock of the cassette at ``path`` lives: the temp dir, keyed by its real path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:32]
    return Path(tempfile.gettempdir()) / "tooltape-locks" / f"{digest}.lock"


@contextlib.contextmanager
def cassette_lock(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of the cassette at ``path`` (blocks until free)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        lock.parent.chmod(0o1777)  # shared by every user, like /tmp itself
    with open(lock, "a+b") as handle:
        _lock(handle.fileno())
        try:
            yield
        finally:
            _unlock(handle.fileno())


try:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


_TEMP_INFIX = ".tooltape-"


def _file_mode(path: Path) -> int:
    """The mode a new file at ``path`` gets: the old file's, else 0o666 less the umask."""
    with contextlib.suppress(OSError):
        return path.stat().st_mode & 0o7777
    with _UMASK_LOCK:
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


_UMASK_LOCK = threading.Lock()


def remove_orphans(path: Path) -> list[Path]:
    """Delete temporary files a killed writer of ``path`` left (call under its lock)."""
    removed = []
    for orphan in path.parent.glob(f".{path.name}{_TEMP_INFIX}*.tmp"):
        with contextlib.suppress(OSError):
            orphan.unlink()
            removed.append(orphan)
    return removed


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _file_mode(path)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}{_TEMP_INFIX}", suffix=".tmp", dir=path.parent)
    try:
        with contextlib.suppress(OSError, AttributeError):  # no fchmod on Windows
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


@contextlib.contextmanager
def writing(path: Path, unsaved: int) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``path`` into a :class:`CassetteError` that says so.

    ``unsaved`` is how many interactions the failed write would have saved.
    """
    try:
        yield
    except OSError as error:
        reason = error.strerror or type(error).__name__
        named = error.filename and str(error.filename) != str(path)
        where = f" ({error.filename})" if named else ""
        raise CassetteError(
            f"{path}: cannot write the cassette: {reason}{where}; its {unsaved} "
            "interaction(s) were not saved and the file on disk, if any, is as it was. "
            "Free space, lift the limit or fix the folder's permissions, then record again"
        ) from error


def encode_checked(cassette: Cassette, scrubber: Scrubber | None, path: Path) -> bytes:
    """The file bytes, secrets swept; refuse when a removed secret is still in them.

    Raises:
        CassetteError: A secret survived the sweep (nothing is written).
    """
    if scrubber is not None:
        cassette = scrubber.sweep(cassette)
    data = cassette_text(cassette).encode("utf-8")
    # Both the bytes and the fields: YAML may escape or wrap what the fields hold.
    leaked = scrubber.leaked(data) or scrubber.leaked_in(cassette) if scrubber is not None else []
    if leaked:
        raise CassetteError(
            f"{path}: not written: removed secret(s) {', '.join(leaked)} still appear in the "
            "cassette (encoded differently); remove them with before_record_request or "
            "before_record_response"
        )
    return data


def save_cassette(
    cassette: Cassette,
    path: str | Path,
    *,
    overwrite: bool = False,
    scrubber: Scrubber | None = None,
) -> Path:
    """Write a cassette (atomically, under the cassette lock).

    Args:
        cassette: What to write.
        path: Where.
        overwrite: Replace an existing file (otherwise refuse).
        scrubber: Sweep the secrets it removed while recording, and check none is left.

    Returns:
        The path written.

    Raises:
        CassetteError: The file exists and ``overwrite`` is false, a secret would be
            written, or the file system refused the write (read-only, full, over a limit).
    """
    path = Path(path)
    data = encode_checked(cassette, scrubber, path)
    with writing(path, len(cassette.interactions)), cassette_lock(path):
        remove_orphans(path)
        if path.exists() and not overwrite:
            raise CassetteError(
                f"{path}: the cassette exists and is kept; pass overwrite=True to replace it"
            )
        write_atomically(path, data)
    return path
