"""Quirks by kind for the packages that check them: a kind's class, a wire quirk from a spec.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from typing import Any

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._quirks import _REGISTRY, Quirk, Stage, load_quirk_modules, parse_quirk

__all__ = ["quirk_class", "wire_quirk"]


def quirk_class(kind: str) -> type[Quirk]:
    """The class of quirk ``kind`` (the harness's own or an entry-point module's).

    Raises:
        KeyError: No quirk of that kind is registered.
    """
    load_quirk_modules()
    return _REGISTRY[kind]


def wire_quirk(value: Quirk | str | dict[str, Any], where: str, advice: str) -> Quirk:
    """``value`` as a quirk that re-frames bytes (a WIRE quirk), for ``where`` to apply.

    Raises:
        TooltapeUsageError: ``value`` is no quirk, or one of another stage (it changes
            the tool-call stream, not its framing: the message ends with ``advice``).
        pydantic.ValidationError: The quirk's parameters are wrong.
    """
    quirk = parse_quirk(value)
    if quirk.stage is not Stage.WIRE:
        raise TooltapeUsageError(
            f"{where} takes wire (framing) quirks; {quirk.kind!r} acts at the "
            f"{quirk.stage.name.lower()} stage, on the tool-call stream itself: {advice}"
        )
    return quirk
