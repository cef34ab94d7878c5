"""OpenAI Chat Completions (``openai_chat``): events, parse and request rules."""

from tooltape.fake_providers.dialects.openai_chat._dialect import OpenAIChatDialect

__all__ = ["OpenAIChatDialect"]
