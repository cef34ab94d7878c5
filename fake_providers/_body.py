"""Reading a request body the way a provider's front end does, before any history check.

A real API rejects a body it cannot bind (unparsable or too deeply nested
JSON, a field of the wrong type, too many bytes, bytes that never finish
arriving) with a 4xx in its own error shape; it never answers 500. Every
dialect's validation reads the body through :func:`read_body` (:func:`read_json`
and :func:`field_problem`), and turns a :class:`BodyProblem` into its provider's
error body (each ``_*_validate`` module has a ``*_body_error`` function).

Nesting deeper than the interpreter's recursion limit makes :func:`json.loads`
raise :class:`RecursionError`; that is read as unparsable JSON, so a body of
100,000 ``[`` gets a 400 like any other broken JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.harness.json_text import loads

__all__ = ["BodyProblem", "field_problem", "json_type", "read_body", "read_json"]

ProblemKind = Literal["syntax", "depth", "not_object", "type", "too_large", "timeout"]

_STATUS = {"too_large": 413, "timeout": 408}

_JSON_TYPES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


@dataclass(frozen=True)
class BodyProblem:
    """Why a request body cannot be bound, before any provider rule is checked."""

    kind: ProblemKind
    """``syntax``, ``depth``, ``not_object``, ``type``, ``too_large`` or ``timeout``."""
    detail: str = ""
    """The decoder's message (``syntax``), the field name (``type``) or a limit (``too_large``)."""
    got: str = ""
    """The JSON type found (``type``, ``not_object``): ``string``, ``array``..."""
    error: json.JSONDecodeError | None = None
    """The decoder's error, for dialects that quote its position."""

    @property
    def status(self) -> int:
        """413 for a body over the limit, 408 for one that never finished, else 400."""
        return _STATUS.get(self.kind, 400)


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type (``string``, ``array``, ``object``...)."""
    return _JSON_TYPES.get(type(value), "value")


def read_json(request: ProviderRequest) -> tuple[Any, BodyProblem | None]:
    """The parsed body (``None`` when empty), or the problem that stops parsing it."""
    if not request.body.strip():
        return None, None
    try:
        return loads(request.body), None
    except json.JSONDecodeError as error:
        return None, BodyProblem("syntax", str(error), error=error)
    except UnicodeDecodeError:
        return None, BodyProblem("syntax", "invalid UTF-8 in the body")
    except RecursionError:
        return None, BodyProblem("depth", "the body nests too deeply")


def read_body(
    request: ProviderRequest,
    fields: Mapping[str, tuple[type, ...]],
    body_error: Callable[[BodyProblem], ProviderError],
) -> tuple[dict[str, Any] | None, ProviderError | None]:
    """The body as a JSON object (``None`` when empty), or the provider's error for it.

    :func:`read_json`, then :func:`field_problem` against ``fields``: the two
    steps every dialect's validation starts with before its own rules. A
    problem is answered with ``body_error(problem)``, the dialect's own shape.
    """
    body, problem = read_json(request)
    problem = problem or field_problem(body, fields)
    if problem is not None:
        return None, body_error(problem)
    return body, None


def field_problem(body: Any, fields: Mapping[str, tuple[type, ...]]) -> BodyProblem | None:
    """The first problem with a parsed body: not an object, or a present field of a wrong type.

    Args:
        body: The parsed body (``None`` for an empty one, which passes).
        fields: Field name to the Python types its JSON value may have.
    """
    if body is None:
        return None
    if not isinstance(body, dict):
        return BodyProblem("not_object", got=json_type(body))
    for name, types in fields.items():
        if name in body and not isinstance(body[name], types):
            return BodyProblem("type", name, got=json_type(body[name]))
    return None
