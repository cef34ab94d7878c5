"""What the Gemini API answers to a request whose function call history is broken.

The texts are the real API's (public reports of the API's errors, Gemini rows) and so is the body:
``{"error": {"code": 400, "message": ..., "status": "INVALID_ARGUMENT"}}`` with
status 400 (continuedev/continue#11164 shows it whole). The history is the
request's ``contents``; a *call turn* is a ``model`` content with at least one
``functionCall`` part, a *response turn* a content with ``functionResponse``
parts. Walking ``contents`` in order, the first broken rule answers:

* a call turn that is first, or follows anything but a user turn or a response
  turn: ``Please ensure that function call turn comes immediately after a user
  turn or after a function response turn.`` (gemini-cli#11814: a history that
  starts with a call);
* a response turn that does not follow a call turn (two response turns in a
  row, or one after text): ``Please ensure that function response turn comes
  immediately after a function call turn.`` (langchain#27799; gemini-cli#26956);
* the content after a call turn carrying a different number of
  ``functionResponse`` parts than the call turn has ``functionCall`` parts
  (a plain user message counts as zero): ``Please ensure that the number of
  function response parts is equal to the number of function call parts of the
  function call turn.`` (gemini-cli#4217, #16415).

A missing ``contents`` and an unusable function-calling config are answered
first (:mod:`._tool_choice` lists the texts and their sources).

A call turn that ends the history is accepted (the model is asked to go on).
Ids are not compared: Gemini pairs responses by position and name, and 2.x
models send no ids. The trailing period of the second text and the zero-count
reading of a user message after a call turn are inferred, not captured.

A body the API cannot bind gets :func:`gemini_body_error` in the same shape:
Google's ``Invalid JSON payload received. Unexpected token.`` for broken or too
deep JSON, ``Invalid value at 'contents' (type.googleapis.com/...), string``
for a field of the wrong type (Google quotes the value where tooltape names its
type, so the answer stays short; the message name is inferred), and
``Request payload size exceeds the limit: N bytes.`` for too many bytes (a 400,
as Google sends it). The 408 text is tooltape's.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_body
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.fake_providers.dialects.gemini._tool_choice import gemini_request_problem
from tooltape.fake_providers.dialects.gemini._tools import gemini_tools_problem

__all__ = [
    "CALL_TURN_ORDER",
    "RESPONSE_COUNT",
    "RESPONSE_TURN_ORDER",
    "gemini_body_error",
    "validate_gemini_request",
]

_FIELDS: dict[str, tuple[type, ...]] = {
    "contents": (list,),
    "tools": (list,),
    "generationConfig": (dict,),
}
_MESSAGES = {
    "contents": "google.ai.generativelanguage.v1beta.Content",
    "tools": "google.ai.generativelanguage.v1beta.Tool",
    "generationConfig": "google.ai.generativelanguage.v1beta.GenerationConfig",
}

CALL_TURN_ORDER = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
RESPONSE_TURN_ORDER = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
RESPONSE_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)


def validate_gemini_request(request: ProviderRequest) -> ProviderError | None:
    """Gemini's 400 for a broken function call history in a ``generateContent`` request.

    Args:
        request: The request as the fake provider received it.

    Returns:
        ``None`` when the history is fine (or the body has no ``contents`` list),
        else the status and body the real API sends.
    """
    body, error = read_body(request, _FIELDS, gemini_body_error)
    if body is None:
        return error
    if message := gemini_request_problem(body) or gemini_tools_problem(body.get("tools")):
        return _error(message)
    if not isinstance(body.get("contents"), list):
        return None
    previous: str | None = None
    calls = 0
    for content in body["contents"]:
        kind, count = _classify(content)
        if previous == "call" and count != calls:
            return _error(RESPONSE_COUNT)
        if kind == "call" and previous not in ("user", "response"):
            return _error(CALL_TURN_ORDER)
        if kind == "response" and previous != "call":
            return _error(RESPONSE_TURN_ORDER)
        previous, calls = kind, count if kind == "call" else 0
    return None


def _classify(content: Any) -> tuple[str, int]:
    """The turn kind (``call``, ``response``, ``user``, ``model``) and its call/response count."""
    if not isinstance(content, dict):
        return "user", 0
    parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
    role = content.get("role") or "user"
    calls = sum(1 for p in parts if p.get("functionCall") is not None)
    responses = sum(1 for p in parts if p.get("functionResponse") is not None)
    if role == "model":
        return ("call", calls) if calls else ("model", 0)
    return ("response", responses) if responses else ("user", 0)


def gemini_body_error(problem: BodyProblem) -> ProviderError:
    """Gemini's error for a body it cannot bind."""
    if problem.kind == "type":
        where = f"'{problem.detail}' (type.googleapis.com/{_MESSAGES[problem.detail]})"
        return _error(f"Invalid value at {where}, {problem.got}")
    if problem.kind == "not_object":
        return _error(f"Invalid JSON payload received. Expected an object, got {problem.got}.")
    if problem.kind == "too_large":
        return _error(f"Request payload size exceeds the limit: {problem.detail}.")
    if problem.kind == "timeout":
        return _error("The request body was not received in time.", 408, "DEADLINE_EXCEEDED")
    return _error("Invalid JSON payload received. Unexpected token.")


def _error(message: str, status: int = 400, code: str = "INVALID_ARGUMENT") -> ProviderError:
    return ProviderError(
        status=status, body={"error": {"code": status, "message": message, "status": code}}
    )
