"""Cohere v2 chat's 400 for a tool call left without a result.

The one pairing error on record for Cohere's v2 chat API is Command A's: an
assistant message with ``tool_calls`` must be followed by ``tool`` messages
answering each ``tool_call_id`` (https://github.com/oracle/langchain-oracle/issues/10,
2025-08), answered with Cohere's error shape ``{"message": "invalid request: ..."}``
and status 400; the cohere SDK raises it as ``BadRequestError``. The text is
OpenAI's with Cohere's ``invalid request:`` prefix; the missing ids follow the
colon, joined with ``", "`` as OpenAI joins them (the recorded message elides them).

Deliberate limits: the same issue reports that Command R and R+ accepted such
histories; tooltape applies the Command A rule to every model, since a dangling
call is a bug whichever model is asked. A ``tool`` message that answers no call of
the assistant message before it, and a tool whose ``parameters`` is not a JSON Schema,
get a 400 in the same shape; no text is on record for either, so these two are inferred.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_body
from tooltape.fake_providers._tool_schemas import function_schema_problem
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.fake_providers.dialects.cohere._tool_choice import cohere_request_problem

__all__ = ["MISSING_RESULTS", "ORPHAN_RESULT", "cohere_body_error", "validate_cohere_request"]

MISSING_RESULTS = (
    "invalid request: An assistant message with 'tool_calls' must be followed by tool messages "
    "responding to each 'tool_call_id'. The following tool_call_ids did not have response "
    "messages: {ids}"
)
"""The 400 text for calls without results; ``{ids}`` is the missing ids, comma-separated."""

_FIELDS: dict[str, tuple[type, ...]] = {"messages": (list,), "model": (str,), "stream": (bool,)}


def validate_cohere_request(request: ProviderRequest) -> ProviderError | None:
    """Cohere's 400 for an assistant ``tool_calls`` message whose calls go unanswered.

    Args:
        request: The request as the fake provider received it.

    Returns:
        ``None`` when the history pairs every call (or is not a chat body), else the 400.
    """
    body, error = read_body(request, _FIELDS, cohere_body_error)
    if body is None:
        return error
    if text := cohere_request_problem(body):
        return ProviderError(400, {"message": text})
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    for position, message in enumerate(messages):
        missing = _unanswered(message, messages[position + 1 :])
        if missing:
            text = MISSING_RESULTS.format(ids=", ".join(missing))
            return ProviderError(400, {"message": text})
    text = _orphan_result(messages) or _bad_schema(body.get("tools"))
    return None if text is None else ProviderError(400, {"message": text})


ORPHAN_RESULT = (
    "invalid request: the tool message with tool_call_id {id} does not respond to a "
    "'tool_calls' entry of the assistant message before it"
)
"""The 400 text for a tool result that answers no call (inferred)."""


def _orphan_result(messages: list[Any]) -> str | None:
    asked: set[str] = set()
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            asked = {
                str(call.get("id")) for call in message.get("tool_calls") or ()
                if isinstance(call, dict)
            }  # fmt: skip
        elif message.get("role") == "tool":
            if str(message.get("tool_call_id")) not in asked:
                return ORPHAN_RESULT.format(id=message.get("tool_call_id"))
        else:
            asked = set()
    return None


def _bad_schema(tools: Any) -> str | None:
    if (found := function_schema_problem(tools)) is None:
        return None
    n, _, problem = found
    return f"invalid request: tools[{n}].function.parameters is not a JSON schema: {problem}"


def cohere_body_error(problem: BodyProblem) -> ProviderError:
    """Cohere's error for a body it cannot bind."""
    texts = {
        "syntax": "invalid request: the body is not valid JSON",
        "depth": "invalid request: the body is not valid JSON",
        "not_object": f"invalid request: expected a JSON object, got {problem.got}",
        "type": f"invalid request: {problem.detail} must not be a {problem.got}",
        "too_large": f"invalid request: body too large ({problem.detail})",
        "timeout": "invalid request: the body was not received in time",
    }
    return ProviderError(problem.status, {"message": texts[problem.kind]})


def _unanswered(message: Any, following: list[Any]) -> list[str]:
    """The ids of ``message``'s calls that the ``tool`` messages right after it do not answer."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    ids = [
        call["id"]
        for call in message.get("tool_calls") or ()
        if isinstance(call, dict) and isinstance(call.get("id"), str)
    ]
    answered: set[str] = set()
    for reply in following:
        if not isinstance(reply, dict) or reply.get("role") != "tool":
            break
        answered.add(str(reply.get("tool_call_id")))
    return [call_id for call_id in ids if call_id not in answered]
