"""Ollama in the outside world: a local server on :11434, ollama-python, ChatOllama."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import openai_chat_body, openai_tool
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["OllamaIntegration"]

_MODEL = "llama3.1"
"""The model every request here names."""


def _chat_stream(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """``chat(stream=True)``, every chunk's ``message.tool_calls`` collected in order.

    Ollama sends each call whole; ollama-python's streaming tool-call example
    collects them chunk by chunk (https://ollama.com/blog/streaming-tool).
    """
    turn = TurnParts()
    for chunk in client.chat(
        model=_MODEL,
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=[openai_tool(n, s) for n, s in tools],
        stream=True,
    ):
        if chunk.message.content:
            turn.text(chunk.message.content)
        for call in chunk.message.tool_calls or ():
            turn.call(call.function.name, call.function.arguments, None)
    return turn.turn()


def _client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``ollama.Client(host=base_url)``, on its own httpx client (which the fakes answer)."""
    import ollama

    return ollama.Client(host=base_url, **kwargs)


class OllamaIntegration(Integration):
    """Where Ollama listens and what talks to it."""

    base_url = "http://127.0.0.1:11434"
    model = _MODEL
    sdk = "ollama"
    sdk_stack = "httpx"
    chat_model_module = "langchain_ollama"
    chat_model_class = "ChatOllama"
    accumulators = (
        Accumulator(
            "ollama.Client.chat",
            "ollama-sdk",
            ("ollama",),
            _client,
            _chat_stream,
            "ollama: Client.chat(stream=True), each chunk's message.tool_calls collected",
        ),
        litellm_accumulator("ollama_chat", _MODEL),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What ollama-python's ``chat(stream=True)`` sends."""
        return openai_chat_body(self.model, prompt, tools, stream=True)

    sdk_client = staticmethod(_client)
