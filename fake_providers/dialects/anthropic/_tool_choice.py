"""Anthropic's 400 texts for missing fields and a ``tool_choice`` the request cannot honour.

The Messages API validates its body with pydantic and reports the first
failure as ``<location>: <pydantic message>`` inside ``{"type": "error",
"error": {"type": "invalid_request_error", "message"}}`` (the form of every
Anthropic 400 quoted in public reports, and of ``messages: Input should be a
valid list``):

* a missing ``model``, ``messages`` or ``max_tokens``: ``<field>: Field required``
  (pydantic's text; the form is seen for ``max_tokens`` in public reports of
  Anthropic-compatible servers, the exact API text is inferred);
* a ``tool_choice`` that is not an object: ``tool_choice: Input should be a valid
  dictionary or object to extract fields from``; an unknown ``type``:
  ``tool_choice: Input tag 'x' found using 'type' does not match any of the
  expected tags: 'auto', 'any', 'tool', 'none'``; a ``tool`` choice without a
  name: ``tool_choice.tool.name: Field required`` (pydantic's discriminated-union
  texts, inferred);
* ``any`` or ``tool`` with no ``tools``: ``tool_choice may only be specified while
  providing tools.``, and a ``tool`` naming no declared tool: ``Tool 'x' not found
  in provided tools`` (both inferred from the API's documented rules; ``auto`` and
  ``none`` need no tools).

Claude on Bedrock (InvokeModel) relays the ``tool_choice`` texts; Bedrock checks
the required keys itself (:mod:`tooltape.fake_providers.dialects.bedrock._validate`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["anthropic_choice_problem", "anthropic_request_problem"]

_REQUIRED = ("model", "messages", "max_tokens")
_TAGS = ("auto", "any", "tool", "none")


def anthropic_request_problem(body: dict[str, Any]) -> str | None:
    """The error message for a missing field or an unusable ``tool_choice``, else ``None``."""
    for field in _REQUIRED:
        if field not in body:
            return f"{field}: Field required"
    return anthropic_choice_problem(body)


def anthropic_choice_problem(body: dict[str, Any]) -> str | None:
    """The error message for an unusable ``tool_choice`` (absent: ``None``)."""
    if "tool_choice" not in body:
        return None
    choice, tools = body["tool_choice"], body.get("tools")
    if not isinstance(choice, dict):
        return "tool_choice: Input should be a valid dictionary or object to extract fields from"
    kind = choice.get("type")
    if kind not in _TAGS:
        tags = ", ".join(f"'{tag}'" for tag in _TAGS)
        return (
            f"tool_choice: Input tag '{kind}' found using 'type' does not match any of the "
            f"expected tags: {tags}"
        )
    if kind == "tool" and "name" not in choice:
        return "tool_choice.tool.name: Field required"
    if kind in ("any", "tool") and not tools:
        return "tool_choice may only be specified while providing tools."
    names = {t.get("name") for t in tools or [] if isinstance(t, dict)}
    if kind == "tool" and choice["name"] not in names:
        return f"Tool '{choice['name']}' not found in provided tools"
    return None
