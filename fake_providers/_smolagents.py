"""smolagents as an accumulator: a model's ``generate_stream``, merged as its agents merge it.

smolagents' agents stream a step with ``model.generate_stream(messages,
tools_to_call_from=tools)`` and join the deltas with
``smolagents.models.agglomerate_stream_deltas`` (``ToolCallingAgent`` does
exactly this when built with ``stream_outputs=True``); the joined message's
``tool_calls`` are the result. Each dialect smolagents speaks declares one
accumulator with the model class that talks to it (``OpenAIServerModel``),
built with retries off so a failed cell is not retried after smolagents'
60-second wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = ["SMOLAGENTS_INSTALL", "smolagents_accumulator"]

SMOLAGENTS_INSTALL = "pip install 'tooltape[subjects]'"
"""The install line for the smolagents subject (the ``subjects`` extra pins a tested release)."""

_PROMPT = [{"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]}]


def _openai_server_model(served: str, http_client: Any = None) -> Any:
    """An ``OpenAIServerModel`` at ``served``: smolagents' own openai client, no retries."""
    from smolagents import OpenAIServerModel  # type: ignore[import-untyped,import-not-found,unused-ignore]

    return OpenAIServerModel(
        "gpt-4o",
        api_base=served,
        api_key="sk-tooltape",
        client_kwargs={"max_retries": 0},
        retry=False,
    )


def _tool(name: str, schema: dict[str, Any]) -> Any:
    """A smolagents ``Tool`` named ``name`` whose inputs are the schema's properties."""
    from smolagents import Tool  # type: ignore[import-untyped,import-not-found,unused-ignore]

    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    inputs = {k: {"type": p.get("type", "any"), "description": k} for k, p in properties.items()}

    class Offered(Tool):  # type: ignore[misc,unused-ignore]
        skip_forward_signature_validation = True

        def forward(self, **_: Any) -> str:  # pragma: no cover - only prepared, never run
            raise AssertionError("tooltape streams one model step; no tool runs")

    Offered.name, Offered.description, Offered.inputs, Offered.output_type = (
        name, name, inputs, "string",
    )  # fmt: skip
    return Offered()


def _stream_turn(model: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """Stream one step through ``model`` offering ``tools``; the calls and text it merged."""
    from smolagents.models import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        agglomerate_stream_deltas,
    )

    offered = [_tool(name, schema) for name, schema in tools]
    deltas = list(model.generate_stream(_PROMPT, tools_to_call_from=offered))
    message = agglomerate_stream_deltas(deltas)
    calls = message.tool_calls or []
    # agglomerate_stream_deltas writes "no id" as "" (``id or ""``): None, as langchain-core.
    made = [(c.function.name, c.function.arguments, c.id or None) for c in calls]
    content = message.content
    return RawTurn(made, content if isinstance(content, str) else "")  # one string: no order


def smolagents_accumulator() -> Accumulator:
    """The ``smolagents`` subject through ``OpenAIServerModel`` (Chat Completions)."""
    return Accumulator(
        "smolagents.OpenAIServerModel",
        "smolagents",
        ("smolagents", "openai"),
        _openai_server_model,
        _stream_turn,
        "smolagents: OpenAIServerModel.generate_stream + agglomerate_stream_deltas",
        install=SMOLAGENTS_INSTALL,
    )
