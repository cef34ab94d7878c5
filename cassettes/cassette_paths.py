"""Cassette file names: confined to their folder, distinct for distinct tests.

A name a user or a data file gives (a marker's name, a parametrize id, a
corpus record's ``provider``) becomes a path inside the cassette folder or is
refused: no absolute path, no ``..``, no drive. A test's own name is made
file-safe the way pytest-recording does it, and when making it safe changed
it, a short hash of the original is added, so ids such as ``a b``, ``a_b``,
``a/b`` and ``a?b`` get four different files.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from tooltape.cassettes._errors import CassetteError

__all__ = ["confined_path", "safe_file_name"]

_UNSAFE = re.compile(r"[^\w.-]+")
_MAX_NAME = 100


def _digest(text: str, length: int = 8) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def safe_file_name(test_name: str, suffix: str = ".yaml") -> str:
    """A file name for a test's cassette, distinct for distinct test names.

    ``test_x[id]`` becomes ``test_x_id``; characters other than letters, digits,
    ``_``, ``.`` and ``-`` become ``_``, and then an 8-character hash of the
    original name is appended so that two names made alike stay apart. Names
    longer than 100 characters are cut and hashed.
    """
    base, bracket, rest = test_name.partition("[")
    readable = f"{base}_{rest[:-1]}" if bracket and rest.endswith("]") else test_name
    name = _UNSAFE.sub("_", readable).strip("_.") or "cassette"
    if name != readable:
        name = f"{name}-{_digest(test_name)}"
    if len(name) > _MAX_NAME:
        name = f"{name[: _MAX_NAME - 13]}_{_digest(test_name, 12)}"
    return name + suffix


def confined_path(folder: Path, name: str, what: str) -> Path:
    """``folder / name``, refused unless it stays inside ``folder``.

    Args:
        folder: The cassette folder.
        name: A relative name, sub-folders allowed (``group/name.yaml``).
        what: Where the name came from, for the message.

    Raises:
        CassetteError: An empty, absolute or drive name, or one with a ``..`` part.
    """
    shown = repr(name[:80] + ("…" if len(name) > 80 else ""))
    problem = None
    if not name or "\x00" in name:
        problem = "is empty or holds a NUL byte"
    elif PurePosixPath(name).is_absolute() or PureWindowsPath(name).drive or name[0] in "/\\":
        problem = "is an absolute path"
    elif ".." in re.split(r"[/\\]", name):
        problem = "climbs out with '..'"
    if problem is None:
        target = (folder / name).resolve()
        if not target.is_relative_to(folder.resolve()):
            problem = "leads outside the folder (through a symbolic link)"
    if problem is not None:
        raise CassetteError(
            f"{what} {shown} {problem}; a cassette name must stay inside {folder} "
            "(use a relative name such as 'group/name')"
        )
    return folder / name
