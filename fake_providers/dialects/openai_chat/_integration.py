"""OpenAI Chat Completions in the outside world: api.openai.com, openai-python, ChatOpenAI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._haystack import haystack_accumulator
from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers._llama_index import llama_index_accumulator
from tooltape.fake_providers._openai_agents import openai_agents_accumulator
from tooltape.fake_providers._pydantic_ai import pydantic_ai_accumulator
from tooltape.fake_providers._smolagents import smolagents_accumulator
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = [
    "OPENAI_CHAT_MODEL_OPTIONS",
    "OpenAIChatIntegration",
    "openai_chat_body",
    "openai_client",
    "pydantic_ai_openai",
    "openai_tool",
]

OPENAI_CHAT_MODEL_OPTIONS = {
    "model": "gpt-4o",
    "api_key": "sk-tooltape",
    "streaming": True,
    "max_retries": 0,
}
"""What ``ChatOpenAI`` is built with, Chat Completions or Responses: a test key, no retries."""

_PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


def openai_tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions function tool."""
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def openai_chat_body(
    model: str, prompt: str, tools: Sequence[ToolSpec], **fields: Any
) -> dict[str, Any]:
    """A Chat Completions-shaped request body: ``model``, one user turn, tools, then ``fields``.

    Cohere v2, Mistral and Ollama take the same ``messages`` and ``tools`` shape.
    """
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [openai_tool(n, s) for n, s in tools],
        **fields,
    }


def openai_client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``openai.OpenAI`` at ``base_url`` with no retries (``http_client``: an httpx2 client)."""
    import openai

    kwargs.setdefault("api_key", "sk-tooltape")
    kwargs.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=base_url, http_client=http_client, **kwargs)


def _stream_state(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: Any = ChatCompletionStreamState()
    offered = [openai_tool(n, s) for n, s in tools]
    extra = {"tools": offered} if offered else {}
    for chunk in client.chat.completions.create(
        model="gpt-4o", messages=_PROMPT, stream=True, **extra
    ):
        state.handle_chunk(chunk)
    message = state.get_final_completion().choices[0].message
    calls = [(c.function.name, c.function.arguments, c.id) for c in message.tool_calls or []]
    return RawTurn(calls, message.content or "")  # one content string: no order


def pydantic_ai_openai(model_class: str, model: str) -> Accumulator:
    """The pydantic-ai subject through its OpenAI ``model_class`` (Chat Completions, Responses)."""
    return pydantic_ai_accumulator(
        model_class, "openai", model, provider="openai.OpenAIProvider", api_key="sk-tooltape"
    )


class OpenAIChatIntegration(Integration):
    """Where Chat Completions lives and what talks to it."""

    base_url = "https://api.openai.com/v1"
    model = "gpt-4o-mini"
    sdk = "openai"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_openai"
    chat_model_class = "ChatOpenAI"
    chat_model_options = OPENAI_CHAT_MODEL_OPTIONS | {"use_responses_api": False}
    accumulators = (
        Accumulator(
            "openai.ChatCompletionStreamState",
            "openai-sdk",
            ("openai",),
            openai_client,
            _stream_state,
            "openai: chat.completions.create(stream=True) + ChatCompletionStreamState",
        ),
        litellm_accumulator("openai", "gpt-4o"),
        pydantic_ai_openai("OpenAIChatModel", "gpt-4o"),
        openai_agents_accumulator("OpenAIChatCompletionsModel", "gpt-4o"),
        haystack_accumulator("openai_chat"),
        smolagents_accumulator(),
        llama_index_accumulator("openai_chat"),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What openai-python sends for ``stream=True`` with usage asked for."""
        return openai_chat_body(
            self.model, prompt, tools, stream=True, stream_options={"include_usage": True}
        )

    sdk_client = staticmethod(openai_client)
