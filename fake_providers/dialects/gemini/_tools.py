"""Gemini's 400 for a function declaration whose schema it cannot read.

``parameters`` is Gemini's OpenAPI subset: every ``type`` must name one of its
``Type`` values (``STRING``, ``NUMBER``, ``INTEGER``, ``BOOLEAN``, ``ARRAY``,
``OBJECT``, ``NULL``; any case). Another value is refused as the proto enum
refuses it: ``Invalid value at 'tools[0].function_declarations[0].parameters.
properties[0].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type),
"strnig"`` (the form recorded in https://github.com/zereight/gitlab-mcp/issues/166,
where the index in ``properties[N]`` is the property's position). ``parametersJsonSchema`` is a
JSON Schema, checked against the meta-schema (:mod:`tooltape.fake_providers._tool_schemas`);
its message is inferred.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._tool_schemas import schema_problem

__all__ = ["gemini_tools_problem"]

TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
_ENUM = "(type.googleapis.com/google.ai.generativelanguage.v1beta.Type)"
_SCHEMA = "(type.googleapis.com/google.ai.generativelanguage.v1beta.Schema)"


def gemini_tools_problem(tools: object) -> str | None:
    """The 400 message for the first function declaration Gemini cannot read, else ``None``."""
    for n, tool in enumerate(tools if isinstance(tools, list) else ()):
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        for m, declaration in enumerate(declarations if isinstance(declarations, list) else ()):
            where = f"tools[{n}].function_declarations[{m}]"
            if problem := _declaration_problem(declaration, where):
                return problem
    return None


def _declaration_problem(declaration: Any, where: str) -> str | None:
    if not isinstance(declaration, dict):
        return None
    json_schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    if json_schema is not None and (problem := schema_problem(json_schema)):
        return f"Invalid JSON schema at '{where}.parameters_json_schema': {problem}"
    parameters = declaration.get("parameters")
    return None if parameters is None else _type_problem(parameters, f"{where}.parameters")


def _type_problem(schema: Any, where: str) -> str | None:
    if not isinstance(schema, dict):
        return f"Invalid value at '{where}' {_SCHEMA}, {schema!r}"
    kind = schema.get("type")
    if kind is not None and (not isinstance(kind, str) or kind.upper() not in TYPES):
        return f"Invalid value at '{where}.type' {_ENUM}, \"{kind}\""
    properties = schema.get("properties")
    for n, value in enumerate(properties.values() if isinstance(properties, dict) else ()):
        if problem := _type_problem(value, f"{where}.properties[{n}].value"):
            return problem
    items = schema.get("items")
    return None if items is None else _type_problem(items, f"{where}.items")
