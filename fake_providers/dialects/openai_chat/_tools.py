"""OpenAI's 400s for a function tool it refuses: a name outside its pattern, a bad schema.

Both OpenAI dialects check each function tool (Chat Completions nests it under
``function``, Responses does not) and answer in the shape ``{"error": {"message",
"type": "invalid_request_error", "param", "code"}}``:

* the name must match ``^[a-zA-Z0-9_-]+$`` with at most 64 characters
  (https://platform.openai.com/docs/api-reference/chat/create#chat_create-tools-function-name):
  ``Invalid 'tools[0].function.name': string does not match pattern. Expected a
  string that matches the pattern '^[a-zA-Z0-9_-]+$'.``, ``code`` ``invalid_value``
  (https://github.com/brekkylab/ailoy/pull/109); a longer name gets OpenAI's
  ``string too long`` form (``string_above_max_length``, inferred here);
* ``parameters`` that is not an object gets OpenAI's type error (``Invalid type for
  'tools[0].function.parameters': expected an object, but got a string instead.``,
  inferred from its form for other fields);
* a schema that is not a JSON Schema: ``Invalid schema for function 'NAME': <the
  validator's message>.``, ``param`` the schema's path, ``code``
  ``invalid_function_parameters``; the message is jsonschema's
  (https://github.com/FoundationAgents/OpenManus/issues/1162 quotes ``[] is not of
  type 'object', 'boolean'``); a top-level ``type`` other than ``object``: ``schema
  must be a JSON Schema of 'type: "object"', got 'type: "string"'.``
  (https://github.com/alibaba/spring-ai-alibaba/issues/4576).
"""

from __future__ import annotations

import re
from typing import Any

from tooltape.fake_providers._body import json_type
from tooltape.fake_providers._tool_schemas import schema_problem
from tooltape.fake_providers._wire import ProviderError

__all__ = ["chat_tools_error", "responses_tools_error"]

NAME = re.compile(r"[a-zA-Z0-9_-]+")
"""OpenAI's function-name pattern (and at most :data:`MAX_NAME` characters)."""
MAX_NAME = 64
_ARTICLES = {"string": "a string", "integer": "an integer", "number": "a decimal"}


def _error(message: str, param: str, code: str) -> ProviderError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ProviderError(status=400, body={"error": error})


def _function_error(function: dict[str, Any], where: str) -> ProviderError | None:
    name = function.get("name")
    if isinstance(name, str) and not NAME.fullmatch(name):
        return _error(
            f"Invalid '{where}.name': string does not match pattern. Expected a string that "
            "matches the pattern '^[a-zA-Z0-9_-]+$'.",
            f"{where}.name",
            "invalid_value",
        )
    if isinstance(name, str) and len(name) > MAX_NAME:
        return _error(
            f"Invalid '{where}.name': string too long. Expected a string with maximum length "
            f"{MAX_NAME}, but got a string with length {len(name)} instead.",
            f"{where}.name",
            "string_above_max_length",
        )
    if "parameters" not in function or function["parameters"] is None:
        return None
    schema, param = function["parameters"], f"{where}.parameters"
    if not isinstance(schema, dict):
        got = _ARTICLES.get(json_type(schema), f"a {json_type(schema)}")
        return _error(
            f"Invalid type for '{param}': expected an object, but got {got} instead.",
            param,
            "invalid_type",
        )
    problem = schema_problem(schema)
    if problem is None and schema.get("type", "object") != "object":
        problem = (
            "schema must be a JSON Schema of 'type: \"object\"', "
            f"got 'type: \"{schema.get('type')}\"'"
        )
    if problem is None:
        return None
    return _error(
        f"Invalid schema for function '{name}': {problem}.", param, "invalid_function_parameters"
    )


def chat_tools_error(tools: object) -> ProviderError | None:
    """Chat Completions' 400 for the first function tool it refuses, else ``None``."""
    for n, tool in enumerate(tools if isinstance(tools, list) else []):
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and (
            error := _function_error(function, f"tools[{n}].function")
        ):
            return error
    return None


def responses_tools_error(tools: object) -> ProviderError | None:
    """The Responses API's 400 for the first function tool it refuses, else ``None``."""
    for n, tool in enumerate(tools if isinstance(tools, list) else []):
        function = tool if isinstance(tool, dict) and tool.get("type") == "function" else None
        if function is not None and (error := _function_error(function, f"tools[{n}]")):
            return error
    return None
