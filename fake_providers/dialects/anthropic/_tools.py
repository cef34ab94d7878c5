"""Anthropic's 400s for a custom tool it refuses: no schema, a bad name, a schema that is not one.

The Messages API validates ``tools`` with pydantic and reports the first failure
as ``<location>: <message>`` (the form of every Anthropic 400 in
:mod:`._tool_choice`), a custom tool's location being ``tools.N.custom``.
Server tools (a ``type`` such as ``web_search_20250305``) are not checked here.

* ``name`` and ``input_schema`` are required: ``tools.0.custom.input_schema: Field
  required`` (pydantic's text, inferred);
* the name must match ``^[a-zA-Z0-9_-]{1,128}$``
  (https://docs.claude.com/en/api/messages#body-tools-name): ``tools.0.custom.name:
  String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`` (pydantic's text, inferred);
* ``input_schema`` that is not an object: ``tools.0.custom.input_schema: Input
  should be a valid dictionary``; its ``type`` must be ``object``
  (``tools.0.custom.input_schema.type: Input should be 'object'``; both inferred);
* a schema that is not a JSON Schema (jsonschema against the meta-schema):
  ``tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema
  draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use
  at https://docs.claude.com/en/docs/tool-use.``
  (https://github.com/anthropics/claude-code/issues/63673).

Claude on Bedrock (InvokeModel) applies the same checks.
"""

from __future__ import annotations

import re
from typing import Any

from tooltape.fake_providers._tool_schemas import schema_problem

__all__ = ["anthropic_tools_problem"]

NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
"""Anthropic's tool-name pattern."""
_INVALID_SCHEMA = (
    "JSON schema is invalid. It must match JSON Schema draft 2020-12 "
    "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
    "https://docs.claude.com/en/docs/tool-use."
)


def anthropic_tools_problem(tools: object) -> str | None:
    """The error message for the first custom tool Anthropic refuses, else ``None``."""
    for n, tool in enumerate(tools if isinstance(tools, list) else []):
        custom = isinstance(tool, dict) and tool.get("type", "custom") == "custom"
        if custom and (problem := _tool_problem(tool, f"tools.{n}.custom")):
            return problem
    return None


def _tool_problem(tool: dict[str, Any], where: str) -> str | None:
    for field in ("name", "input_schema"):
        if field not in tool:
            return f"{where}.{field}: Field required"
    name, schema = tool["name"], tool["input_schema"]
    if not isinstance(name, str):
        return f"{where}.name: Input should be a valid string"
    if not NAME.fullmatch(name):
        return f"{where}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
    if not isinstance(schema, dict):
        return f"{where}.input_schema: Input should be a valid dictionary"
    if schema.get("type") != "object":
        return f"{where}.input_schema.type: Input should be 'object'"
    if schema_problem(schema) is not None:
        return f"{where}.input_schema: {_INVALID_SCHEMA}"
    return None
