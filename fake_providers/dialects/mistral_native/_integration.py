"""Mistral in the outside world: La Plateforme, the mistralai SDK, ChatMistralAI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers._pydantic_ai import pydantic_ai_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import openai_chat_body, openai_tool
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["MistralNativeIntegration"]

_MODEL = "mistral-large-latest"
"""The model every request here names."""


def _chat_stream(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """``chat.stream``, every event's ``delta.tool_calls`` collected in order.

    Mistral sends each call whole in one delta, as its function-calling guide shows
    them (https://docs.mistral.ai/capabilities/function_calling/); the SDK parses each
    into a ``ToolCall``.
    """
    turn = TurnParts()
    for event in client.chat.stream(
        model=_MODEL,
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=[openai_tool(n, s) for n, s in tools] or None,
    ):
        delta = event.data.choices[0].delta if event.data.choices else None
        for call in (delta.tool_calls or ()) if delta else ():
            turn.call(call.function.name, call.function.arguments, call.id)
        content = delta.content if delta else None
        if isinstance(content, str):
            turn.text(content)
        else:  # a list of chunks: text and thinking
            for chunk in content or ():
                if getattr(chunk, "type", None) == "text":
                    turn.text(chunk.text)
    return turn.turn(ordered=False)


def _server(base_url: str) -> str:
    """The server behind ``base_url``: Mistral's clients add ``/v1`` themselves."""
    return base_url.removesuffix("/").removesuffix("/v1")


def _client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``mistralai.client.Mistral`` whose server is ``base_url`` (the SDK adds ``/v1``).

    It talks through its own httpx2 client, which the fakes answer.
    """
    from mistralai.client import Mistral

    kwargs.setdefault("api_key", "tooltape")
    return Mistral(server_url=_server(base_url), **kwargs)


class MistralNativeIntegration(Integration):
    """Where Mistral listens and what talks to it natively (not through ``ChatOpenAI``)."""

    base_url = "https://api.mistral.ai/v1"
    model = _MODEL
    sdk = "mistralai"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_mistralai"
    chat_model_class = "ChatMistralAI"
    chat_model_options: ClassVar[dict[str, Any]] = {"api_key": "tooltape", "max_retries": 0}
    accumulators = (
        Accumulator(
            "mistralai.chat.stream",
            "mistralai-sdk",
            ("mistralai",),
            _client,
            _chat_stream,
            "mistralai: chat.stream, each event's delta.tool_calls collected",
        ),
        litellm_accumulator("mistral", _MODEL),
        pydantic_ai_accumulator(
            "MistralModel",
            "mistralai",
            _MODEL,
            provider="mistral.MistralProvider",
            api_key="tooltape",
            server=_server,
        ),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What ``ChatMistralAI.stream()`` sends for ``prompt`` with ``tools`` bound."""
        return openai_chat_body(self.model, prompt, tools, tool_choice="auto", stream=True)

    sdk_client = staticmethod(_client)
