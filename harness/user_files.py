"""Read a user's file with bounds: a regular file, not too big, never through a link.

Every reader of a cassette, scenario, script or expectations file goes through
:func:`read_regular_file`. It refuses, before reading a byte, a symbolic link
(pointed at a ``.env`` it would show a key in an error; at ``/dev/zero`` it
would never end), a FIFO or device (a FIFO would hang the reader) and a file
bigger than ``$TOOLTAPE_MAX_CASSETTE_BYTES`` (64 MiB unless set). Its errors
name the path and what to do, and never quote the file's content.

The one link followed is one inside tooltape's own installed package (an
editable install links its data files there): the installer put it there, not
a user; the file it leads to must still be a regular file within the bound.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tooltape.harness._errors import TooltapeUsageError

__all__ = [
    "MAX_BYTES_VARIABLE",
    "max_file_bytes",
    "positive_setting",
    "read_regular_file",
    "read_text_file",
]

MAX_BYTES_VARIABLE = "TOOLTAPE_MAX_CASSETTE_BYTES"
"""The environment variable bounding the size of a file tooltape reads."""
_DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # links not resolved
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # a link swapped in after the lstat fails to open
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in opens at once instead of hanging
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def max_file_bytes(error: type[Exception] = TooltapeUsageError) -> int:
    """The size bound: ``$TOOLTAPE_MAX_CASSETTE_BYTES``, else 64 MiB.

    Raises:
        error: The variable is set but is not a positive whole number of bytes.
    """
    return positive_setting(MAX_BYTES_VARIABLE, _DEFAULT_MAX_BYTES, "bytes", error)


def positive_setting(variable: str, default: int, unit: str, error: type[Exception]) -> int:
    """``$variable`` as a positive whole number, else ``default``: a bound users may set.

    Raises:
        error: The variable is set but is not a positive whole number.
    """
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) <= 0:
        raise error(
            f"${variable}={value[:40]!r}: expected a positive number of {unit} (default {default})"
        )
    return int(value)


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, or ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kinds = [
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_regular_file(
    path: str | Path, *, what: str = "cassette", error: type[Exception] = TooltapeUsageError
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``$TOOLTAPE_MAX_CASSETTE_BYTES``.

    Args:
        path: The file.
        what: What the file is, for the messages (``cassette``, ``scenario file``, ...).
        error: The exception raised for a file tooltape will not read.

    Raises:
        FileNotFoundError: Nothing is at ``path`` (the caller says what to do).
        error: A link, a directory, FIFO, device or socket, a file over the bound, or
            one that cannot be read; the message names the path, never the content.
    """
    path = Path(path)
    limit = max_file_bytes(error)
    try:
        kind = _kind(os.lstat(path).st_mode)
        if kind == "a symbolic link" and _packaged(path):
            kind = None
            flags = _FLAGS & ~getattr(os, "O_NOFOLLOW", 0)
        else:
            flags = _FLAGS
        if kind is None:
            fd = os.open(path, flags)
            try:
                info = os.fstat(fd)
                kind = _kind(info.st_mode)
                if kind is None:
                    if info.st_size > limit:
                        raise _too_big(path, what, info.st_size, limit, error)
                    data = _read_at_most(fd, limit + 1)
                    if len(data) > limit:  # it grew after the fstat
                        raise _too_big(path, what, len(data), limit, error)
                    return data
            finally:
                os.close(fd)
    except FileNotFoundError:
        raise
    except OSError as failure:
        if failure.errno == getattr(os, "ELOOP", None) or (
            failure.errno is not None and os.path.islink(path)
        ):
            kind = "a symbolic link"
        else:
            raise error(f"{path}: cannot read the {what} ({failure.strerror})") from None
    raise error(
        f"{path}: not read: it is {kind}, and tooltape reads a {what} only from a regular "
        "file (a link could lead to a secret or a device, a FIFO would hang); put the file "
        "itself at this path"
    )


def read_text_file(
    path: str | Path, *, what: str, error: type[Exception] = TooltapeUsageError
) -> str:
    """The UTF-8 text of the regular file at ``path`` (:func:`read_regular_file`'s bounds).

    Raises:
        error: Nothing is at ``path``, the file is not UTF-8, or
            :func:`read_regular_file` refuses it; one line naming the path.
    """
    try:
        return read_regular_file(path, what=what, error=error).decode("utf-8")
    except FileNotFoundError:
        raise error(f"{path}: cannot read the {what} (no such file)") from None
    except UnicodeDecodeError as failure:
        raise error(f"{path}: not UTF-8 text (invalid byte at offset {failure.start})") from None


def _packaged(path: Path) -> bool:
    """True for a path inside tooltape's installed package (its data files)."""
    return os.path.commonpath([os.path.abspath(path), _PACKAGE]) == _PACKAGE


def _too_big(path: Path, what: str, size: int, limit: int, error: type[Exception]) -> Exception:
    return error(
        f"{path}: not read: the {what} is {size:,} bytes, over the bound of {limit:,}; "
        f"split it, or raise the bound with ${MAX_BYTES_VARIABLE}"
    )


def _read_at_most(fd: int, count: int) -> bytes:
    chunks: list[bytes] = []
    left = count
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
