"""pydantic-ai as an accumulator: one streamed agent run, through one of its model classes.

Each dialect declares which pydantic-ai model class and provider talk to it (in
its ``_integration`` module); this module builds them and runs the turn the same
way for all of them, as pydantic-ai's documentation streams an agent run
(https://ai.pydantic.dev/agents/#streaming-all-events): ``Agent.iter`` walks
the run's graph, the model request node is streamed event by event, and the
next node (the one that would call the tools) holds the ``ModelResponse``
pydantic-ai merged from the stream. Its tool-call parts are the result; the run
stops there, so no tool runs and no second request is made.
"""

from __future__ import annotations

import asyncio
import importlib
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["PROMPT", "PYDANTIC_AI_INSTALL", "agent_turn", "pydantic_ai_accumulator"]

PROMPT = "What is the weather in Paris?"
PYDANTIC_AI_INSTALL = "pip install 'tooltape[subjects]'"
"""The install line for the pydantic-ai subject (the ``subjects`` extra pins a tested release)."""


def _never_called(**_: Any) -> str:  # pragma: no cover - the run stops before tools run
    raise AssertionError("tooltape stops the agent run before it calls a tool")


async def _turn(model: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import TextPart, ToolCallPart

    offered = [Tool.from_schema(_never_called, name, name, schema) for name, schema in tools]
    agent: Agent[None, str] = Agent(model, tools=offered)
    async with agent.iter(PROMPT) as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as events:
                    async for _ in events:
                        pass
            elif Agent.is_call_tools_node(node):
                turn = TurnParts()
                for part in node.model_response.parts:
                    if isinstance(part, ToolCallPart):
                        turn.call(part.tool_name, part.args, part.tool_call_id)
                    elif isinstance(part, TextPart):
                        turn.text(part.content)
                return turn.turn()
    return RawTurn([])  # pragma: no cover - a streamed request is always followed by its tools node


def agent_turn(model: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """Stream one agent turn through ``model`` offering ``tools``; its calls, text and order."""
    return asyncio.run(_turn(model, tools))


def pydantic_ai_accumulator(
    model_class: str,
    sdk: str,
    model: str,
    *,
    provider: str,
    api_key: str,
    server: Callable[[str], str] | None = None,
) -> Accumulator:
    """The ``pydantic-ai`` subject through its ``model_class``, asking for ``model``.

    The model reaches the served URL through pydantic-ai's ``provider``, on an
    ``httpx2.AsyncClient`` (the dialect knows its provider, key and URL form).

    Args:
        model_class: The model class's name (``OpenAIChatModel``), in
            ``pydantic_ai.models.<module>`` for the ``provider``'s ``<module>``.
        sdk: The provider SDK that model class needs (``openai``, ``google.genai``).
        model: The model name it asks for.
        provider: The provider class, ``<module>.<class>`` under ``pydantic_ai.providers``
            (``openai.OpenAIProvider``).
        api_key: The placeholder key the provider is built with.
        server: The base URL the provider takes, from the served one (default: as served).
    """

    def build(base_url: str, http_client: Any = None) -> Any:
        module, _, provider_class = provider.rpartition(".")
        models = importlib.import_module(f"pydantic_ai.models.{module}")
        providers = importlib.import_module(f"pydantic_ai.providers.{module}")
        url = server(base_url) if server else base_url
        with warnings.catch_warnings():
            # GoogleProvider warns the client keeps httpx's 5 s timeout: a fake answers at once.
            warnings.filterwarnings("ignore", "The `http_client` passed", UserWarning)
            made = getattr(providers, provider_class)(
                base_url=url, api_key=api_key, http_client=http_client
            )
        return getattr(models, model_class)(model, provider=made)

    return Accumulator(
        f"pydantic_ai.{model_class}",
        "pydantic-ai",
        ("pydantic_ai", sdk),
        build,
        agent_turn,
        f"pydantic-ai: a streamed Agent.iter run through {model_class}",
        install=PYDANTIC_AI_INSTALL,
        asynchronous=True,
    )
