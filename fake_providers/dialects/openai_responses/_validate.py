"""Request validation for the Responses API: function calls and their outputs must pair up.

The real API answers a broken ``input`` history with HTTP 400 and one of two
texts (public reports of the API's errors)::

    No tool output found for function call call_….
    No tool call found for function call output with call_id call_….

in the body ``{"error": {"message", "type": "invalid_request_error",
"param": "input", "code": null}}``. The items are read in order, as the
server does: a ``function_call_output`` must follow a ``function_call`` with
its ``call_id`` (an output that comes first is an orphan), and after the last
item every ``function_call`` must have had its output. The first problem
found wins: an orphan output as soon as it is met, else the first call left
without output.

Server-side state: with ``previous_response_id``, a ``conversation``, or an
``item_reference`` in ``input``, earlier items live on the server, which a
stateless fake cannot see. Outputs whose call is not in ``input`` are then
accepted as answering those stored calls; calls that *are* in ``input`` still
need their outputs. Requests without a list ``input`` (a plain string) have
nothing to pair and pass; a body the API cannot bind (broken JSON, ``input``
that is neither a string nor a list) gets OpenAI's own 400
(:func:`~tooltape.fake_providers.dialects.openai_chat._validate.openai_body_error`).
A function tool whose name or schema OpenAI refuses gets the texts of
:mod:`tooltape.fake_providers.dialects.openai_chat._tools`.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers._body import read_body
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.fake_providers.dialects.openai_chat._tool_choice import responses_request_error
from tooltape.fake_providers.dialects.openai_chat._tools import responses_tools_error
from tooltape.fake_providers.dialects.openai_chat._validate import openai_body_error

__all__ = ["validate_responses_request"]

_FIELDS: dict[str, tuple[type, ...]] = {"input": (str, list), "model": (str,), "stream": (bool,)}


def validate_responses_request(request: ProviderRequest) -> ProviderError | None:
    """``None`` when the request's function calls and outputs pair, else the API's 400."""
    payload, error = read_body(request, _FIELDS, openai_body_error)
    if payload is None:
        return error
    if rejection := responses_request_error(payload) or responses_tools_error(payload.get("tools")):
        return rejection
    if not isinstance(payload.get("input"), list):
        return None
    items = [item for item in payload["input"] if isinstance(item, dict)]
    server_state = bool(payload.get("previous_response_id") or payload.get("conversation")) or any(
        item.get("type") == "item_reference" for item in items
    )
    called: set[Any] = set()
    waiting: dict[Any, None] = {}  # call ids without output yet, in order of appearance
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            called.add(item.get("call_id"))
            waiting.setdefault(item.get("call_id"), None)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id in called:
                waiting.pop(call_id, None)
            elif not server_state:
                return _invalid_input(
                    f"No tool call found for function call output with call_id {call_id}."
                )
    if waiting:
        return _invalid_input(f"No tool output found for function call {next(iter(waiting))}.")
    return None


def _invalid_input(message: str) -> ProviderError:
    """The Responses API's 400 body for a bad ``input``."""
    return ProviderError(
        status=400,
        body={
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": "input",
                "code": None,
            }
        },
    )
