"""Provider-shaped tool-call ids for the calls whose id the plan filled in (``call_<n>``).

A real provider mints its own ids: OpenAI ``call_`` plus 24 letters and digits,
Anthropic ``toolu_01`` plus 22, Gemini 3 eight lower-case letters and digits,
and so on (``../shared/corpus``). A dialect declares its format
(:attr:`~tooltape.fake_providers.Dialect.call_id_format`, an :class:`IdShape`) and
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
from random import Random

from tooltape.harness import PlannedStream

__all__ = ["ALNUM", "LOWER_ALNUM", "URLSAFE", "IdShape", "mint_call_id", "with_provider_ids"]

ALNUM = string.ascii_letters + string.digits
"""Letters and digits (OpenAI, Anthropic, Mistral ids)."""
LOWER_ALNUM = string.ascii_lowercase + string.digits
"""Lower-case letters and digits (Gemini, Ollama, Cohere ids)."""
URLSAFE = ALNUM + "-_"
"""Letters, digits, ``-`` and ``_`` (Bedrock Converse ids)."""


@dataclasses.dataclass(frozen=True)
class IdShape:
    """How a provider mints tool-call ids: ``prefix`` then ``length`` characters of ``alphabet``.

    A dialect declares its own (:attr:`~tooltape.fake_providers.Dialect.call_id_format`),
    from what its provider's recordings show. ``name_prefix`` puts the tool's name
    and ``_`` first (Cohere). ``label`` keys the minting, so two dialects with
    one label mint the same id for the same plan and seed.
    """

    label: str
    prefix: str
    alphabet: str
    length: int
    name_prefix: bool = False

    def mint(self, rng: Random, name: str) -> str:
        """One id for a call to ``name``, drawn from ``rng``."""
        head = f"{name}_" if self.name_prefix else self.prefix
        return head + "".join(rng.choice(self.alphabet) for _ in range(self.length))


def mint_call_id(shape: IdShape, numbered: str, name: str, seed: int) -> str:
    """The wire id for the plan's numbered id ``numbered`` of a call to ``name``."""
    return shape.mint(Random(f"{seed}:{shape.label}:{numbered}"), name)


def with_provider_ids(stream: PlannedStream, id_format: IdShape | None) -> PlannedStream:
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
