"""EVENTS quirks of OpenAI-compatible servers that rewrite ``tool_calls`` entries.

What a merger sees (names, ids, indexes, argument pieces) is the tool-chunk
quirks' job (:mod:`tooltape.harness`); these quirks only cover entry shapes that
the ``openai_chat`` wire can carry but the tool-chunk stream cannot describe:
provider id formats, missing ``type``, an id nested in ``function``, the first
argument piece riding on the header, and entries with no ``function`` at all.
Like every profile quirk they run after the dialect built its chunks (see
:mod:`~tooltape.fake_providers.dialects.openai_compatible._quirks`).
"""

from __future__ import annotations

import copy
import itertools
import re
from random import Random
from typing import Any, Literal

from tooltape.fake_providers._dialect import ProviderEvent
from tooltape.fake_providers.dialects.openai_chat._dialect import ChatEventQuirk
from tooltape.fake_providers.dialects.openai_compatible._events import (
    chunk_at,
    chunk_positions,
    chunks_of,
    delta_of,
    entries_of,
    insert_after,
    random_text,
)
from tooltape.harness import PlannedStream, evidence

__all__ = [
    "ArgsOnHeader",
    "CallIdFormat",
    "FunctionlessEntry",
    "IdInFunction",
    "NoCallType",
    "ThoughtSignatures",
]

_Events = list[ProviderEvent]

_ID_PATTERNS = {
    "deepseek": re.compile(r"call_\d{2}_[A-Za-z0-9]{24}"),
    "mistral": re.compile(r"[A-Za-z0-9]{9}"),
    "kimi": re.compile(r"functions\.[^:]+:\d+"),
    "sglang": re.compile(r"\d+"),
    "ollama": re.compile(r"call_[a-z0-9]{8}"),
    "xai": re.compile(r"call_\d{8}"),
    "vllm": re.compile(r"chatcmpl-tool-[0-9a-f]{32}"),
}
_COSMETIC = ("deepseek", "mistral", "ollama", "xai", "vllm")
"""Styles that only change how an id looks: an id the plan was given is kept."""


def _all_entries(events: _Events) -> list[dict[str, Any]]:
    return [entry for chunk in chunks_of(events) for entry in entries_of(chunk)]


@evidence(
    "DeepSeek, Mistral, SGLang/kimi_k2 (sglang #9606)",
    "agno-agi/agno#8879 mistralai/client-js#69 microsoft/semantic-kernel#6316",
    "vllm-project/vllm#9693",
)
class CallIdFormat(ChatEventQuirk, kind="call_id_format", priority=10):
    """Send call ids in a provider's own format instead of the plan's.

    ``deepseek``: ``call_00_`` plus 24 letters and digits (corpus);
    ``mistral``: 9 letters and digits (https://github.com/mistralai/client-js/issues/69); ``kimi``:
    ``functions.<name>:<n>`` (Kimi K2 on Moonshot, vLLM and SGLang ``kimi_k2``
    parsers); ``sglang``: ``"0"``, ``"1"``...
    (https://github.com/vllm-project/vllm/issues/9693); ``ollama``: ``call_`` plus
    8 lower-case letters and digits (corpus); ``xai``: ``call_`` plus 8 digits
    (corpus); ``vllm``: ``chatcmpl-tool-`` plus 32 hex digits (vLLM, Writer,
    corpus). A plan id already in the format is sent unchanged, and so is, in
    the styles that only change the look (all but ``kimi`` and ``sglang``), an
    id the plan was given; any other id is replaced by one derived from it and
    the seed (the same wire id every time that plan id appears).
    """

    style: Literal["deepseek", "mistral", "kimi", "sglang", "ollama", "xai", "vllm"]
    """Which provider's format."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Map every id on the wire, in order of first appearance."""
        minted: dict[str, str] = {}
        given = {c.id for c in stream.plan.calls if c.id_given} if self.style in _COSMETIC else ()
        for entry in _all_entries(events):
            call_id = entry.get("id")
            if not isinstance(call_id, str) or not call_id:
                continue
            if call_id not in minted:
                name = (entry.get("function") or {}).get("name") or _planned_name(
                    stream, len(minted)
                )
                wire_id = self.wire_id(call_id, len(minted), name, stream.seed)
                minted[call_id] = call_id if call_id in given else wire_id
            entry["id"] = minted[call_id]
        return events

    def wire_id(self, call_id: str, position: int, name: str, seed: int = 0) -> str:
        """The id sent for ``call_id``, the ``position``-th distinct id of the turn."""
        if _ID_PATTERNS[self.style].fullmatch(call_id):
            return call_id
        rng = Random(f"{seed}:{self.kind}:{call_id}")
        if self.style == "deepseek":
            return f"call_{position:02d}_{random_text(rng, 24)}"
        if self.style == "mistral":
            return random_text(rng, 9)
        if self.style == "ollama":
            return "call_" + "".join(
                rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)
            )
        if self.style == "xai":
            return "call_" + "".join(rng.choice("0123456789") for _ in range(8))
        if self.style == "vllm":
            return "chatcmpl-tool-" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
        if self.style == "kimi":
            return f"functions.{name}:{position}"
        return str(position)


def _planned_name(stream: PlannedStream, position: int) -> str:
    calls = stream.plan.calls
    return calls[position].name if position < len(calls) else "tool"


@evidence(
    "Mistral (corpus: magentic and openinference recordings)", "microsoft/semantic-kernel#6316"
)
class NoCallType(ChatEventQuirk, kind="no_call_type", priority=12):
    """Leave ``type`` out of every tool-call entry (Mistral, corpus)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Drop the key."""
        for entry in _all_entries(events):
            entry.pop("type", None)
        return events


@evidence("llama.cpp (ggml-org/llama.cpp #12379, fixed by #13800)", "ggml-org/llama.cpp/pull/12379")
class IdInFunction(ChatEventQuirk, kind="id_in_function", priority=12, lossless=False):
    """Nest the call id inside ``function`` (llama.cpp before ggml-org/llama.cpp#13800).

    The openai SDK and ChatOpenAI never look there: every call arrives without an id.
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Move each entry's id into its ``function``."""
        for entry in _all_entries(events):
            call_id = entry.pop("id", None)
            entry.pop("type", None)
            if call_id and isinstance(entry.get("function"), dict):
                function = entry["function"]
                entry["function"] = {"name": function.pop("name", None), "id": call_id, **function}
        return events


@evidence(
    "llama.cpp (ggml-org/llama.cpp #22722)",
    "ggml-org/llama.cpp#22722 ggml-org/llama.cpp/pull/12379",
)
class ArgsOnHeader(ChatEventQuirk, kind="args_on_header", priority=12):
    """Send the first argument piece on the header entry, beside id, type and name.

    llama.cpp's header chunk already carries the opening ``{``; clients that
    drop the header's ``arguments`` lose it.
    """

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Fold each header's next argument chunk into the header."""
        folded: set[int] = set()
        positions = list(chunk_positions(events))
        for here, there in itertools.pairwise(positions):
            header, piece = (
                _lone_entry(chunk_at(events, here)),
                _lone_entry(chunk_at(events, there)),
            )
            if header is None or piece is None or here in folded:
                continue
            function, following = header.get("function") or {}, piece.get("function") or {}
            opens = header.get("id") and function.get("name") and function.get("arguments") == ""
            continues = not piece.get("id") and not following.get("name")
            if opens and continues and piece.get("index") == header.get("index"):
                function["arguments"] = following.get("arguments") or ""
                folded.add(there)
        return [e for p, e in enumerate(events) if p not in folded]


def _lone_entry(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The entry of a chunk whose delta holds exactly one tool-call entry and nothing else."""
    delta = delta_of(chunk) or {}
    entries = entries_of(chunk)
    return entries[0] if len(entries) == 1 and set(delta) == {"tool_calls"} else None


_FUNCTIONLESS: dict[str, dict[str, Any]] = {
    "lmstudio": {"id": "", "type": "function"},
    "vllm": {"index": 0},
    "gemini": {"extra_content": {"google": {"thought_signature": "c2lnbmF0dXJl"}}},
}


@evidence(
    "LM Studio, vLLM, Gemini compat",
    "lmstudio-ai/lmstudio-bug-tracker#830 lmstudio-ai/lmstudio-bug-tracker#649",
    "vllm-project/vllm#54701 vllm-project/vllm#9693 open-webui/computer#224",
    "THU-MAIC/OpenMAIC#1556",
)
class FunctionlessEntry(ChatEventQuirk, kind="functionless_entry", priority=47, lossless=False):
    # priority: after one_chunk_turn: the entry comes in a chunk of its own
    """Send one more ``tool_calls`` entry with no ``function`` after the calls.

    ``lmstudio``: ``{"id": "", "type": "function"}``
    (https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/830); ``vllm``:
    ``{"index": 0}`` (https://github.com/vllm-project/vllm/issues/54701);
    ``gemini``: a thought-signature-only entry
    (https://github.com/open-webui/computer/issues/224).
    ChatOpenAI raises ``AttributeError: 'NoneType' object has no attribute 'get'``.
    """

    variant: Literal["lmstudio", "vllm", "gemini"] = "lmstudio"
    """Which server's entry."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Insert a chunk holding the entry after the last tool-call chunk."""
        with_calls = [p for p in chunk_positions(events) if entries_of(chunk_at(events, p))]
        if not with_calls:
            return events
        extra = copy.deepcopy(chunk_at(events, with_calls[-1]))
        extra["choices"] = extra["choices"][:1]
        extra["choices"][0]["delta"] = {"tool_calls": [dict(_FUNCTIONLESS[self.variant])]}
        extra["choices"][0]["finish_reason"] = None
        if extra.get("usage") is not None:
            del extra["usage"]  # the usage stays on the chunk that carried it
        return insert_after(events, with_calls[-1], extra)


@evidence("Gemini OpenAI-compatible (thinking models)", "THU-MAIC/OpenMAIC#1556")
class ThoughtSignatures(ChatEventQuirk, kind="thought_signatures", priority=15):
    """Attach ``extra_content.google.thought_signature`` to every named call entry (https://github.com/THU-MAIC/OpenMAIC/issues/1556)."""

    def rewrite_events(self, events: _Events, stream: PlannedStream) -> _Events:
        """Add a seeded opaque signature per call."""
        rng = Random(f"{stream.seed}:{self.kind}")
        for entry in _all_entries(events):
            if (entry.get("function") or {}).get("name"):
                signature = random_text(rng, 40)
                entry["extra_content"] = {"google": {"thought_signature": signature}}
        return events
