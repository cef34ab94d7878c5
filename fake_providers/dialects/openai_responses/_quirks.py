"""Quirks of the Responses dialect: its own EVENTS quirks, and which tool-chunk quirks it refuses.

The Responses wire sends a call's name and ``call_id`` once, on the
``function_call`` item, and has no chunk index at all (langchain-openai
derives one from ``output_index`` changes). Tool-chunk quirks that edit the
index, the name or the id of single chunks, or pack chunks into one message,
have nothing to act on; the dialect says why in :data:`LACKS`,
and the base class rejects them with a :class:`TooltapeUsageError` naming the
quirk and the dialect rather than render a stream that silently ignores them.
"""

from __future__ import annotations

from tooltape.harness import Quirk, Stage, evidence

__all__ = [
    "DataOnlyFrames",
    "DoneSentinel",
    "EncryptedReasoning",
    "ResponsesEventQuirk",
    "CARRIES",
    "LACKS",
    "NoArgumentDeltas",
    "NoSequenceNumber",
    "OpenCallsFirst",
    "ResponseFailed",
    "ResponsesNoObfuscation",
]

DIALECT = "openai_responses"

_NO_INDEX = "the wire has no index; langchain-openai derives it from output_index changes"
CARRIES = frozenset({"escaped_text", "args_text", "arg_pieces", "interleaving", "optional_id"})
"""What the Responses wire can say: argument text in pieces, several items open, no call_id."""

LACKS = {
    "name_fragments": "the name travels once, whole, on the function_call item "
    "(output_item.added), before any argument delta",
    "id_fragments": "call_id travels once, on the function_call item, before any argument "
    "delta; argument deltas carry the item id, never the call_id",
    "optional_index": _NO_INDEX,
    "index_field": _NO_INDEX,
    "packing": "every event becomes its own message; events cannot be packed",
}
"""Why this wire lacks the other capabilities."""


class ResponsesEventQuirk(Quirk, stage=Stage.EVENTS):
    """Base of this dialect's EVENTS quirks; any other EVENTS quirk is refused."""


@evidence("codex-spark class models, litellm and sub2api bridges", "BerriAI/litellm#27144")
class NoArgumentDeltas(ResponsesEventQuirk, kind="no_argument_deltas", lossless=False):
    """Send no ``function_call_arguments.delta``: the arguments arrive only in ``.done``.

    langchain-openai up to 1.7 reads function-call arguments from
    ``output_item.added`` and the deltas only, so every call merges with ``{}``
    arguments; 1.8.1 and later stream what ``.done`` completes, and recover them.
    """


@evidence("OmniRoute dispatches, langchain #32562 and #34311", "diegosouzapw/OmniRoute/pull/11144")
class OpenCallsFirst(ResponsesEventQuirk, kind="open_calls_first", lossless=False):
    """Open every function_call item before any of them receives arguments.

    langchain-openai starts a new chunk index whenever ``output_index`` changes,
    so each call splits into a named call with ``{}`` arguments and a nameless,
    id-less half holding the real arguments.
    """


@evidence(
    "OpenAI Responses streaming reference",
    "https://platform.openai.com/docs/api-reference/responses-streaming",
)
class ResponseFailed(ResponsesEventQuirk, kind="response_failed"):
    """End an ``error`` finish with ``response.failed`` instead of an ``error`` event."""


@evidence("corpus: pydantic-ai gpt-5.5 and Bedrock Mantle recordings")
class EncryptedReasoning(ResponsesEventQuirk, kind="encrypted_reasoning"):
    """Stream the reasoning item without summary events, as ``encrypted_content`` only.

    What reasoning models send when no ``reasoning.summary`` is requested: an
    ``output_item.added``/``.done`` pair and nothing in between.
    """


@evidence("corpus: dd-trace-py and pydantic-ai gpt-4.1/gpt-4o recordings")
class NoSequenceNumber(ResponsesEventQuirk, kind="no_sequence_number"):
    """Leave ``sequence_number`` out of every event, as OpenAI did until mid-2025."""


@evidence("corpus: DeepSeek and OpenRouter Responses recordings")
class ResponsesNoObfuscation(ResponsesEventQuirk, kind="responses_no_obfuscation"):
    """Leave the ``obfuscation`` padding off delta events (``include_obfuscation: false``)."""


@evidence(
    "corpus: OpenRouter /responses recording",
    "https://platform.claude.com/docs/build-with-claude/streaming",
)
class DataOnlyFrames(ResponsesEventQuirk, kind="responses_data_only"):
    """Send ``data:`` lines only, without the ``event:`` line (OpenRouter)."""


@evidence("corpus: OpenRouter /responses recording", "looplj/axonhub/pull/2259")
class DoneSentinel(ResponsesEventQuirk, kind="responses_done_sentinel"):
    """Send ``data: [DONE]`` after the terminal event, as Chat Completions does (OpenRouter)."""
