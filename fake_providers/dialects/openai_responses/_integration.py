"""OpenAI Responses in the outside world: api.openai.com, openai-python, ChatOpenAI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._openai_agents import openai_agents_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import (
    OPENAI_CHAT_MODEL_OPTIONS,
    openai_client,
    pydantic_ai_openai,
)
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["OpenAIResponsesIntegration"]

_MODEL = "gpt-4.1"
"""The model every request here names."""


def _responses_tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "name": name, "parameters": schema}


def response_turn(output: Any) -> RawTurn:
    """A Responses ``output``'s calls, text (its messages' ``output_text``) and their order."""
    turn = TurnParts()
    for item in output:
        if item.type == "function_call":
            turn.call(item.name, item.arguments, item.call_id)
        elif item.type == "message":
            turn.text("".join(c.text for c in item.content if c.type == "output_text"))
    return turn.turn()


def _stream_state(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    offered = {"tools": [_responses_tool(n, s) for n, s in tools]} if tools else {}
    with client.responses.stream(
        model=_MODEL, input="What is the weather in Paris?", **offered
    ) as stream:
        final = stream.get_final_response()
    return response_turn(final.output)


class OpenAIResponsesIntegration(Integration):
    """Where the Responses API lives and what talks to it."""

    base_url = "https://api.openai.com/v1"
    model = _MODEL
    sdk = "openai"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_openai"
    chat_model_class = "ChatOpenAI"
    chat_model_options = OPENAI_CHAT_MODEL_OPTIONS | {"use_responses_api": True}
    accumulators = (
        Accumulator(
            "openai.ResponseStreamState",
            "openai-sdk",
            ("openai",),
            openai_client,
            _stream_state,
            "openai: responses.stream(...).get_final_response()",
        ),
        pydantic_ai_openai("OpenAIResponsesModel", _MODEL),
        openai_agents_accumulator("OpenAIResponsesModel", _MODEL),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What openai-python's ``responses.create(stream=True)`` sends."""
        return {
            "model": self.model,
            "input": [{"role": "user", "content": prompt}],
            "tools": [_responses_tool(n, s) for n, s in tools],
            "stream": True,
        }

    sdk_client = staticmethod(openai_client)
