"""The dialect registry: the bundled dialects, listed once, and the ones users register.

The bundled dialects and profiles are the lists in :mod:`tooltape.fake_providers.dialects`
(one line per dialect); nothing registers by being imported. A user's own dialect
joins with :func:`register_dialect`, an OpenAI-compatible server with
:func:`register_profile`. Names starting with ``_`` (a test's own dialect) resolve
but are not listed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from tooltape.harness import Quirk, parse_quirk
from tooltape.harness.name_checks import unknown_name

if TYPE_CHECKING:
    from tooltape.fake_providers._dialect import Dialect

__all__ = ["dialect_names", "get_dialect", "register_dialect", "register_profile"]

D = TypeVar("D", bound="type[Dialect]")

_Profile = tuple[str, tuple[Quirk, ...], str]
_USER_DIALECTS: dict[str, type[Dialect]] = {}
_USER_PROFILES: dict[str, _Profile] = {}


@functools.cache
def _bundled() -> tuple[dict[str, type[Dialect]], dict[str, _Profile]]:
    """The bundled dialects and profiles by name, read from the one list that names them."""
    from tooltape.fake_providers.dialects import BUNDLED_DIALECTS, BUNDLED_PROFILES

    dialects: dict[str, type[Dialect]] = {}
    for cls in BUNDLED_DIALECTS:
        _refuse_duplicate(cls.name, dialects)
        dialects[cls.name] = cls
    profiles: dict[str, _Profile] = {}
    for p in BUNDLED_PROFILES:
        _refuse_duplicate(p.name, dialects, profiles)
        profiles[p.name] = (p.base, tuple(parse_quirk(q) for q in p.quirks), p.description)
    return dialects, profiles


def _dialects() -> dict[str, type[Dialect]]:
    return {**_bundled()[0], **_USER_DIALECTS}


def _profiles() -> dict[str, _Profile]:
    return {**_bundled()[1], **_USER_PROFILES}


def _refuse_duplicate(name: str, *tables: dict[str, Any]) -> None:
    if any(name in table for table in tables):
        raise TypeError(f"dialect or profile {name!r} is registered twice")


def register_dialect(cls: D) -> D:
    """Register a dialect class under its ``name`` (usable as a class decorator).

    Example::

        @register_dialect
        class MyDialect(Dialect):
            name = "my_provider"
            ...

    Raises:
        TypeError: The class sets no ``name``, or the name is taken by a bundled or
            registered dialect or profile.
    """
    name = cls.__dict__.get("name")
    if not isinstance(name, str):
        raise TypeError(f"{cls.__name__} has no `name` of its own to register under")
    _refuse_duplicate(name, _dialects(), _profiles())
    _USER_DIALECTS[name] = cls
    return cls


def register_profile(
    name: str, base: str, quirks: Iterable[Quirk | str | dict[str, Any]], description: str
) -> None:
    """Register an OpenAI-compatible server profile: a base dialect plus quirks.

    Raises:
        TypeError: The name is taken by a dialect or profile.
    """
    _refuse_duplicate(name, _dialects(), _profiles())
    _USER_PROFILES[name] = (base, tuple(parse_quirk(q) for q in quirks), description)


def get_dialect(name: str) -> Dialect:
    """Return the dialect (or profile) registered under ``name``.

    Raises:
        TooltapeUsageError: No dialect or profile has that name; the message lists them.
    """
    dialects = _dialects()
    if name in dialects:
        return dialects[name]()
    profiles = _profiles()
    if name in profiles:
        from tooltape.fake_providers._profile import ProfileDialect

        base, quirks, description = profiles[name]
        return ProfileDialect(name, get_dialect(base), quirks, description)
    raise unknown_name(
        "dialect", name, dialect_names(profiles=True), plural="dialects and profiles"
    )


def dialect_names(*, profiles: bool = False) -> list[str]:
    """The registered dialect names, sorted (with ``profiles=True``, the profiles too).

    Names starting with ``_`` are private (a test's own dialect) and not listed.
    """
    names = {name for name in _dialects() if not name.startswith("_")}
    if profiles:
        names |= set(_profiles())
    return sorted(names)
