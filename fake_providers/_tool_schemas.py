"""Is a tool's parameter schema a JSON Schema? Checked as the providers check it.

Every provider refuses a tool whose schema is not one (``{"type": "strnig"}``,
``"x"``): OpenAI with jsonschema's own message (``[] is not of type 'object',
'boolean'``, https://github.com/FoundationAgents/OpenManus/issues/1162), Anthropic
against draft 2020-12. :func:`schema_problem` validates a schema against the
meta-schema of the draft its ``$schema`` names (draft 2020-12 when it names
none) with ``jsonschema`` and returns the message of the best-matching error.
A request carries its schemas again on every turn, so answers are cached by the
schema's canonical JSON.

Each dialect words the refusal as its provider does and checks tool names
against its own pattern (the ``_validate`` module of each dialect, with links).
"""

from __future__ import annotations

import functools

from tooltape.harness.json_text import compact, loads

__all__ = ["function_schema_problem", "schema_problem"]


def schema_problem(schema: object) -> str | None:
    """Why ``schema`` is not a JSON Schema (jsonschema's best message), else ``None``."""
    try:
        key = compact(schema, sort_keys=True, ensure_ascii=True)
    except (TypeError, ValueError):  # parsed JSON always dumps; anything else is no schema
        return f"{type(schema).__name__} is not a JSON value"
    return _problem(key)


def function_schema_problem(tools: object) -> tuple[int, object, str] | None:
    """The first ``{"function": {"parameters": ...}}`` tool whose schema is not one.

    Returns:
        ``(position, function name, jsonschema's message)``, or ``None`` when every
        OpenAI-shaped tool's ``parameters`` is a JSON Schema (or absent).
    """
    for n, tool in enumerate(tools if isinstance(tools, list) else ()):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or function.get("parameters") is None:
            continue
        problem = schema_problem(function["parameters"])
        if problem is not None:
            return n, function.get("name"), problem
    return None


@functools.lru_cache(maxsize=512)
def _problem(canonical: str) -> str | None:
    from jsonschema.exceptions import best_match
    from jsonschema.validators import Draft202012Validator, validator_for

    schema = loads(canonical)
    # validator_for reads $schema from a mapping only; anything else is judged by 2020-12.
    cls = validator_for(schema, default=Draft202012Validator) if isinstance(schema, dict) else None
    cls = cls or Draft202012Validator
    error = best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    return None if error is None else error.message
