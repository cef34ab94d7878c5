"""What Ollama's ``/api/chat`` rejects.

Ollama checks no tool pairing (public reports of the API's errors has no Ollama row): a history with
a dangling call or an orphan ``tool`` message is rendered into the prompt as it
is. Its chat handler rejects only bodies it cannot bind, with gin's
``{"error": "..."}`` shape (server/routes.go ``ChatHandler``): an empty body
(``missing request body``), JSON that Go's decoder refuses, and a missing
model (``model is required``). Go's decoder texts are reproduced for the common
cases (first bad character, end of input, a non-object body, a non-string
model), not for every possible syntax error. Nesting deeper than Go's decoder
allows gets its ``exceeded max depth``; ``messages`` that is not an array gets
the unmarshal text. :func:`ollama_body_error` answers a body over the server's
size limit (Go's ``http: request body too large``, 413) or one that never
finished arriving (tooltape's text, 408) in the same shape.

A body with ``"stream": false`` is valid: it gets the whole answer as one JSON
object (:mod:`tooltape.fake_providers.dialects.ollama._complete`).
"""

from __future__ import annotations

import json
from typing import Any

from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.harness.json_text import loads

__all__ = ["ollama_body_error", "validate_ollama_request"]

_GO_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "bool"}


def validate_ollama_request(request: ProviderRequest) -> ProviderError | None:
    """Ollama's 400 for a body its chat handler cannot bind.

    Args:
        request: The request as the fake provider received it.

    Returns:
        ``None`` when Ollama would run the request, else the status and ``{"error"}`` body.
    """
    text = request.body.decode("utf-8", errors="replace")
    if not text.strip():
        return _error("missing request body")
    try:
        body: Any = loads(text)
    except json.JSONDecodeError as error:
        return _error(_go_syntax_error(text, error))
    except RecursionError:
        return _error("exceeded max depth")
    if body is not None and not isinstance(body, dict):
        return _error(_unmarshal("Go value of type api.ChatRequest", body))
    body = body or {}
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        return _error(_unmarshal("Go struct field ChatRequest.model of type string", model))
    messages = body.get("messages")
    if messages is not None and not isinstance(messages, list):
        field = "Go struct field ChatRequest.messages of type []api.Message"
        return _error(_unmarshal(field, messages))
    if not model:
        return _error("model is required")
    return None


def ollama_body_error(problem: BodyProblem) -> ProviderError:
    """Ollama's error for a body over the size limit or never finished (others: validation)."""
    if problem.kind == "too_large":
        return _error("http: request body too large", 413)
    if problem.kind == "timeout":
        return _error("the request body was not received in time", 408)
    return _error("unexpected EOF")


def _error(message: str, status: int = 400) -> ProviderError:
    return ProviderError(status, {"error": message})


def _unmarshal(target: str, value: Any) -> str:
    kind = "object" if isinstance(value, dict) else _GO_TYPES.get(type(value), "value")
    return f"json: cannot unmarshal {kind} into {target}"


def _go_syntax_error(text: str, error: json.JSONDecodeError) -> str:
    rest = text[error.pos :].lstrip()
    if not rest:
        return "unexpected EOF"
    where = "beginning of value" if not text[: error.pos].strip() else "value"
    return f"invalid character {rest[0]!r} looking for {where}"
