"""The quirk class registered for a kind, for the packages that check quirks by kind.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from tooltape.harness._quirks import _REGISTRY, Quirk, load_quirk_modules

__all__ = ["quirk_class"]


def quirk_class(kind: str) -> type[Quirk]:
    """The class of quirk ``kind`` (the harness's own or an entry-point module's).

    Raises:
        KeyError: No quirk of that kind is registered.
    """
    load_quirk_modules()
    return _REGISTRY[kind]
