"""The record modes: one definition, read by the cassette session and the pytest plugin.

Its own module with nothing but the standard library, so the plugin can check a
``--tooltape-record-mode`` value without importing the recorder.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["RECORD_MODES", "RecordMode"]

RecordMode = Literal["none", "once", "new_episodes", "all"]
"""``none`` replays only; ``once`` records a cassette that does not exist yet; ``new_episodes``
records what no recording matches; ``all`` re-records every request it sees."""

RECORD_MODES: tuple[str, ...] = get_args(RecordMode)
"""Every :data:`RecordMode`, in order."""
