"""The bundled dialects: one package each, and the one list that registers them.

Adding a dialect means adding its package here and one line to
:data:`BUNDLED_DIALECTS`; :func:`~tooltape.fake_providers.get_dialect` and
:func:`~tooltape.fake_providers.dialect_names` read this list, and the contract
test (``tests/fake_providers/test_dialect_contract.py``) checks every entry.
"""

from tooltape.fake_providers._dialect import Dialect
from tooltape.fake_providers.dialects.anthropic import AnthropicMessagesDialect
from tooltape.fake_providers.dialects.bedrock import BedrockConverseDialect, BedrockInvokeDialect
from tooltape.fake_providers.dialects.cohere import CohereV2Dialect
from tooltape.fake_providers.dialects.gemini import GeminiDialect
from tooltape.fake_providers.dialects.mistral_native import MistralNativeDialect
from tooltape.fake_providers.dialects.ollama import OllamaDialect
from tooltape.fake_providers.dialects.openai_chat import OpenAIChatDialect
from tooltape.fake_providers.dialects.openai_compatible import PROFILES, Profile
from tooltape.fake_providers.dialects.openai_responses import OpenAIResponsesDialect

__all__ = ["BUNDLED_DIALECTS", "BUNDLED_PROFILES"]

BUNDLED_DIALECTS: tuple[type[Dialect], ...] = (
    OpenAIChatDialect,
    OpenAIResponsesDialect,
    AnthropicMessagesDialect,
    GeminiDialect,
    OllamaDialect,
    CohereV2Dialect,
    MistralNativeDialect,
    BedrockConverseDialect,
    BedrockInvokeDialect,
)
"""Every bundled dialect, one line each."""

BUNDLED_PROFILES: tuple[Profile, ...] = PROFILES
"""Every bundled OpenAI-compatible server profile (a base dialect plus quirks)."""
