"""Gemini in the outside world: the Generative Language API, google-genai, its chat model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers._pydantic_ai import pydantic_ai_accumulator
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["GeminiIntegration"]

_MODEL = "gemini-2.5-flash"
"""The model every request here names."""


def _generate_content_stream(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """``generate_content_stream``, every chunk's function calls collected in order.

    Gemini sends each call whole; an application collects them chunk by chunk
    (https://ai.google.dev/gemini-api/docs/function-calling), as the SDK's
    ``GenerateContentResponse.function_calls`` reads them: the first candidate's
    parts that hold a ``function_call``.
    """
    from google.genai import types

    declarations = [
        types.FunctionDeclaration(name=n, description=n, parameters_json_schema=s) for n, s in tools
    ]
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=declarations)] if declarations else None,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    turn = TurnParts()
    for chunk in client.models.generate_content_stream(
        model=_MODEL, contents="What is the weather in Paris?", config=config
    ):
        content = chunk.candidates[0].content if chunk.candidates else None
        for part in (content.parts or ()) if content else ():
            if (call := part.function_call) is not None:
                turn.call(call.name, call.args, call.id)
            elif part.text and not part.thought:
                turn.text(part.text)
    return turn.turn()


def _client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``google.genai.Client`` whose HTTP options point at ``base_url``.

    It talks through its own httpx2 client, which the fakes answer.
    """
    from google import genai
    from google.genai import types

    kwargs.setdefault("api_key", "test-key")
    return genai.Client(http_options=types.HttpOptions(base_url=base_url), **kwargs)


class GeminiIntegration(Integration):
    """Where the Gemini API lives and what talks to it."""

    base_url = "https://generativelanguage.googleapis.com"
    model = _MODEL
    sdk = "google.genai"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_google_genai"
    chat_model_class = "ChatGoogleGenerativeAI"
    # max_retries 1, not 0: google-genai reads 0 as "the default"
    chat_model_options: ClassVar[dict[str, Any]] = {"api_key": "test-key", "max_retries": 1}
    accumulators = (
        Accumulator(
            "google.genai.generate_content_stream",
            "google-genai-sdk",
            ("google.genai",),
            _client,
            _generate_content_stream,
            "google-genai: models.generate_content_stream, each chunk's function_calls collected",
            "pip install google-genai",
        ),
        litellm_accumulator("gemini", _MODEL),
        pydantic_ai_accumulator(
            "GoogleModel",
            "google.genai",
            _MODEL,
            provider="google.GoogleProvider",
            api_key="test-key",
        ),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What google-genai's ``generate_content_stream`` sends (the model is in the path)."""
        declarations = [{"name": n, "parameters": s} for n, s in tools]
        return {
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "tools": [{"functionDeclarations": declarations}] if declarations else [],
        }

    def request_query(self) -> dict[str, str]:
        """google-genai streams with ``?alt=sse``."""
        return {"alt": "sse"}

    sdk_client = staticmethod(_client)
