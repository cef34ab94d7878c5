"""Deterministic stand-ins for the random ``uuid4()`` ids some adapters mint.

ChatOllama, ChatCohere's SDK and ChatMistralAI give a call that has no usable id
a fresh ``uuid4()``; a dialect's ``parse`` cannot reproduce a random value, so it
mints uuid4-shaped ids derived from the body and the count instead: the same
body always parses to the same ids, distinct within it.
"""

from __future__ import annotations

import hashlib
import uuid

__all__ = ["StandInUuids"]


class StandInUuids:
    """The stand-in uuid4s for one body, in the order they are asked for."""

    def __init__(self, body: bytes) -> None:
        self.digest = hashlib.sha256(body).digest()
        self.count = 0

    def __call__(self) -> uuid.UUID:
        """The next stand-in."""
        self.count += 1
        seed = hashlib.sha256(self.digest + self.count.to_bytes(4, "big")).digest()
        return uuid.UUID(bytes=seed[:16], version=4)
