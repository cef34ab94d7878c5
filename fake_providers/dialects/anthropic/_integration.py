"""Anthropic Messages in the outside world: api.anthropic.com, anthropic-python, ChatAnthropic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tooltape.fake_providers._haystack import haystack_accumulator
from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers._llama_index import llama_index_accumulator
from tooltape.fake_providers._pydantic_ai import pydantic_ai_accumulator
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["AnthropicIntegration", "anthropic_body", "message_stream"]

_MODEL = "claude-sonnet-4-6"
"""The model every request here names."""

_PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


def anthropic_body(model: str, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """A Messages request body (model, max_tokens, one user turn, tools)."""
    return {
        "model": model,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{"name": n, "input_schema": s} for n, s in tools],
    }


def message_stream(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """``client.messages.stream(...).get_final_message()``: its tool_use and text blocks."""
    offered = {"tools": [{"name": n, "input_schema": s} for n, s in tools]} if tools else {}
    with client.messages.stream(
        model=_MODEL, max_tokens=256, messages=_PROMPT, **offered
    ) as stream:
        message = stream.get_final_message()
    turn = TurnParts()
    for block in message.content:
        if block.type == "tool_use":
            turn.call(block.name, block.input, block.id)
        elif block.type == "text":
            turn.text(block.text)
    return turn.turn()


def _client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``anthropic.Anthropic(base_url=...)`` with no retries (``http_client``: an httpx2 client)."""
    import anthropic

    kwargs.setdefault("api_key", "sk-ant-tooltape")
    kwargs.setdefault("max_retries", 0)
    return anthropic.Anthropic(base_url=base_url, http_client=http_client, **kwargs)


class AnthropicIntegration(Integration):
    """Where the Messages API lives and what talks to it."""

    base_url = "https://api.anthropic.com"
    model = _MODEL
    sdk = "anthropic"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_anthropic"
    chat_model_class = "ChatAnthropic"
    chat_model_options: ClassVar[dict[str, Any]] = {
        "api_key": "sk-ant-tooltape",
        "streaming": True,
        "max_retries": 0,
    }
    accumulators = (
        Accumulator(
            "anthropic.MessageStream",
            "anthropic-sdk",
            ("anthropic",),
            _client,
            message_stream,
            "anthropic: messages.stream(...).get_final_message() (MessageStream)",
        ),
        litellm_accumulator("anthropic", _MODEL),
        pydantic_ai_accumulator(
            "AnthropicModel",
            "anthropic",
            _MODEL,
            provider="anthropic.AnthropicProvider",
            api_key="sk-ant-tooltape",
        ),
        haystack_accumulator("anthropic"),
        llama_index_accumulator("anthropic"),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What anthropic-python's ``messages.create(stream=True)`` sends."""
        return {**anthropic_body(self.model, prompt, tools), "stream": True}

    sdk_client = staticmethod(_client)

    def chat_model(
        self, base_url: str, *, tools: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> Any:
        """``ChatAnthropic`` at ``base_url``; requests declare ``tools`` unless the model has some.

        Without declared tools langchain-anthropic warns "Received unexpected tool
        content block" on every streamed call.
        """
        model = super().chat_model(base_url, **kwargs)
        if tools is not None and "tools" not in model.model_kwargs:
            # Set after construction so the model holds this very (live) list; bound
            # tools (``bind_tools``) come later in the payload and win.
            model.model_kwargs["tools"] = tools
        return model
