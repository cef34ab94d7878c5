"""Anthropic's request checks for tool pairing: the real 400s, with their exact texts.

The texts come from public reports of the API's errors (Anthropic rows) and the provider errors
quoted in the issues cited there. The API checks a request in two passes, and
so does :func:`validate_anthropic_request`, answering with the first problem:

1. Schema: every ``tool_use.id`` and ``tool_result.tool_use_id`` must be a
   string matching ``^[a-zA-Z0-9_-]+$`` (so ``""`` fails):
   ``messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'``.
2. Pairing, message by message:

   - an assistant ``tool_use`` whose id was already used in the request:
     ``messages.N.content.M: `tool_use` ids must be unique`` (M: the repeat);
   - assistant ``tool_use`` ids with no ``tool_result`` in the next message (or
     no next user message at all): ``messages.N: `tool_use` ids were found
     without `tool_result` blocks immediately after: <ids>. Each `tool_use`
     block must have a corresponding `tool_result` block in the next message.``
     (N: the assistant message);
   - every id answered, but the results do not open the next message (text
     first): ``messages.N+1: Did not find <count> `tool_result` block(s) at the
     beginning of this message. Messages following `tool_use` blocks must begin
     with a matching number of `tool_result` blocks.`` (count: the tool_use
     blocks to answer);
   - a ``tool_result`` whose id no ``tool_use`` of the previous message has:
     ``messages.N.content.M: unexpected `tool_use_id` found in `tool_result`
     blocks: <ids>. Each `tool_result` block must have a corresponding
     `tool_use` block in the previous message.`` (M: the first such block).

Evidence: the ``tool_use.id`` pattern text is quoted in
https://github.com/CommandCodeAI/command-code/issues/323; the ``tool_result``
path and the ``Field required`` / ``Input should be a valid string`` texts follow
the same schema-error form by analogy. The "Did not find" text carries a second
sentence that the provider reports leaves out (https://github.com/anthropics/claude-code/issues/37);
which of it and "were found without" the live API picks when both apply is our
reading of the reports, not documented.

Consecutive messages of one role are checked as sent (the API merges them
first; histories that rely on that are outside these checks). The error body
is ``{"type": "error", "error": {"type": "invalid_request_error", "message"}}``.

Before the pairing, missing fields and ``tool_choice`` (:mod:`._tool_choice`), then
the custom tools (:mod:`._tools`: a name, a schema) are checked.

A body the API cannot bind gets :func:`anthropic_body_error`: broken JSON the
real ``The request body is not valid JSON: <decoder message>: line L column C
(char N)`` (claude-code issues #5397, #6464; too deep nesting reads the same,
inferred); a field of the wrong type the schema form ``messages: Input should be
a valid list``; too many bytes the documented 413 ``request_too_large``
(``Request exceeds the maximum allowed number of bytes.``). The 408 text for a
body that never finished arriving is tooltape's.
"""

from __future__ import annotations

import re
from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_body
from tooltape.fake_providers._wire import ProviderError, ProviderRequest
from tooltape.fake_providers.dialects.anthropic._tool_choice import anthropic_request_problem
from tooltape.fake_providers.dialects.anthropic._tools import anthropic_tools_problem

__all__ = ["anthropic_body_error", "anthropic_pairing_error", "validate_anthropic_request"]

ANTHROPIC_FIELDS: dict[str, tuple[type, ...]] = {
    "messages": (list,),
    "model": (str,),
    "stream": (bool,),
    "max_tokens": (int,),
}
"""Top-level fields whose JSON type the API checks before anything else."""
_PYDANTIC_TYPES = {
    "messages": "a valid list",
    "model": "a valid string",
    "stream": "a valid boolean",
    "max_tokens": "a valid integer",
}

_ID = re.compile(r"[a-zA-Z0-9_-]+")
_ID_FIELDS = {"tool_use": "id", "tool_result": "tool_use_id"}

_MISSING_RESULTS = (
    "messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)
_RESULTS_NOT_FIRST = (
    "messages.{n}: Did not find {count} `tool_result` block(s) at the beginning of this "
    "message. Messages following `tool_use` blocks must begin with a matching number of "
    "`tool_result` blocks."
)
_UNEXPECTED_RESULT = (
    "messages.{n}.content.{m}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
    "message."
)
_DUPLICATE_ID = "messages.{n}.content.{m}: `tool_use` ids must be unique"


def validate_anthropic_request(request: ProviderRequest) -> ProviderError | None:
    """The 400 Anthropic answers to ``request``'s tool pairing, or ``None`` when it is fine."""
    body, error = read_body(request, ANTHROPIC_FIELDS, anthropic_body_error)
    if error is not None:
        return error
    if isinstance(body, dict) and (
        message := anthropic_request_problem(body) or anthropic_tools_problem(body.get("tools"))
    ):
        return _error(message)
    message = anthropic_pairing_error(body)
    return None if message is None else _error(message)


def anthropic_body_error(problem: BodyProblem) -> ProviderError:
    """Anthropic's error for a body it cannot bind."""
    if problem.kind == "syntax":
        return _error(f"The request body is not valid JSON: {problem.detail}")
    if problem.kind == "depth":
        return _error("The request body is not valid JSON: nesting too deep")
    if problem.kind == "not_object":
        return _error("Input should be a valid dictionary")
    if problem.kind == "type":
        expected = _PYDANTIC_TYPES.get(problem.detail, "of another type")
        return _error(f"{problem.detail}: Input should be {expected}")
    if problem.kind == "too_large":
        text = "Request exceeds the maximum allowed number of bytes."
        return _error(text, "request_too_large", 413)
    return _error("The request body was not received in time.", status=408)


def _error(message: str, kind: str = "invalid_request_error", status: int = 400) -> ProviderError:
    return ProviderError(
        status=status, body={"type": "error", "error": {"type": kind, "message": message}}
    )


def anthropic_pairing_error(body: object) -> str | None:
    """The error message for a Messages API request body, or ``None`` when pairing is fine."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return None
    messages = [m if isinstance(m, dict) else {} for m in body["messages"]]
    contents = [_blocks(message) for message in messages]
    return _schema_error(contents) or _pairing_error(messages, contents)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []  # a plain string holds no tool blocks
    return [block if isinstance(block, dict) else {} for block in content]


def _schema_error(contents: list[list[dict[str, Any]]]) -> str | None:
    for n, content in enumerate(contents):
        for m, block in enumerate(content):
            field = _ID_FIELDS.get(block.get("type", ""))
            if field is None:
                continue
            where = f"messages.{n}.content.{m}.{block['type']}.{field}"
            if field not in block:
                return f"{where}: Field required"
            value = block[field]
            if not isinstance(value, str):
                return f"{where}: Input should be a valid string"
            if not _ID.fullmatch(value):
                return f"{where}: String should match pattern '^[a-zA-Z0-9_-]+$'"
    return None


def _of_type(content: list[dict[str, Any]], kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(m, block) for m, block in enumerate(content) if block.get("type") == kind]


def _pairing_error(
    messages: list[dict[str, Any]], contents: list[list[dict[str, Any]]]
) -> str | None:
    used: set[str] = set()
    for n, (message, content) in enumerate(zip(messages, contents, strict=True)):
        if message.get("role") == "assistant":
            uses = _of_type(content, "tool_use")
            for m, block in uses:
                if block["id"] in used:
                    return _DUPLICATE_ID.format(n=n, m=m)
                used.add(block["id"])
            error = _answer_error(n, [block["id"] for _, block in uses], messages, contents)
            if error:
                return error
        elif message.get("role") == "user":
            error = _orphan_error(n, messages, contents)
            if error:
                return error
    return None


def _answer_error(
    n: int, ids: list[str], messages: list[dict[str, Any]], contents: list[list[dict[str, Any]]]
) -> str | None:
    """The error when the message after assistant message ``n`` does not answer ``ids``."""
    if not ids:
        return None
    answered = n + 1 < len(messages) and messages[n + 1].get("role") == "user"
    following = contents[n + 1] if answered else []
    results = _of_type(following, "tool_result")
    missing = [i for i in ids if i not in {block["tool_use_id"] for _, block in results}]
    if missing:
        return _MISSING_RESULTS.format(n=n, ids=", ".join(missing))
    if [m for m, _ in results] != list(range(len(results))):
        return _RESULTS_NOT_FIRST.format(n=n + 1, count=len(ids))
    return None


def _orphan_error(
    n: int, messages: list[dict[str, Any]], contents: list[list[dict[str, Any]]]
) -> str | None:
    """The error when user message ``n`` answers calls the previous message did not make."""
    previous = contents[n - 1] if n > 0 and messages[n - 1].get("role") == "assistant" else []
    made = {block["id"] for _, block in _of_type(previous, "tool_use")}
    results = _of_type(contents[n], "tool_result")
    orphans = [
        (m, block["tool_use_id"]) for m, block in results if block["tool_use_id"] not in made
    ]
    if not orphans:
        return None
    ids = ", ".join(dict.fromkeys(i for _, i in orphans))
    return _UNEXPECTED_RESULT.format(n=n, m=orphans[0][0], ids=ids)
