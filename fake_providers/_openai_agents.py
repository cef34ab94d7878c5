"""The OpenAI Agents SDK as an accumulator: one streamed ``Runner.run_streamed`` turn.

The Chat Completions and Responses dialects each declare the SDK's model class
that talks to them (``OpenAIChatCompletionsModel``, ``OpenAIResponsesModel``)
over an ``AsyncOpenAI`` client that sends through the httpx2 client the matrix
hands over. The run is streamed as the SDK documents it
(https://openai.github.io/openai-agents-python/streaming/): the model class
turns the provider's stream into Responses events, and the
``response.completed`` raw event carries the response it merged. Its
``function_call`` items are the result; the run is cancelled there
(``RunResultStreaming.cancel``), before the runner checks the calls or any tool
runs. So a cell judges the SDK's merge; what the runner does with the merged
calls afterwards (it refuses a call with no id or a reused one, and a name no
tool has) is not judged here.

Tracing is off for the run (``RunConfig(tracing_disabled=True)``): nothing is
exported anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = ["OPENAI_AGENTS_INSTALL", "openai_agents_accumulator"]

OPENAI_AGENTS_INSTALL = "pip install 'tooltape[subjects]'"
"""The install line for the OpenAI Agents SDK subject (the ``subjects`` extra pins a release)."""

_PROMPT = "What is the weather in Paris?"


async def _never_called(_context: Any, _arguments: str) -> str:  # pragma: no cover
    raise AssertionError("tooltape cancels the agent run at its model response, before tools")


def _tool(name: str, schema: dict[str, Any]) -> Any:
    from agents import FunctionTool  # type: ignore[import-not-found,unused-ignore]

    # strict off: the SDK would rewrite the plan's schema into OpenAI's strict form
    return FunctionTool(
        name=name,
        description=name,
        params_json_schema=schema,
        on_invoke_tool=_never_called,
        strict_json_schema=False,
    )


async def _turn(model: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    from agents import Agent, RunConfig, Runner  # type: ignore[import-not-found,unused-ignore]

    agent: Agent[None] = Agent(name="tooltape", model=model, tools=[_tool(n, s) for n, s in tools])
    result = Runner.run_streamed(agent, _PROMPT, run_config=RunConfig(tracing_disabled=True))
    # Stopped here, the stream is closed at once: draining it after cancel() could raise
    # what the runner's checks of the calls found meanwhile, which this cell does not judge.
    stream: Any = result.stream_events()  # typed AsyncIterator; an async generator, closable
    async with contextlib.aclosing(stream) as events:
        async for event in events:
            if event.type == "raw_response_event" and event.data.type == "response.completed":
                result.cancel()
                from tooltape.fake_providers.dialects.openai_responses._integration import (
                    response_turn,
                )

                return response_turn(event.data.response.output)
    return RawTurn([])  # pragma: no cover - a stream with no completed response raises


def _run(model: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    return asyncio.run(_turn(model, tools))


def _client(model_class: str, model_name: str) -> Callable[[str, Any], Any]:
    def client(base_url: str, http_client: Any = None) -> Any:
        import agents  # type: ignore[import-not-found,unused-ignore]
        from openai import AsyncOpenAI

        openai = AsyncOpenAI(
            base_url=base_url, api_key="sk-tooltape", max_retries=0, http_client=http_client
        )
        return getattr(agents, model_class)(model=model_name, openai_client=openai)

    return client


def openai_agents_accumulator(model_class: str, model_name: str) -> Accumulator:
    """The ``openai-agents`` subject through ``agents.<model_class>`` (its own stream code)."""
    return Accumulator(
        f"agents.{model_class}",
        "openai-agents",
        ("agents", "openai"),
        _client(model_class, model_name),
        _run,
        f"openai-agents: a streamed Runner.run_streamed turn through {model_class}",
        OPENAI_AGENTS_INSTALL,
        asynchronous=True,
    )
