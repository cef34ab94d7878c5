"""Cassette files on disk: load with one-paragraph errors, write atomically under a lock.

Writes never leave a half-written file: the text goes to a temporary file in
the same directory, is flushed to disk, then ``os.replace`` swaps it in. Writers
of one cassette take an exclusive lock on a hidden sidecar file
(``.<name>.lock``) first, so pytest-xdist workers recording the same cassette
queue up instead of overwriting each other; each re-reads the file under the
lock before deciding what to write.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tooltape.cassettes._codec import cassette_from_data, cassette_to_data
from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._model import Cassette
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._yaml import dump_yaml, load_yaml

__all__ = ["cassette_lock", "cassette_text", "load_cassette", "save_cassette", "write_atomically"]


def load_cassette(path: str | Path) -> Cassette:
    """Read a cassette file (tooltape's or any vcrpy YAML cassette).

    Raises:
        CassetteError: The file is missing, unreadable, not UTF-8, not YAML, or not a
            cassette with interactions; one paragraph naming the file and the field.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CassetteError(
            f"{path}: no such cassette; record it first (record_mode='once')"
        ) from None
    except OSError as error:
        raise CassetteError(f"{path}: cannot read the cassette ({error.strerror})") from None
    return parse_cassette(raw, path)


def parse_cassette(raw: bytes, path: Path | None = None) -> Cassette:
    """A cassette from the bytes of its file (see :func:`load_cassette`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CassetteError(
            f"{path or '<cassette>'}: not UTF-8 text (invalid byte at offset {error.start}); "
            "a YAML cassette is text, binary bodies go in !!binary base64"
        ) from None
    return cassette_from_data(load_yaml(text, path), path)


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


@contextlib.contextmanager
def cassette_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``.<name>.lock`` beside ``path`` (blocks until free)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(f".{path.name}.lock")
    with open(lock_path, "a+b") as handle:
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


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def encode_checked(cassette: Cassette, scrubber: Scrubber | None, path: Path) -> bytes:
    """The file bytes, secrets swept; refuse when a removed secret is still in them.

    Raises:
        CassetteError: A secret survived the sweep (nothing is written).
    """
    if scrubber is not None:
        cassette = scrubber.sweep(cassette)
    data = cassette_text(cassette).encode("utf-8")
    leaked = scrubber.leaked(data) if scrubber is not None else []
    if leaked:
        raise CassetteError(
            f"{path}: not written: removed secret(s) {', '.join(leaked)} still appear in the "
            "cassette (encoded differently); add the field to the scrubber"
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
        CassetteError: The file exists and ``overwrite`` is false, or a secret would be written.
    """
    path = Path(path)
    data = encode_checked(cassette, scrubber, path)
    with cassette_lock(path):
        if path.exists() and not overwrite:
            raise CassetteError(
                f"{path}: the cassette exists and is kept; pass overwrite=True to replace it"
            )
        write_atomically(path, data)
    return path
