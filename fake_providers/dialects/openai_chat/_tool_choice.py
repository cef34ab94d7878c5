"""OpenAI's 400s for a missing ``messages`` and a ``tool_choice`` the request cannot honour.

Both OpenAI dialects answer in the shape ``{"error": {"message", "type":
"invalid_request_error", "param", "code"}}``. Sources of the texts:

* ``tool_choice`` without ``tools`` (Chat Completions): ``Invalid value for
  'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.``,
  ``param`` ``tool_choice``, ``code`` null (https://github.com/dapr/dapr-agents/issues/248).
* Responses, checked against the live API (https://github.com/vllm-project/vllm/pull/40399):
  ``Tool choice 'required' must be specified with 'tools' parameter.`` and, for a
  named function absent from ``tools``, ``Tool choice 'function' not found in
  'tools' parameter.`` (also reported from the live API in
  https://github.com/CherryHQ/cherry-studio/issues/11138). Chat Completions'
  text for an unknown named function is inferred to be the same.
* A missing required field: ``Missing required parameter: 'messages'.`` with
  ``code`` ``missing_required_parameter`` (the form OpenAI uses for every missing
  parameter; seen for nested ids in public reports of the API's errors).
* A ``tool_choice`` string outside the enum, ``Invalid value: 'x'. Supported
  values are: 'none', 'auto', and 'required'.`` (``code`` ``invalid_value``), an
  object of an unknown ``type`` and a named choice without a name are OpenAI's
  generic enum and missing-parameter forms, applied here (inferred).
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._body import json_type
from tooltape.fake_providers._wire import ProviderError

__all__ = ["chat_request_error", "responses_request_error"]

_MODES = ("none", "auto", "required")
_CHAT_KINDS = ("function", "allowed_tools", "custom")
_RESPONSES_KINDS = ("function", "allowed_tools", "custom", "mcp", "file_search")
_NOT_FOUND = "Tool choice 'function' not found in 'tools' parameter."
_ONLY_WITH_TOOLS = (
    "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
)
_REQUIRED_WITHOUT_TOOLS = "Tool choice 'required' must be specified with 'tools' parameter."


def _error(message: str, param: str | None, code: str | None = None) -> ProviderError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ProviderError(status=400, body={"error": error})


def _missing(field: str) -> ProviderError:
    return _error(f"Missing required parameter: '{field}'.", field, "missing_required_parameter")


def _supported(values: tuple[str, ...]) -> str:
    quoted = [f"'{value}'" for value in values]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _invalid_value(value: Any, param: str, values: tuple[str, ...]) -> ProviderError:
    text = f"Invalid value: '{value}'. Supported values are: {_supported(values)}."
    return _error(text, param, "invalid_value")


def _shape_error(choice: Any, kinds: tuple[str, ...]) -> ProviderError | None:
    """The error for a ``tool_choice`` neither a known mode nor an object of a known type."""
    if isinstance(choice, str):
        return None if choice in _MODES else _invalid_value(choice, "tool_choice", _MODES)
    if not isinstance(choice, dict):
        articles = {"integer": "an integer", "number": "a decimal", "array": "an array"}
        found = articles.get(json_type(choice), f"a {json_type(choice)}")
        text = (
            "Invalid type for 'tool_choice': expected one of a string or object, "
            f"but got {found} instead."
        )
        return _error(text, "tool_choice", "invalid_type")
    if "type" not in choice:
        return _missing("tool_choice.type")
    if choice["type"] not in kinds:
        return _invalid_value(choice["type"], "tool_choice.type", kinds)
    return None


def _names(tools: Any, nested: bool) -> set[str]:
    names = set()
    for entry in tools if isinstance(tools, list) else []:
        holder = entry.get("function") if nested and isinstance(entry, dict) else entry
        if isinstance(holder, dict) and isinstance(holder.get("name"), str):
            names.add(holder["name"])
    return names


def chat_request_error(body: dict[str, Any]) -> ProviderError | None:
    """Chat Completions' 400 for a missing ``messages`` or an unusable ``tool_choice``."""
    if "messages" not in body:
        return _missing("messages")
    if "tool_choice" not in body or body["tool_choice"] is None:
        return None
    choice = body["tool_choice"]
    if problem := _shape_error(choice, _CHAT_KINDS):
        return problem
    if not body.get("tools"):
        return _error(_ONLY_WITH_TOOLS, "tool_choice")
    if isinstance(choice, dict) and choice["type"] == "function":
        function = choice.get("function")
        if not isinstance(function, dict) or "name" not in function:
            return _missing("tool_choice.function.name")
        if function["name"] not in _names(body["tools"], nested=True):
            return _error(_NOT_FOUND, "tool_choice")
    return None


def responses_request_error(body: dict[str, Any]) -> ProviderError | None:
    """The Responses API's 400 for an unusable ``tool_choice`` (``none``/``auto`` need no tools)."""
    if "tool_choice" not in body or body["tool_choice"] is None:
        return None
    choice = body["tool_choice"]
    if problem := _shape_error(choice, _RESPONSES_KINDS):
        return problem
    tools = body.get("tools")
    if choice == "required" and not tools:
        return _error(_REQUIRED_WITHOUT_TOOLS, "tool_choice")
    if isinstance(choice, dict) and choice["type"] == "function":
        if "name" not in choice:
            return _missing("tool_choice.name")
        if choice["name"] not in _names(tools, nested=False):
            return _error(_NOT_FOUND, "tool_choice")
    return None
