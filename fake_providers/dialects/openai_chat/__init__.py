"""OpenAI Chat Completions (``openai_chat``): events, parse and request rules."""

from tooltape.fake_providers.dialects.openai_chat._dialect import OpenAIChatDialect
from tooltape.fake_providers.dialects.openai_chat._parse import read_chat_stream

__all__ = ["OpenAIChatDialect", "read_chat_stream"]
