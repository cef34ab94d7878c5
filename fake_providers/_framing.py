"""Byte-level framing: how framed events are cut into reads (wire quirks live here)."""

from __future__ import annotations

from collections.abc import Sequence

from tooltape.fake_providers._wire import Wire
from tooltape.harness import Quirk

__all__ = ["apply_wire_quirks"]


def apply_wire_quirks(
    frames: list[bytes],
    quirks: Sequence[Quirk],
    *,
    seed: int,
    headers: tuple[tuple[str, str], ...],
) -> Wire:
    """Cut frames into reads, one event per read (wire quirks are not implemented yet)."""
    return Wire(reads=tuple(frames), headers=headers)
