"""Gemini ``streamGenerateContent`` (``gemini``): frames, parse, quirks and request rules."""

from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect

__all__ = ["GeminiDialect"]
