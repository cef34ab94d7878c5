"""Bedrock Converse's 400s for a ``toolConfig`` that cannot honour its ``toolChoice``.

AWS's validation form (``N validation error(s) detected: Value ... at '<path>'
failed to satisfy constraint: ...``), as ``{"message"}`` with a
``ValidationException`` error type:

* ``toolConfig.tools`` empty: ``1 validation error detected: Value at
  'toolConfig.tools' failed to satisfy constraint: Member must have length greater
  than or equal to 1`` (https://github.com/Portkey-AI/gateway/issues/1124);
  absent: ``Value null at 'toolConfig.tools' ... Member must not be null`` (the
  same form for a null member; inferred);
* a ``toolChoice`` that is not exactly one of ``auto``, ``any``, ``tool`` (a
  union): ``1 validation error detected: Value at 'toolConfig.toolChoice' failed
  to satisfy constraint: Member must have exactly one member set`` (inferred);
* ``tool`` with an empty name: ``Value at 'toolConfig.toolChoice.tool.name' failed
  to satisfy constraint: Member must have length greater than or equal to 1``
  (https://github.com/BerriAI/litellm/pull/25188); a name no tool declares:
  ``The tool specified in toolConfig.toolChoice isn't present in toolConfig.tools.``
  (inferred).

Converse's ``messages`` is optional (a prompt-management prompt supplies it), so a
missing ``messages`` is accepted.
"""

from __future__ import annotations

from typing import Any

__all__ = ["converse_choice_problem"]

_AT_LEAST_ONE = "failed to satisfy constraint: Member must have length greater than or equal to 1"
_ONE = "1 validation error detected: "
_UNION_KEYS = ("auto", "any", "tool")


def converse_choice_problem(body: dict[str, Any]) -> str | None:
    """The 400 text for an unusable ``toolConfig``/``toolChoice``, else ``None``."""
    config = body.get("toolConfig")
    if not isinstance(config, dict):
        return None
    tools = config.get("tools")
    if tools is None:
        return (
            _ONE
            + "Value null at 'toolConfig.tools' failed to satisfy constraint: "
            + ("Member must not be null")
        )
    if isinstance(tools, list) and not tools:
        return _ONE + f"Value at 'toolConfig.tools' {_AT_LEAST_ONE}"
    choice = config.get("toolChoice")
    if choice is None:
        return None
    members = [key for key in choice if key in _UNION_KEYS] if isinstance(choice, dict) else []
    if not isinstance(choice, dict) or len(members) != 1 or len(choice) != 1:
        return _ONE + (
            "Value at 'toolConfig.toolChoice' failed to satisfy constraint: "
            "Member must have exactly one member set"
        )
    if members == ["tool"]:
        name = (choice["tool"] or {}).get("name") if isinstance(choice["tool"], dict) else None
        if not name:
            return _ONE + f"Value at 'toolConfig.toolChoice.tool.name' {_AT_LEAST_ONE}"
        declared = {
            (t.get("toolSpec") or {}).get("name") for t in tools or [] if isinstance(t, dict)
        }
        if name not in declared:
            return "The tool specified in toolConfig.toolChoice isn't present in toolConfig.tools."
    return None
