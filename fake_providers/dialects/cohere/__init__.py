"""Cohere v2 chat (``cohere_v2``): events, parse and request rules."""

from tooltape.fake_providers.dialects.cohere._dialect import CohereV2Dialect

__all__ = ["CohereV2Dialect"]
