"""OpenAI-compatible servers: profiles of ``openai_chat`` (vLLM, Groq, Azure ...)."""

from tooltape.fake_providers.dialects.openai_compatible._profiles import PROFILES, Profile

__all__ = ["PROFILES", "Profile"]
