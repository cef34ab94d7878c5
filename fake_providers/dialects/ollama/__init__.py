"""Ollama ``/api/chat`` (``ollama``): NDJSON lines, parse and request rules."""

from tooltape.fake_providers.dialects.ollama._dialect import OllamaDialect

__all__ = ["OllamaDialect"]
