"""Gemini's 400 texts for a missing ``contents`` and an unusable function-calling config.

Every answer is Google's ``{"error": {"code": 400, "message", "status":
"INVALID_ARGUMENT"}}``. Proto JSON accepts both spellings of a field name, so
``toolConfig`` / ``tool_config`` (and the nested names) are read alike.

* no ``contents``: ``* GenerateContentRequest.contents: contents is not
  specified`` and a newline (Google's field-violation list form; the text is
  the API's, as clients report it);
* a ``functionCallingConfig`` with no ``functionDeclarations`` in ``tools``:
  ``Function calling config is set without function_declarations.``
  (https://github.com/UKGovernmentBEIS/inspect_ai/issues/2462, and others);
* a ``mode`` outside ``AUTO``/``ANY``/``NONE``/``VALIDATED``/``MODE_UNSPECIFIED``:
  ``Invalid value at 'tool_config.function_calling_config.mode'
  (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode),
  "X"`` (Google's enum-binding form, as it quotes other bad values; inferred);
* an ``allowedFunctionNames`` entry naming no declaration:
  ``* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names[i]:
  allowed_function_names must be a subset of function declarations.`` (inferred).
"""

from __future__ import annotations

from typing import Any

__all__ = ["gemini_request_problem"]

_MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
_MODE_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode"
_PREFIX = "* GenerateContentRequest.tool_config.function_calling_config"


def _field(holder: Any, camel: str, snake: str) -> Any:
    if not isinstance(holder, dict):
        return None
    return holder.get(camel, holder.get(snake))


def _declared(tools: Any) -> list[str]:
    names = []
    for tool in tools if isinstance(tools, list) else []:
        for declaration in _field(tool, "functionDeclarations", "function_declarations") or []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                names.append(declaration["name"])
    return names


def gemini_request_problem(body: dict[str, Any]) -> str | None:
    """The error message for a missing ``contents`` or a bad calling config, else ``None``."""
    if "contents" not in body:
        return "* GenerateContentRequest.contents: contents is not specified\n"
    config = _field(
        _field(body, "toolConfig", "tool_config"),
        "functionCallingConfig",
        "function_calling_config",
    )
    if config is None:
        return None
    mode = _field(config, "mode", "mode")
    if mode is not None and mode not in _MODES:
        where = "'tool_config.function_calling_config.mode'"
        return f'Invalid value at {where} ({_MODE_TYPE}), "{mode}"'
    declared = _declared(body.get("tools"))
    if not declared:
        return "Function calling config is set without function_declarations."
    allowed = _field(config, "allowedFunctionNames", "allowed_function_names") or []
    for position, name in enumerate(allowed if isinstance(allowed, list) else []):
        if name not in declared:
            return (
                f"{_PREFIX}.allowed_function_names[{position}]: allowed_function_names must be "
                "a subset of function declarations.\n"
            )
    return None
