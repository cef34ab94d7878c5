"""tooltape.fake_providers: provider dialects and the transports that serve them.

A dialect (``get_dialect("openai_chat")``) renders a plan plus quirks to the exact
bytes a provider streams, parses bytes back to the deltas that provider's
LangChain adapter yields, and validates request histories with the provider's
real errors. A :class:`FakeProvider` scripts turns of one dialect; transports
serve providers to httpx2 clients (the official SDKs), httpx clients (respx) and
any client over a real server on 127.0.0.1.

Quirks are named by kind in ``render(..., quirks=[...])``; importing this package
registers every dialect's EVENTS quirks and the WIRE (framing) quirks.
"""

from tooltape.fake_providers._asgi import FakeProviderApp
from tooltape.fake_providers._chat_model import (
    FakeHistoryRejected,
    FakeStreamError,
    FakeToolStreamingModel,
    ScriptedTurn,
)
from tooltape.fake_providers._dialect import (
    Dialect,
    ProviderEvent,
    dialect_names,
    get_dialect,
    register_profile,
)
from tooltape.fake_providers._differential import (
    AccumulatorResult,
    DifferentialRow,
    dialects_without_accumulators,
    differential,
    differential_dialects,
    differential_table,
    render_differential,
)
from tooltape.fake_providers._framing import (
    PEER_CLOSED,
    AbortedWire,
    CloseMidEvent,
    EventsPerRead,
    SplitReads,
    SplitUtf8,
    WireQuirk,
    apply_wire_quirks,
)
from tooltape.fake_providers._httpx2_transport import FakeTransport, patch_httpx2
from tooltape.fake_providers._limits import ServerLimits
from tooltape.fake_providers._profile import ProfileDialect
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter, Turn, json_wire
from tooltape.fake_providers._respx import add_respx_routes, patch_httpx
from tooltape.fake_providers._server import serve_in_thread
from tooltape.fake_providers._sse import (
    SSEEvent,
    decode_ndjson,
    decode_sse,
    encode_ndjson,
    encode_sse,
)
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
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.dialects.anthropic._dialect import (
    AnthropicInputOnBlockStart,
    AnthropicJsonPadding,
    AnthropicMessagesDialect,
    AnthropicNoEmptyPartialJson,
    AnthropicPingEvents,
)
from tooltape.fake_providers.dialects.bedrock._converse import (
    BedrockConverseDialect,
    BedrockNoEmptyToolInput,
    BedrockNoToolUseType,
    bedrock_exception_wire,
)
from tooltape.fake_providers.dialects.bedrock._eventstream import (
    EVENTSTREAM_MEDIA_TYPE,
    EventStreamMessage,
    InvalidEventStream,
    decode_eventstream,
    encode_eventstream_message,
    iter_eventstream,
)
from tooltape.fake_providers.dialects.bedrock._invoke import BedrockInvokeDialect
from tooltape.fake_providers.dialects.bedrock._validate import bedrock_error_wire
from tooltape.fake_providers.dialects.cohere._dialect import CohereV2Dialect
from tooltape.fake_providers.dialects.cohere._parse import CohereStreamReading, read_cohere_stream
from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect
from tooltape.fake_providers.dialects.gemini._parse import GeminiStreamReading, read_gemini_stream
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
from tooltape.fake_providers.dialects.ollama._dialect import OllamaDialect, OllamaReemittedCalls
from tooltape.fake_providers.dialects.ollama._parse import OllamaStreamReading, read_ollama_stream
from tooltape.fake_providers.dialects.openai_chat._dialect import (
    ChatStreamReading,
    FirstCallOnRoleChunk,
    NoLogprobs,
    NoObfuscation,
    NoServiceTier,
    NoUsageChunk,
    NullContinuationFields,
    OpenAIChatDialect,
    ReasoningDeltas,
    TypeOnEveryChunk,
    read_chat_stream,
)
from tooltape.fake_providers.dialects.openai_compatible._call_quirks import (
    ArgsOnHeader,
    CallIdFormat,
    FunctionlessEntry,
    IdInFunction,
    NoCallType,
    ThoughtSignatures,
)
from tooltape.fake_providers.dialects.openai_compatible._profiles import (
    PROFILES,
    Profile,
    corpus_claims,
    profile_base_url,
    profile_table,
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
from tooltape.fake_providers.dialects.openai_responses._dialect import OpenAIResponsesDialect
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

__all__ = [
    "AbortedWire",
    "AccumulatorResult",
    "AnthropicInputOnBlockStart",
    "AnthropicJsonPadding",
    "AnthropicMessagesDialect",
    "AnthropicNoEmptyPartialJson",
    "AnthropicPingEvents",
    "ArgsOnHeader",
    "AzureAnnotationFrames",
    "AzureContentFilter",
    "BedrockConverseDialect",
    "BedrockInvokeDialect",
    "BedrockNoEmptyToolInput",
    "BedrockNoToolUseType",
    "CallIdFormat",
    "ChatStreamReading",
    "CloseMidEvent",
    "CohereStreamReading",
    "CohereV2Dialect",
    "Comments",
    "ContentWithToolCalls",
    "DataNoSpace",
    "DataOnlyFrames",
    "Dialect",
    "DifferentialRow",
    "DoneSentinel",
    "DropDone",
    "DuplicateFinish",
    "EVENTSTREAM_MEDIA_TYPE",
    "EarlyFinishReason",
    "EncryptedReasoning",
    "ErrorEnvelope",
    "EventStreamMessage",
    "EventsPerRead",
    "FakeHistoryRejected",
    "FakeProvider",
    "FakeProviderApp",
    "FakeStreamError",
    "FakeToolStreamingModel",
    "FakeTransport",
    "FinishDeltaFields",
    "FinishOnLastDelta",
    "FinishWithLastPart",
    "FinishWithoutParts",
    "FirstCallOnRoleChunk",
    "FunctionlessEntry",
    "GeminiDialect",
    "GeminiEventQuirk",
    "GeminiModel",
    "GeminiStreamReading",
    "GroqToolUseFailed",
    "IdInFunction",
    "InvalidEventStream",
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
    "OllamaDialect",
    "OllamaReemittedCalls",
    "OllamaStreamReading",
    "OneChunkTurn",
    "OpenAIChatDialect",
    "OpenAIResponsesDialect",
    "OpenCallsFirst",
    "OpenRouterFields",
    "PEER_CLOSED",
    "PROFILES",
    "PartialArgs",
    "Profile",
    "ProfileDialect",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "ProviderRouter",
    "ReasoningChannel",
    "ReasoningDeltas",
    "ResponseFailed",
    "ResponsesNoObfuscation",
    "RetryBlock",
    "RoleOnEveryDelta",
    "SSEEvent",
    "ScriptedTurn",
    "ServerLimits",
    "SignatureOnlyPart",
    "SortedKeys",
    "SplitReads",
    "SplitUtf8",
    "SseFields",
    "StopAfterToolCalls",
    "ThoughtSignatures",
    "Turn",
    "TypeOnEveryChunk",
    "UsageChunkChoice",
    "UsagePlacement",
    "Wire",
    "WireQuirk",
    "WriterChunks",
    "XGroq",
    "add_respx_routes",
    "apply_wire_quirks",
    "bedrock_error_wire",
    "bedrock_exception_wire",
    "corpus_claims",
    "decode_eventstream",
    "decode_ndjson",
    "decode_sse",
    "dialect_names",
    "dialects_without_accumulators",
    "differential",
    "differential_dialects",
    "differential_table",
    "encode_eventstream_message",
    "encode_ndjson",
    "encode_sse",
    "get_dialect",
    "iter_eventstream",
    "json_wire",
    "patch_httpx",
    "patch_httpx2",
    "profile_base_url",
    "profile_table",
    "read_chat_stream",
    "read_cohere_stream",
    "read_gemini_stream",
    "read_ollama_stream",
    "register_profile",
    "render_differential",
    "serve_in_thread",
]
