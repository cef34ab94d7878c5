"""Mistral's native chat completions stream (``mistral_native``): SSE, parse and request rules."""

from tooltape.fake_providers.dialects.mistral_native._dialect import MistralNativeDialect

__all__ = ["MistralNativeDialect"]
