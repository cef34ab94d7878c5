"""Quirks of what real streams carry besides the calls: idle messages and other spellings.

Both are lossless: langchain-core merges the stream back to the plan. They exist
so the fuzzer draws what models send (text, reasoning, keep-alive and usage
messages between fragments; JSON spelled compactly, across lines, with
exponents, keys in another order or a key twice) and not only what
``json.dumps`` writes.
"""

from __future__ import annotations

import json
from random import Random
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from tooltape.harness._quirks import Quirk, Stage, evidence

if TYPE_CHECKING:
    from tooltape.harness._engine import Draft

__all__ = ["IdleMessages", "RespellArgs"]

Spelling = Literal["compact", "newlines", "reversed_keys", "exponents", "duplicate_key"]
SPELLINGS: tuple[Spelling, ...] = (
    "compact",
    "newlines",
    "reversed_keys",
    "exponents",
    "duplicate_key",
)


@evidence(
    "Usage and content chunks (OpenAI), ping events (Anthropic) between tool-call fragments",
    "https://platform.openai.com/docs/api-reference/chat-streaming",
    "https://docs.anthropic.com/en/docs/build-with-claude/streaming",
)
class IdleMessages(
    Quirk, kind="idle_messages", stage=Stage.LATE, priority=10, needs={"idle_messages"}
):
    # priority: after every other LATE quirk: it only adds messages
    """Streamed messages that carry no tool-call chunk between (and around) the fragments.

    Real streams put text, reasoning, keep-alive, usage and empty deltas there; a
    merger sees each as a message with an empty ``tool_call_chunks`` list.
    """

    count: int = Field(default=1, ge=1)
    """How many idle messages to insert, each at a random place."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Insert ``count`` empty messages anywhere in the stream."""
        for _ in range(self.count):
            draft.messages.insert(rng.randint(0, len(draft.messages)), [])


def _spell(value: Any, style: Spelling, ascii_only: bool) -> str:
    if isinstance(value, float) and style == "exponents":
        return format(value, ".16E")  # 17 significant digits: reads back as the same float
    if isinstance(value, dict):
        items = list(value.items())
        if style == "reversed_keys":
            items.reverse()
        colon, comma = (":", ",") if style == "compact" else (": ", ", ")
        if style == "newlines":
            comma = ",\n"
        members = (
            json.dumps(k, ensure_ascii=ascii_only) + colon + _spell(v, style, ascii_only)
            for k, v in items
        )
        return "{" + comma.join(members) + "}"
    if isinstance(value, list):
        comma = "," if style == "compact" else ", "
        return "[" + comma.join(_spell(v, style, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


@evidence(
    "Any JSON spelling of the same object (RFC 8259 sections 2, 4 and 6)",
    "https://www.rfc-editor.org/rfc/rfc8259",
)
class RespellArgs(
    Quirk, kind="respell_args", stage=Stage.TEXT, priority=1, needs={"respelled_args"}
):
    # priority: after ascii_escapes and empty_args re-render the text
    """Spell each call's argument JSON another way; it reads back as the same object.

    ``compact`` (no spaces), ``newlines`` (a member a line), ``reversed_keys``,
    ``exponents`` (every float as ``3.1415926535897931E+00``) or
    ``duplicate_key`` (the first key twice, the first time with another value:
    JSON parsers keep the last). Only text the plan's arguments rendered is
    respelled; arguments another quirk replaced or cut stay as they are.
    """

    style: Spelling = "compact"

    def apply(self, draft: Draft, rng: Random) -> None:
        """Respell every call's argument text that is still the plan's rendering."""
        for position, text in enumerate(draft.texts):
            args = draft.plan.calls[position].args
            ascii_only = text.isascii()
            if not text or text != json.dumps(args, ensure_ascii=ascii_only):
                continue
            spelled = _spell(args, self.style, ascii_only)
            if self.style == "duplicate_key" and args:
                first = json.dumps(next(iter(args)), ensure_ascii=ascii_only)
                spelled = "{" + first + ': "(overwritten)", ' + spelled[1:]
            draft.texts[position] = spelled
