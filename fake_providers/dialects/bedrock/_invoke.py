"""The ``bedrock_invoke`` dialect: Claude on ``POST /model/{modelId}/invoke-with-response-stream``.

InvokeModelWithResponseStream passes the model's own stream through, one
event-stream message per event: ``:event-type`` ``chunk``, payload ``{"bytes":
<base64 of the event JSON>, "p": <padding>}``. For Claude the wrapped events
are Anthropic Messages stream events, rendered here by
:class:`~tooltape.fake_providers.dialects.anthropic._dialect.AnthropicMessagesDialect` and then
reshaped to what Bedrock relays (``../shared/corpus/bedrock``, the
``bedrock_invoke_stream`` records):

- no ``ping`` events, and compact unpadded JSON inside ``bytes``;
- ``message_start.message``: ``id`` ``msg_bdrk_01...``, no ``stop_details``,
  usage ``{input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
  output_tokens}``;
- ``tool_use`` block starts without ``caller``; ``message_delta`` without
  ``stop_details`` and with usage ``{output_tokens}``;
- ``message_stop`` carries ``amazon-bedrock-invocationMetrics``
  ``{inputTokenCount, outputTokenCount, invocationLatency, firstByteLatency}``;
- an ``error`` finish ends with a ``modelStreamErrorException`` exception
  message instead of Anthropic's ``event: error``.

Quirks are the Anthropic dialect's: ``no_empty_partial_json`` and
``input_on_block_start`` render (ChatBedrock ignores a start's ``input``);
``ping_events`` and ``json_padding`` are refused, as Bedrock sends neither.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from random import Random
from typing import Any, ClassVar

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._call_ids import ALNUM, IdShape
from tooltape.fake_providers._dialect import EventQuirks, ProviderEvent
from tooltape.fake_providers._event_text import Piece, dig
from tooltape.fake_providers._expressible import require_header_fields
from tooltape.fake_providers._wire import ProviderError
from tooltape.fake_providers.dialects.anthropic._dialect import (
    AnthropicInputOnBlockStart,
    AnthropicMessagesDialect,
    AnthropicNoEmptyPartialJson,
    AnthropicNoJsonPadding,
    anthropic_event_finish,
    anthropic_event_pieces,
)
from tooltape.fake_providers.dialects.bedrock._complete import invoke_completion
from tooltape.fake_providers.dialects.bedrock._converse import (
    INPUT_TOKENS,
    STREAM_ERROR,
    BedrockDialect,
    padding,
)
from tooltape.fake_providers.dialects.bedrock._integration import BedrockInvokeIntegration
from tooltape.fake_providers.dialects.bedrock._parse import parse_invoke
from tooltape.fake_providers.dialects.bedrock._validate import (
    bedrock_body_error,
    validate_invoke_request,
)
from tooltape.harness import Finish, PlannedStream
from tooltape.harness.json_text import compact

__all__ = ["INVOKE_MODEL", "BedrockInvokeDialect"]

INVOKE_MODEL = "claude-sonnet-4-5-20250929"
"""The model named in ``message_start`` (Bedrock reports the Anthropic model name)."""

_ANTHROPIC = AnthropicMessagesDialect()
_USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _message_start(data: dict[str, Any]) -> dict[str, Any]:
    message = data["message"]
    usage = {key: message["usage"][key] for key in _USAGE_KEYS}
    bedrock = {"model": INVOKE_MODEL, "id": message["id"].replace("msg_", "msg_bdrk_", 1)}
    bedrock |= {"type": "message", "role": "assistant", "content": []}
    bedrock |= {"stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}
    return {"type": "message_start", "message": bedrock}


_CALL_ID = IdShape("bedrock_invoke", "toolu_bdrk_01", ALNUM, 22)
"""Claude-on-Bedrock tool-use ids: ``toolu_bdrk_01`` and 22 letters and digits (corpus)."""


class _Reshape:
    """Turns one stream's Anthropic events into the events Bedrock relays."""

    def __init__(self, seed: int) -> None:
        self.rng = Random(f"{seed}:bedrock_invoke")
        self.output_tokens = 1

    def event(self, name: str, data: dict[str, Any]) -> dict[str, Any]:
        if name == "message_start":
            return _message_start(data)
        if name == "content_block_start":
            block = {k: v for k, v in data["content_block"].items() if k != "caller"}
            return {**data, "content_block": block}
        if name == "message_delta":
            self.output_tokens = data["usage"]["output_tokens"]
            delta = {k: v for k, v in data["delta"].items() if k != "stop_details"}
            return {**data, "delta": delta, "usage": {"output_tokens": self.output_tokens}}
        if name == "message_stop":
            metrics = {"inputTokenCount": INPUT_TOKENS, "outputTokenCount": self.output_tokens}
            latency = self.rng.randint(800, 4000)
            metrics |= {"invocationLatency": latency, "firstByteLatency": latency // 3}
            return {**data, "amazon-bedrock-invocationMetrics": metrics}
        return data

    def chunk(self, event: dict[str, Any]) -> ProviderEvent:
        text = compact(event)
        wrapped = base64.b64encode(text.encode()).decode()
        return ProviderEvent({"bytes": wrapped, "p": padding(self.rng)}, "chunk")


def _carried(data: Any) -> Any:
    """The model's own event an InvokeModel stream chunk carries under ``bytes``."""
    carried = dig(data, "bytes")
    return carried if isinstance(carried, dict) else data


class BedrockInvokeDialect(BedrockInvokeIntegration, BedrockDialect):
    """Claude through InvokeModelWithResponseStream: Anthropic events in ``chunk`` messages."""

    name = "bedrock_invoke"
    call_id_format = _CALL_ID
    event_shape = (  # Anthropic's own events, each under ``bytes``
        ("bytes", "object"),
        *((f"bytes.{path}", types) for path, types in AnthropicMessagesDialect.event_shape),
    )
    path = "/model/{modelId}/invoke-with-response-stream"
    complete_path = "/model/{modelId}/invoke"
    extra_headers = (("x-amzn-bedrock-content-type", "application/json"),)
    cannot_express: ClassVar[Mapping[str, str]] = {
        "ping_events": "Bedrock relays no ping events",
        "json_padding": "Bedrock relays Anthropic's events as compact, unpadded JSON",
    }
    event_quirks = (AnthropicNoEmptyPartialJson, AnthropicInputOnBlockStart)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The ``chunk`` events for a planned stream (see the module docstring).

        Raises:
            TooltapeUsageError: A call's id or name is not on its block start.
        """
        require_header_fields(stream, self.name)
        reshape = _Reshape(stream.seed)
        out: list[ProviderEvent] = []
        for event in _ANTHROPIC.build_events(
            stream, EventQuirks((*quirks, AnthropicNoJsonPadding()))
        ):
            if event.event == "ping" or not isinstance(event.data, dict):
                continue
            if event.event == "error":
                out.append(ProviderEvent({"message": STREAM_ERROR}, "modelStreamErrorException"))
                continue
            out.append(reshape.chunk(reshape.event(event.event or "", event.data)))
        return out

    def event_pieces(self, data: Any) -> list[Piece]:
        """The Anthropic event each chunk carries under ``bytes``, read as Anthropic's."""
        return anthropic_event_pieces(_carried(data))

    def event_finish(self, data: Any) -> Finish | None:
        """The carried Anthropic event's ``stop_reason`` ``max_tokens``."""
        return anthropic_event_finish(_carried(data))

    parse = staticmethod(parse_invoke)
    completion_body = staticmethod(invoke_completion)
    validate = staticmethod(validate_invoke_request)

    def body_error(self, problem: BodyProblem) -> ProviderError:
        """Bedrock's answer to a body it cannot bind, in the invoke endpoint's form."""
        return bedrock_body_error(problem, invoke=True)
