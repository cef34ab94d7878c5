"""The request each dialect's library cassette records: a user turn offering the plan's tools.

Real clients send these shapes (model, messages, tool declarations, the stream
switch); the tool schemas are derived from the planned arguments, so a reader
of a cassette sees which tools the recorded calls answer. Dialects without an
entry here get a generic chat body.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tooltape.fake_providers import Dialect
from tooltape.harness import Plan, Scenario

__all__ = ["request_for"]

Schema = dict[str, Any]
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}


def _schema(args: dict[str, Any]) -> Schema:
    properties = {
        key: {"type": _JSON_TYPES.get(type(value), "object")} for key, value in args.items()
    }
    return {"type": "object", "properties": properties}


def _tools(plan: Plan) -> list[tuple[str, Schema]]:
    tools: dict[str, Schema] = {}
    for call in plan.calls:
        tools.setdefault(call.name, _schema(call.args))
    return list(tools.items())


def _openai_function(name: str, schema: Schema) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def _chat(model: str, prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [_openai_function(n, s) for n, s in tools],
        "stream": True,
    }


def _openai_chat(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    return {**_chat("gpt-4o-mini", prompt, tools), "stream_options": {"include_usage": True}}


def _responses(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "input": [{"role": "user", "content": prompt}],
        "tools": [{"type": "function", "name": n, "parameters": s} for n, s in tools],
        "stream": True,
    }


def _anthropic(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{"name": n, "input_schema": s} for n, s in tools],
        "stream": True,
    }


def _gemini(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    declarations = [{"name": n, "parameters": s} for n, s in tools]
    return {
        "contents": [{"role": "user", "parts": [{"text": prompt}]}],
        "tools": [{"functionDeclarations": declarations}] if declarations else [],
    }


def _converse(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": [{"text": prompt}]}]}
    if tools:
        specs = [{"toolSpec": {"name": n, "inputSchema": {"json": s}}} for n, s in tools]
        body["toolConfig"] = {"tools": specs}
    return body


def _invoke(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    body = _anthropic(prompt, tools)
    del body["model"], body["stream"]
    return {"anthropic_version": "bedrock-2023-05-31", **body}


_BODIES: dict[str, Callable[[str, list[tuple[str, Schema]]], dict[str, Any]]] = {
    "openai_chat": _openai_chat,
    "openai_responses": _responses,
    "anthropic_messages": _anthropic,
    "gemini": _gemini,
    "ollama": lambda p, t: _chat("llama3.1", p, t),
    "cohere_v2": lambda p, t: _chat("command-a-03-2025", p, t),
    "bedrock_converse": _converse,
    "bedrock_invoke": _invoke,
}


def _generic(prompt: str, tools: list[tuple[str, Schema]]) -> dict[str, Any]:
    return _chat("tooltape", prompt, tools)


_MODELS = {"gemini": "gemini-2.5-flash"}
_QUERIES = {"gemini": {"alt": "sse"}}
_BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-v1"


def request_for(dialect: Dialect, scenario: Scenario) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The path, query and JSON body of the request that records ``scenario`` in ``dialect``."""
    model = _MODELS.get(dialect.name, _BEDROCK_MODEL)
    path = re.sub(r"\{[^}/]+\}", model, dialect.path)
    build = _BODIES.get(dialect.name, _generic)
    return (
        path,
        dict(_QUERIES.get(dialect.name, {})),
        build(scenario.description, _tools(scenario.plan)),
    )
