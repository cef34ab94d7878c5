"""The ``gemini`` dialect's quirks: its EVENTS quirks and which tool-chunk quirks it can say.

A Gemini call is one ``functionCall`` part whose ``args`` is a JSON object, so
only the tool-chunk quirks whose needs are in ``CARRIES`` have a Gemini shape; the
others raise :class:`~tooltape.harness.TooltapeUsageError` naming quirk, dialect
and reason. The EVENTS quirks reproduce the shapes cited on each; the last one,
:class:`PartialArgs`, also renders Vertex AI's ``partialArgs`` parts here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from random import Random
from typing import Any, Literal

from pydantic import Field

from tooltape.harness import Fragment, PlannedStream, Quirk, Stage, TooltapeUsageError, evidence

__all__ = [
    "FinishWithLastPart",
    "FinishWithoutParts",
    "GeminiEventQuirk",
    "GeminiModel",
    "LowerFinalPromptCount",
    "NoThoughtSignature",
    "PartialArgs",
    "SignatureOnlyPart",
    "EVENT_QUIRKS",
    "CARRIES",
    "LACKS",
    "check_combinations",
    "partial_parts",
]

Part = dict[str, Any]
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# --- EVENTS quirks ----------------------------------------------------------------------


class GeminiEventQuirk(Quirk, stage=Stage.EVENTS):
    """Base of the EVENTS quirks the ``gemini`` dialect understands."""


@evidence(
    "corpus recordings of gemini-2.0, 2.5 and 3.x models",
    "langchain-ai/langchain-google/pull/1811 NousResearch/hermes-agent/pull/80683",
)
class GeminiModel(GeminiEventQuirk, kind="gemini_model"):
    """Name another model in ``modelVersion`` (``gemini-2.5-flash``, ``gemini-2.0-flash``).

    langchain-google-genai keeps a Gemini 2.x turn's text as a string, while a
    Gemini 3+ turn's text becomes content blocks that share the counter of the
    tool-call indexes; the model name alone decides which.
    """

    model: str = "gemini-2.5-flash"
    """The ``modelVersion`` every frame carries."""


@evidence("gemini-2.0 and 2.5 recordings (corpus)", "envoyproxy/ai-gateway/pull/2399")
class FinishWithLastPart(GeminiEventQuirk, kind="finish_with_last_part"):
    """Put ``finishReason`` on the frame with the last part, with no final frame (2.x shape)."""


@evidence("envoyproxy/ai-gateway#2399, pydantic-ai#2631", "envoyproxy/ai-gateway/pull/2399")
class FinishWithoutParts(GeminiEventQuirk, kind="finish_without_parts"):
    """End with a frame whose candidate has ``finishReason`` and no ``content``."""


@evidence("gemini-2.0-flash and 2.5-flash-lite recordings (corpus)", "Chevey339/kelivo/pull/1002")
class NoThoughtSignature(GeminiEventQuirk, kind="no_thought_signature"):
    """Send no ``thoughtSignature`` (thinking off: gemini-2.0-flash, 2.5-flash-lite)."""


@evidence("vercel/ai#12402, strands-agents#3306, kelivo#1002", "Chevey339/kelivo/pull/1002")
class SignatureOnlyPart(GeminiEventQuirk, kind="signature_only_part"):
    """Carry the turn's ``thoughtSignature`` on a trailing part of its own.

    The part sits in the frame with ``finishReason``; with ``empty_text`` it is
    ``{"text": "", "thoughtSignature": ...}``, which langchain-google-genai turns
    into an empty text block (one more index on its counter).
    """

    empty_text: bool = True
    """Whether the part also says ``"text": ""`` (gemini-3-pro-preview's shape)."""


@evidence(
    "langchain-google-genai compensates in _response_to_result",
    "https://github.com/langchain-ai/langchain-google",
)
class LowerFinalPromptCount(GeminiEventQuirk, kind="lower_final_prompt_count"):
    """Lower the cumulative ``promptTokenCount`` on the last frame (Gemini 2.0)."""

    by: int = Field(default=7, ge=1)
    """How many prompt tokens the last frame reports fewer."""


@evidence(
    "vercel/ai#13929, vercel/ai#14358, js-genai PartialArg",
    "https://googleapis.github.io/js-genai/release_docs/interfaces/types.FunctionCall.html",
)
class PartialArgs(GeminiEventQuirk, kind="partial_args", lossless=False):
    """Vertex AI ``streamFunctionCallArguments``: stream each call's args as ``partialArgs``.

    A call opens with ``{"name", "willContinue": true}``, each argument leaf
    follows as ``{"partialArgs": [{"jsonPath", "<type>Value", "willContinue"?}],
    "willContinue": true}`` (strings in pieces), and the call closes with an empty
    ``functionCall`` (``terminal="empty_call"``) or with a last ``partialArgs``
    frame without ``willContinue`` (``"last_partial"``, seen for array args).
    A call without arguments is one ``{"name"}`` part. langchain-google-genai
    reads every part as a whole call: one call with ``{}`` plus one nameless
    ``{}`` call per continuation part.
    """

    terminal: Literal["empty_call", "last_partial"] = "empty_call"
    """How a call's last frame looks."""


EVENT_QUIRKS: tuple[type[Quirk], ...] = (GeminiEventQuirk,)
"""This dialect's EVENTS quirks: every :class:`GeminiEventQuirk`."""


_WHOLE = "a functionCall part carries the call whole: name, args object and id together"
CARRIES = frozenset({"escaped_text", "arg_pieces", "optional_id", "packing"})
"""What a Gemini stream can say (splitters are moot: a call is always whole)."""

LACKS = {
    "args_text": "args are a JSON object inside one frame, never text: they cannot be "
    "malformed, repeated or anything but an object (google-genai rejects it), and the stream "
    "cannot end inside them (end the turn with finish 'eof', or cut a frame with close_mid_event)",
    "interleaving": _WHOLE + "; parts of different calls cannot interleave",
    "name_fragments": _WHOLE,
    "id_fragments": _WHOLE,
    "optional_index": "functionCall parts never carry an index (the adapter numbers them)",
    "index_field": "functionCall parts carry no index; text or reasoning before the calls "
    "shifts the adapter's numbering on Gemini 3 models",
}


def check_combinations(stream: PlannedStream, quirks: Sequence[Quirk]) -> None:
    """Raise for a pair of quirks that this wire cannot say together."""
    kinds = {q.kind for q in quirks} | {q.kind for q in stream.quirks}
    for pair in (
        ("finish_with_last_part", "finish_without_parts"),
        ("finish_without_parts", "signature_only_part"),
        ("partial_args", "pack_fragments"),
    ):
        if set(pair) <= kinds:
            raise TooltapeUsageError(
                f"quirks {pair[0]} and {pair[1]} cannot be combined in dialect gemini"
            )


# --- partial_args (Vertex AI) -----------------------------------------------------------


def partial_parts(
    header: Fragment, args: dict[str, Any] | None, quirk: PartialArgs, rng: Random
) -> list[Part]:
    """The parts of one call streamed as Vertex ``partialArgs`` (see :class:`PartialArgs`).

    ``rng`` picks where string values are cut (at most three pieces each).
    """
    opening: dict[str, Any] = {"name": header.name}
    if header.id is not None:
        opening["id"] = header.id
    entries = _partial_entries(args, "$", rng) if args else []
    if not entries:
        return [{"functionCall": opening}]
    parts: list[Part] = [{"functionCall": {**opening, "willContinue": True}}]
    parts += [{"functionCall": {"partialArgs": [e], "willContinue": True}} for e in entries]
    if quirk.terminal == "empty_call":
        parts.append({"functionCall": {}})
    else:
        del parts[-1]["functionCall"]["willContinue"]
    return parts


def _partial_entries(value: Any, path: str, rng: Random) -> list[dict[str, Any]]:
    if isinstance(value, dict | list):
        if not value:
            raise TooltapeUsageError(
                f"quirk partial_args cannot stream the empty container at {path}: "
                "PartialArg values are scalars"
            )
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return [e for key, item in items for e in _partial_entries(item, _path(path, key), rng)]
    if isinstance(value, str):
        cuts = sorted(rng.sample(range(1, len(value)), min(2, len(value) - 1))) if value else []
        pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
        entries = [{"jsonPath": path, "stringValue": p, "willContinue": True} for p in pieces]
        del entries[-1]["willContinue"]
        return entries
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    if isinstance(value, bool):
        return [{"jsonPath": path, "boolValue": value}]
    return [{"jsonPath": path, "numberValue": value}]


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{parent}.{key}"
    quoted = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{parent}['{quoted}']"  # RFC 9535 bracket notation
