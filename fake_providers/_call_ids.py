"""Provider-shaped tool-call ids for the calls whose id the plan filled in (``call_<n>``).

A real provider mints its own ids: OpenAI ``call_`` plus 24 letters and digits,
Anthropic ``toolu_01`` plus 22, Gemini 3 eight lower-case letters and digits,
and so on (``../shared/corpus``). A dialect declares its format
(:attr:`~tooltape.fake_providers.Dialect.call_id_format`) and
:func:`with_provider_ids` swaps each numbered id of the plan for one in that
format, derived from the seed and the numbered id alone, so a render is
deterministic and one plan id always becomes the same wire id. Ids the plan was
given (:attr:`~tooltape.harness.PlannedCall.id_given`) are sent unchanged, and
so are ids the quirks built from them past their prefix (``changing_id``'s
``call_0_b`` becomes ``<minted>_b``).
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable
from random import Random
from typing import Literal

from tooltape.harness import PlannedStream

__all__ = ["IdFormat", "mint_call_id", "with_provider_ids"]

IdFormat = Literal[
    "openai", "anthropic", "bedrock_invoke", "bedrock_converse", "gemini", "ollama", "cohere"
]
"""The id formats of the built-in dialects (see :data:`_FORMATS`)."""

_ALNUM = string.ascii_letters + string.digits
_LOWER = string.ascii_lowercase + string.digits
_URLSAFE = _ALNUM + "-_"


def _chars(rng: Random, alphabet: str, count: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(count))


_FORMATS: dict[str, Callable[[Random, str], str]] = {
    "openai": lambda rng, name: "call_" + _chars(rng, _ALNUM, 24),
    "anthropic": lambda rng, name: "toolu_01" + _chars(rng, _ALNUM, 22),
    "bedrock_invoke": lambda rng, name: "toolu_bdrk_01" + _chars(rng, _ALNUM, 22),
    "bedrock_converse": lambda rng, name: "tooluse_" + _chars(rng, _URLSAFE, 22),
    "gemini": lambda rng, name: _chars(rng, _LOWER, 8),
    "ollama": lambda rng, name: "call_" + _chars(rng, _LOWER, 8),
    "cohere": lambda rng, name: f"{name}_" + _chars(rng, _LOWER, 12),
}
"""Each format's minting rule, as the corpus recordings show it (QUIRKS.md §1-§5, §8, §13)."""


def mint_call_id(id_format: IdFormat, numbered: str, name: str, seed: int) -> str:
    """The wire id for the plan's numbered id ``numbered`` of a call to ``name``."""
    return _FORMATS[id_format](Random(f"{seed}:{id_format}:{numbered}"), name)


def with_provider_ids(stream: PlannedStream, id_format: IdFormat | None) -> PlannedStream:
    """``stream`` with each id the plan numbered replaced by a minted one (``None``: as is)."""
    if id_format is None:
        return stream
    minted = {
        call.id: mint_call_id(id_format, call.id, call.name, stream.seed)
        for call in stream.plan.calls
        if call.id is not None and not call.id_given
    }
    if not minted:
        return stream
    for call in stream.plan.calls:
        if call.id is not None and call.id_given:
            minted.setdefault(call.id, call.id)  # a given id maps to itself
    prefixes = sorted(minted, key=len, reverse=True)  # call_10 before call_1

    def wire_id(call_id: str | None) -> str | None:
        if not call_id:
            return call_id
        if call_id in minted:
            return minted[call_id]
        prefix = next((p for p in prefixes if call_id.startswith(p)), None)
        return call_id if prefix is None else minted[prefix] + call_id[len(prefix) :]

    messages = tuple(
        tuple(dataclasses.replace(f, id=wire_id(f.id)) for f in message)
        for message in stream.messages
    )
    return dataclasses.replace(stream, messages=messages)
