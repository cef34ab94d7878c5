"""Anthropic Messages (``anthropic_messages``): events, parse and request rules."""

from tooltape.fake_providers.dialects.anthropic._dialect import AnthropicMessagesDialect

__all__ = ["AnthropicMessagesDialect"]
