"""Cohere v2 in the outside world: api.cohere.com, the cohere SDK, ChatCohere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._integration import Integration, ToolSpec
from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import openai_tool

__all__ = ["CohereIntegration"]


class CohereIntegration(Integration):
    """Where Cohere's v2 chat lives and what talks to it."""

    base_url = "https://api.cohere.com"
    model = "command-a-03-2025"
    sdk = "cohere"
    sdk_stack = "httpx"
    chat_model_module = "langchain_cohere"
    accumulators = (litellm_accumulator("cohere_chat", "command-a-03-2025", path="/v2/chat"),)

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What cohere's ``ClientV2.chat_stream`` sends."""
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "tools": [openai_tool(n, s) for n, s in tools],
            "stream": True,
        }

    def sdk_client(self, base_url: str, **kwargs: Any) -> Any:
        """``cohere.ClientV2(base_url=...)``."""
        import cohere

        kwargs.setdefault("api_key", "test-key")
        return cohere.ClientV2(base_url=base_url, **kwargs)

    def chat_model(
        self, base_url: str, *, tools: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> Any:
        """``ChatCohere`` at ``base_url``."""
        from langchain_cohere import ChatCohere
        from pydantic import SecretStr

        kwargs.setdefault("model", self.model)
        kwargs.setdefault("cohere_api_key", SecretStr("test-key"))
        return ChatCohere(base_url=base_url, **kwargs)
