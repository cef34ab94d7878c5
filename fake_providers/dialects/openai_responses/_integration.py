"""OpenAI Responses in the outside world: api.openai.com, openai-python, ChatOpenAI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers._openai_agents import openai_agents_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import (
    chat_openai,
    openai_client,
    pydantic_ai_openai,
)
from tooltape.fake_providers.integration import (
    Accumulator,
    Integration,
    RawCall,
    RawTurn,
    ToolSpec,
    part_runs,
)

__all__ = ["OpenAIResponsesIntegration"]


def _responses_tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "name": name, "parameters": schema}


def _stream_state(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    offered = {"tools": [_responses_tool(n, s) for n, s in tools]} if tools else {}
    with client.responses.stream(
        model="gpt-4.1", input="What is the weather in Paris?", **offered
    ) as stream:
        final = stream.get_final_response()
    return response_turn(final.output)


def response_turn(output: Any) -> RawTurn:
    """A Responses ``output``'s calls, text (its messages' ``output_text``) and their order."""
    calls: list[RawCall] = [
        (o.name, o.arguments, o.call_id) for o in output if o.type == "function_call"
    ]
    texts = [
        c.text for o in output if o.type == "message" for c in o.content if c.type == "output_text"
    ]
    kinds = [{"function_call": "call", "message": "text"}.get(o.type, "") for o in output]
    return RawTurn(calls, "".join(texts), part_runs(kinds))


class OpenAIResponsesIntegration(Integration):
    """Where the Responses API lives and what talks to it."""

    base_url = "https://api.openai.com/v1"
    model = "gpt-4.1"
    sdk = "openai"
    sdk_stack = "httpx2"
    chat_model_module = "langchain_openai"
    accumulators = (
        Accumulator(
            "openai.ResponseStreamState",
            "openai-sdk",
            ("openai",),
            openai_client,
            _stream_state,
            "openai: responses.stream(...).get_final_response()",
        ),
        pydantic_ai_openai("OpenAIResponsesModel", "gpt-4.1"),
        openai_agents_accumulator("OpenAIResponsesModel", "gpt-4.1"),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What openai-python's ``responses.create(stream=True)`` sends."""
        return {
            "model": self.model,
            "input": [{"role": "user", "content": prompt}],
            "tools": [_responses_tool(n, s) for n, s in tools],
            "stream": True,
        }

    def sdk_client(self, base_url: str, **kwargs: Any) -> Any:
        """``openai.OpenAI(base_url=...)`` with no retries."""
        return openai_client(base_url, **kwargs)

    def chat_model(
        self, base_url: str, *, tools: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> Any:
        """``ChatOpenAI(use_responses_api=True)`` at ``base_url``."""
        return chat_openai(base_url, responses=True, **kwargs)
