"""Every quirk class of tooltape.fake_providers: the dialects' EVENTS quirks and the WIRE quirks.

Users name quirks by kind (``dialect.render(plan, ["ping_events", {"kind":
"split_reads", "size": 3}])``); this module is for those who want the classes,
as ``hypothesis.strategies`` holds the strategies::

    from tooltape.fake_providers import quirks

    dialect.render(plan, [quirks.AnthropicPingEvents(every=2), quirks.SplitReads(size=3)])

The tool-chunk quirks (``split_args``, ``no_index``...) live in
:mod:`tooltape.harness.quirks`. Importing this module registers every kind here with
the harness's quirk registry; the ``tooltape.quirks`` entry point names it, so
:func:`~tooltape.harness.parse_quirk` knows these kinds without an explicit import.
Which dialect takes which EVENTS quirk is declared on the dialect
(``get_dialect(name).event_quirks``).
"""

from __future__ import annotations

from tooltape.fake_providers._sse_quirks import (
    Comments,
    DataNoSpace,
    DropDone,
    ErrorEnvelope,
    LineEndings,
    MultilineData,
    NoTrailingBlank,
    RetryBlock,
    SseFields,
)
from tooltape.fake_providers.dialects.anthropic._dialect import (
    AnthropicInputOnBlockStart,
    AnthropicJsonPadding,
    AnthropicNoEmptyPartialJson,
    AnthropicNoJsonPadding,
    AnthropicPingEvents,
)
from tooltape.fake_providers.dialects.bedrock._converse import (
    BedrockNoEmptyToolInput,
    BedrockNoToolUseType,
)
from tooltape.fake_providers.dialects.gemini._quirks import (
    FinishWithLastPart,
    FinishWithoutParts,
    GeminiEventQuirk,
    GeminiModel,
    LowerFinalPromptCount,
    NoThoughtSignature,
    PartialArgs,
    SignatureOnlyPart,
)
from tooltape.fake_providers.dialects.ollama._dialect import (
    OllamaReemittedCalls,
)
from tooltape.fake_providers.dialects.openai_chat._dialect import (
    ChatEventQuirk,
    FirstCallOnRoleChunk,
    NoLogprobs,
    NoObfuscation,
    NoServiceTier,
    NoUsageChunk,
    NullContinuationFields,
    ReasoningDeltas,
    TypeOnEveryChunk,
)
from tooltape.fake_providers.dialects.openai_compatible._call_quirks import (
    ArgsOnHeader,
    CallIdFormat,
    FunctionlessEntry,
    IdInFunction,
    NoCallType,
    ThoughtSignatures,
)
from tooltape.fake_providers.dialects.openai_compatible._quirks import (
    ContentWithToolCalls,
    DuplicateFinish,
    EarlyFinishReason,
    FinishDeltaFields,
    FinishOnLastDelta,
    NoChunkId,
    NoSystemFingerprint,
    OneChunkTurn,
    RoleOnEveryDelta,
    SortedKeys,
    StopAfterToolCalls,
    UsageChunkChoice,
    UsagePlacement,
)
from tooltape.fake_providers.dialects.openai_compatible._server_quirks import (
    AzureAnnotationFrames,
    AzureContentFilter,
    GroqToolUseFailed,
    OpenRouterFields,
    ReasoningChannel,
    WriterChunks,
    XGroq,
)
from tooltape.fake_providers.dialects.openai_responses._quirks import (
    DataOnlyFrames,
    DoneSentinel,
    EncryptedReasoning,
    NoArgumentDeltas,
    NoSequenceNumber,
    OpenCallsFirst,
    ResponseFailed,
    ResponsesNoObfuscation,
)
from tooltape.fake_providers.framing import (
    CloseMidEvent,
    EventsPerRead,
    SplitReads,
    SplitUtf8,
    WireQuirk,
)

__all__ = [
    "AnthropicInputOnBlockStart",
    "AnthropicJsonPadding",
    "AnthropicNoEmptyPartialJson",
    "AnthropicNoJsonPadding",
    "AnthropicPingEvents",
    "ArgsOnHeader",
    "AzureAnnotationFrames",
    "AzureContentFilter",
    "BedrockNoEmptyToolInput",
    "BedrockNoToolUseType",
    "CallIdFormat",
    "ChatEventQuirk",
    "CloseMidEvent",
    "Comments",
    "ContentWithToolCalls",
    "DataNoSpace",
    "DataOnlyFrames",
    "DoneSentinel",
    "DropDone",
    "DuplicateFinish",
    "EarlyFinishReason",
    "EncryptedReasoning",
    "ErrorEnvelope",
    "EventsPerRead",
    "FinishDeltaFields",
    "FinishOnLastDelta",
    "FinishWithLastPart",
    "FinishWithoutParts",
    "FirstCallOnRoleChunk",
    "FunctionlessEntry",
    "GeminiEventQuirk",
    "GeminiModel",
    "GroqToolUseFailed",
    "IdInFunction",
    "LineEndings",
    "LowerFinalPromptCount",
    "MultilineData",
    "NoArgumentDeltas",
    "NoCallType",
    "NoChunkId",
    "NoLogprobs",
    "NoObfuscation",
    "NoSequenceNumber",
    "NoServiceTier",
    "NoSystemFingerprint",
    "NoThoughtSignature",
    "NoTrailingBlank",
    "NoUsageChunk",
    "NullContinuationFields",
    "OllamaReemittedCalls",
    "OneChunkTurn",
    "OpenCallsFirst",
    "OpenRouterFields",
    "PartialArgs",
    "ReasoningChannel",
    "ReasoningDeltas",
    "ResponseFailed",
    "ResponsesNoObfuscation",
    "RetryBlock",
    "RoleOnEveryDelta",
    "SignatureOnlyPart",
    "SortedKeys",
    "SplitReads",
    "SplitUtf8",
    "SseFields",
    "StopAfterToolCalls",
    "ThoughtSignatures",
    "TypeOnEveryChunk",
    "UsageChunkChoice",
    "UsagePlacement",
    "WireQuirk",
    "WriterChunks",
    "XGroq",
]
