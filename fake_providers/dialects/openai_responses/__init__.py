"""OpenAI Responses (``openai_responses``): events, parse, quirks and request rules."""

from tooltape.fake_providers.dialects.openai_responses._dialect import OpenAIResponsesDialect

__all__ = ["OpenAIResponsesDialect"]
