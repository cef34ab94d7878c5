"""What Mistral's ``/v1/chat/completions`` rejects, with its error envelope.

Mistral answers every rejected request with ``{"object": "error", "message": ...,
"type": "invalid_request_error", "param": null, "code": null}``. A body its
request model cannot bind gets 422 with pydantic's ``{"detail": [...]}`` as the
message (recorded: mistralai/client-python#91, an ``extra_forbidden`` entry with
``loc: ["body", "tools", 0, "function", "required"]``; mistralai/platform-docs-public#212,
a ``float_type`` entry). The entries tooltape writes are pydantic v2's for the
same failure: ``missing`` / ``Field required`` for an absent ``messages`` or
``model``, ``list_type`` for ``messages`` that is not an array, and for
``tool_choice`` an ``enum`` entry (a string other than ``auto``, ``none``,
``any``, ``required``) or a ``missing`` entry (an object without
``function.name``). These texts are inferred from pydantic, not recorded.

A replayed tool-call id that is not 9 letters and digits gets the 400
of ``Tool call id was null but must be a-z, A-Z, 0-9, with a length of 9.``
(https://github.com/mistralai/client-js/issues/69), in the same envelope; the
``was <id>`` form for a non-null id is inferred from that text. ``"stream": false``
is valid: it gets the non-streamed answer (``_complete``).

Tool results must answer the calls just before them, one for one: a history where
an assistant's ``tool_calls`` and the ``tool`` messages after it differ in number (a
call left unanswered, or a result that answers no call) gets the 400 ``Not the same
number of function calls and responses`` (mistralai/client-ts#106,
camel-ai/camel#1467). A ``tool_choice`` naming a function that is not among the
``tools`` and a tool whose ``parameters`` is not a JSON Schema get a 400 in the same
envelope; those two texts are inferred, not recorded.
"""

from __future__ import annotations

import re
from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_json
from tooltape.fake_providers._tool_schemas import function_schema_problem
from tooltape.fake_providers._wire import ProviderError, ProviderRequest

__all__ = ["TOOL_CHOICES", "UNPAIRED", "mistral_body_error", "validate_mistral_request"]

TOOL_CHOICES = ("auto", "none", "any", "required")
"""The string values Mistral's ``tool_choice`` accepts."""

_ID = re.compile(r"[A-Za-z0-9]{9}")
_ID_RULE = "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9."
_STATUS = {"too_large": 413, "timeout": 408}


def validate_mistral_request(request: ProviderRequest) -> ProviderError | None:
    """Mistral's 422 for a body it cannot bind, or its 400 for a foreign tool-call id.

    Args:
        request: The request as the fake provider received it.

    Returns:
        ``None`` when Mistral would run the request, else the status and error body.
    """
    body, problem = read_json(request)
    if problem is not None:
        return mistral_body_error(problem)
    if body is None:
        return _invalid(
            [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]
        )
    if not isinstance(body, dict):
        text = "Input should be a valid dictionary or object to extract fields from"
        return _invalid([_entry("model_attributes_type", [], text, body)])
    detail = [*_required(body), *_tool_choice(body.get("tool_choice"))]
    if detail:
        return _invalid(detail)
    if refusal := _unknown_choice(body) or _bad_schema(body.get("tools")):
        return ProviderError(400, _envelope(refusal))
    messages = body.get("messages") or []
    return _foreign_id(messages) or _unpaired(messages)


def mistral_body_error(problem: BodyProblem) -> ProviderError:
    """Mistral's answer to a body that is not JSON, too large or never finished."""
    if problem.kind in _STATUS:
        text = "Request body too large" if problem.kind == "too_large" else "Request timeout"
        return ProviderError(_STATUS[problem.kind], _envelope(text))
    entry = _entry("json_invalid", [0], "JSON decode error", {})
    entry["ctx"] = {"error": problem.detail or problem.kind}
    return _invalid([entry])


def _required(body: dict[str, Any]) -> list[dict[str, Any]]:
    detail = [
        _entry("missing", [name], "Field required", body)
        for name in ("model", "messages")
        if name not in body
    ]
    messages = body.get("messages")
    if "messages" in body and not isinstance(messages, list):
        detail.append(_entry("list_type", ["messages"], "Input should be a valid list", messages))
    return detail


def _tool_choice(choice: Any) -> list[dict[str, Any]]:
    if choice is None or choice in TOOL_CHOICES:
        return []
    if isinstance(choice, dict):
        function = choice.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            return []
        return [_entry("missing", ["tool_choice", "function", "name"], "Field required", choice)]
    expected = "'auto', 'none', 'any' or 'required'"
    entry = _entry("enum", ["tool_choice"], f"Input should be {expected}", choice)
    entry["ctx"] = {"expected": expected}
    return [entry]


UNPAIRED = "Not the same number of function calls and responses"
"""Mistral's 400 text when tool results do not answer the calls before them one for one."""


def _function_names(tools: Any) -> list[str]:
    functions = (
        [t.get("function") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    )
    return [f["name"] for f in functions if isinstance(f, dict) and isinstance(f.get("name"), str)]


def _unknown_choice(body: dict[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or not isinstance(choice.get("function"), dict):
        return None
    name = choice["function"].get("name")
    names = _function_names(body.get("tools"))
    if name in names:
        return None
    return f"Tool choice function {name!r} is not one of the tools: {', '.join(names) or 'none'}"


def _bad_schema(tools: Any) -> str | None:
    if (found := function_schema_problem(tools)) is None:
        return None
    _, name, problem = found
    return f"Invalid tool schema for function {name!r}: {problem}"


def _unpaired(messages: list[Any]) -> ProviderError | None:
    """The 400 when a run of ``tool`` messages does not answer the calls just before it."""
    calls: int | None = None  # the calls of the assistant message the run answers
    results = 0
    for message in [*messages, None]:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            results += 1
            continue
        closes_a_run = (calls is not None and message is not None) or results
        if closes_a_run and (calls or 0) != results:
            return ProviderError(400, _envelope(UNPAIRED))
        calls, results = None, 0
        if role == "assistant" and isinstance(message, dict) and message.get("tool_calls"):
            calls = len(message["tool_calls"])
    return None


def _foreign_id(messages: list[Any]) -> ProviderError | None:
    for message in messages:
        if not isinstance(message, dict):
            continue
        ids = [c.get("id") for c in message.get("tool_calls") or () if isinstance(c, dict)]
        if message.get("role") == "tool":
            ids.append(message.get("tool_call_id"))
        for call_id in ids:
            if not (isinstance(call_id, str) and _ID.fullmatch(call_id)):
                text = _ID_RULE.format(id="null" if call_id is None else call_id)
                return ProviderError(400, _envelope(text))
    return None


def _entry(kind: str, loc: list[Any], msg: str, value: Any) -> dict[str, Any]:
    return {"type": kind, "loc": ["body", *loc], "msg": msg, "input": value}


def _invalid(detail: list[dict[str, Any]]) -> ProviderError:
    return ProviderError(422, _envelope({"detail": detail}))


def _envelope(message: Any) -> dict[str, Any]:
    return {
        "object": "error",
        "message": message,
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
