"""What OpenAI Chat Completions answers to a request whose tool-call history is broken.

The texts and the error body are the real API's (public reports of the API's errors, OpenAI rows):
``{"error": {"message", "type": "invalid_request_error", "param", "code"}}`` with
status 400. Checks run in the API's order: field validation first (the first bad
id wins), then the pairing walk over the history.

* a dangling call: ``An assistant message with 'tool_calls' must be followed by
  tool messages responding to each 'tool_call_id'. The following tool_call_ids did
  not have response messages: call_…`` with ``param`` ``messages.[N].role``, N the
  first message after the tool messages (``messages`` when the history ends there);
* an orphan result, or one answering an id the previous assistant message did not
  call: ``Invalid parameter: messages with role 'tool' must be a response to a
  preceeding message with 'tool_calls'.`` (the API's spelling);
* the same id answered twice: ``Invalid parameter: Duplicate value for
  'tool_call_id' of 'call_…', in messages[I] and messages[J].``
  (https://github.com/agno-agi/agno/issues/5116). Duplicate ids inside one
  ``tool_calls`` array are accepted when each is answered once;
* a missing, null or empty id: OpenAI's schema errors (``missing_required_parameter``,
  ``invalid_type``, ``empty_string``). The empty-string text is OpenAI's generic
  one, as seen for ``messages[N].tool_calls[0].function.name``
  (https://github.com/continuedev/continue/issues/9784).

A missing ``messages`` and a ``tool_choice`` the request cannot honour are
answered first (:mod:`._tool_choice` lists the texts and their sources), then a
tool whose name or schema OpenAI refuses (:mod:`._tools`).

The ``param`` of a dangling call at the end of the history and the orphan reading
of an unknown id are inferred, not captured.

A body the API cannot bind gets :func:`openai_body_error`: the real parse text
(``We could not parse the JSON body of your request. ...``) for broken or too
deeply nested JSON and for a body that is not an object (that last reading is
inferred), and ``Invalid type for 'messages': expected an array of objects, but
got a string instead.`` (code ``invalid_type``) for a field of the wrong type.
The 413 and 408 texts (too large, never finished) are tooltape's, in the same shape.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_body
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.fake_providers.dialects.openai_chat._tool_choice import chat_request_error
from tooltape.fake_providers.dialects.openai_chat._tools import chat_tools_error

__all__ = ["openai_body_error", "validate_chat_request"]

OPENAI_PARSE_ERROR = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please contact "
    "us through our help center at help.openai.com.)"
)
_EXPECTED = {
    "messages": "an array of objects",
    "model": "a string",
    "stream": "a boolean",
    "tools": "an array of objects",
    "input": "one of a string or array of input items",
}
_ARTICLES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a decimal",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}
_CHAT_FIELDS: dict[str, tuple[type, ...]] = {
    "messages": (list,),
    "model": (str, type(None)),  # Azure deployments send null: the model is in the URL
    "stream": (bool,),
    "tools": (list,),
}

_DANGLING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
_ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'."
)
_DUPLICATE = (
    "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}', "
    "in messages[{first}] and messages[{second}]."
)
_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a decimal", list: "an array"}


def validate_chat_request(request: ProviderRequest) -> ProviderError | None:
    """OpenAI's 400 for a broken tool-call history in a Chat Completions request.

    Args:
        request: The request as the fake provider received it.

    Returns:
        ``None`` when the history is fine (or is not a Chat Completions body at
        all), else the status and body the real API sends.
    """
    body, error = read_body(request, _CHAT_FIELDS, openai_body_error)
    if body is None:
        return error
    if rejection := chat_request_error(body) or chat_tools_error(body.get("tools")):
        return rejection
    if not isinstance(body.get("messages"), list):
        return None
    messages: list[Any] = body["messages"]
    return _field_error(messages) or _pairing_error(messages)


def openai_body_error(problem: BodyProblem) -> ProviderError:
    """OpenAI's error for a body it cannot bind (both OpenAI dialects share it)."""
    if problem.kind == "type":
        field = problem.detail
        expected = _EXPECTED.get(field, "another type")
        got = _ARTICLES.get(problem.got, problem.got)
        text = f"Invalid type for '{field}': expected {expected}, but got {got} instead."
        return _error(text, field, "invalid_type")
    if problem.kind == "too_large":
        return _error(f"Request body too large: {problem.detail}.", None, "request_too_large", 413)
    if problem.kind == "timeout":
        return _error("The request body was not received in time.", None, "timeout", 408)
    return _error(OPENAI_PARSE_ERROR, None)


def _error(
    message: str, param: str | None, code: str | None = None, status: int = 400
) -> ProviderError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ProviderError(status=status, body={"error": error})


def _field_error(messages: list[Any]) -> ProviderError | None:
    for n, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool":
            if problem := _id_problem(message, "tool_call_id", f"messages[{n}].tool_call_id"):
                return problem
        elif message.get("role") == "assistant" and "tool_calls" in message:
            calls = message["tool_calls"]
            if calls == []:
                path = f"messages[{n}].tool_calls"
                return _error(
                    f"Invalid '{path}': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.",
                    path,
                    "empty_array",
                )
            for m, call in enumerate(calls if isinstance(calls, list) else []):
                path = f"messages[{n}].tool_calls[{m}].id"
                if isinstance(call, dict) and (problem := _id_problem(call, "id", path)):
                    return problem
    return None


def _id_problem(holder: dict[str, Any], key: str, path: str) -> ProviderError | None:
    if key not in holder:
        return _error(f"Missing required parameter: '{path}'.", path, "missing_required_parameter")
    value = holder[key]
    if value == "":
        return _error(
            f"Invalid '{path}': empty string. Expected a string with minimum length 1, "
            "but got an empty string instead.",
            path,
            "empty_string",
        )
    if not isinstance(value, str):
        got = "null" if value is None else _TYPE_NAMES.get(type(value), "an object")
        return _error(
            f"Invalid type for '{path}': expected a string, but got {got} instead.",
            path,
            "invalid_type",
        )
    return None


def _pairing_error(messages: list[Any]) -> ProviderError | None:
    called: list[Any] | None = None  # ids of the open assistant message's tool_calls
    answered: dict[Any, int] = {}
    for n, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            call_id = message.get("tool_call_id")
            if called is None or call_id not in called:
                return _error(_ORPHAN, f"messages.[{n}].role")
            if call_id in answered:
                text = _DUPLICATE.format(id=call_id, first=answered[call_id], second=n)
                return _error(text, f"messages.[{n}].tool_call_id")
            answered[call_id] = n
            continue
        if called is not None and (dangling := _unanswered(called, answered)):
            return _error(_DANGLING.format(ids=dangling), f"messages.[{n}].role")
        called, answered = None, {}
        if role == "assistant" and message.get("tool_calls"):
            called = [c.get("id") for c in message["tool_calls"] if isinstance(c, dict)]
    if called is not None and (dangling := _unanswered(called, answered)):
        return _error(_DANGLING.format(ids=dangling), "messages")
    return None


def _unanswered(called: list[Any], answered: dict[Any, int]) -> str:
    missing = [call_id for call_id in dict.fromkeys(called) if call_id not in answered]
    return ", ".join(str(call_id) for call_id in missing)
