"""Bedrock's request checks for tool pairing: the real 400s, with their exact texts.

Bedrock answers a request it rejects with HTTP 400, the header
``x-amzn-ErrorType: ValidationException:...`` and the body ``{"message": ...}``;
botocore raises ``ClientError`` (``client.exceptions.ValidationException``)
with that message. :func:`bedrock_error_wire` builds that response with the header.

Converse (``/model/{modelId}/converse-stream``) checks a request in the order
below and answers with the first problem (texts: public reports of the API's errors, Bedrock rows):

1. Constraints, AWS's validation form, paths 1-based:
   ``1 validation error detected: Value at
   'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy
   constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+``
   (ids: 1 to 64 characters of ``[a-zA-Z0-9_.:-]``; tool names of
   ``[a-zA-Z0-9_-]``), several joined with ``; `` under ``N validation errors
   detected: `` (https://github.com/tontinton/maki/issues/38). botocore itself
   refuses an empty id before sending (``ParamValidationError``).
2. ``The toolConfig field must be defined when using toolUse and toolResult
   content blocks.`` when the history holds tool blocks and ``toolConfig`` is absent.
3. Pairing, message by message (indexes 0-based):
   ``The toolUse blocks at messages.N.content contain duplicate Ids: <ids>``
   (N: the assistant message, our reading of the text);
   ``The number of toolResult blocks at messages.N.content exceeds the number
   of toolUse blocks of previous turn.`` (N: the user message);
   ``Expected toolResult blocks at messages.N.content for the following Ids:
   <ids>`` (N: the message after the calls; ids joined with ``, ``,
   https://github.com/agno-agi/agno/issues/6698). An assistant message with
   calls that ends the history is not checked.
4. For Anthropic models, Claude's own check passes through with Bedrock's
   prefix: ``The model returned the following errors: messages.N: Did not find
   <count> tool_result block(s) at the beginning of this message. Messages
   following tool_use blocks must begin with a matching number of tool_result
   blocks.`` (https://github.com/langchain-ai/langchain-aws/issues/451).

Before those, a ``toolConfig`` that cannot honour its ``toolChoice`` is answered
(:mod:`._tool_choice` lists the texts and their sources).

Invoke checks Claude's required keys first, with Bedrock's schema text
``Malformed input request: #: required key [max_tokens] not found, please
reformat your input and try again.`` (the form of the wrong-type text below),
then Claude's ``tool_choice`` rules.

Invoke (``/model/{modelId}/invoke-with-response-stream``) with an Anthropic
Messages body gets Claude's own text unwrapped (the checks of
:mod:`tooltape.fake_providers.dialects.anthropic._validate`):
https://github.com/nulib/dc-api-v2/pull/296 quotes ``validationException ...
InvokeModelWithResponseStream operation: messages.4: Did not find 1
`tool_result` block(s) ...``. The ``The model returned the following errors:``
prefix of the provider reports comes from Converse (https://github.com/pydantic/pydantic-ai/issues/3253).

Where the live service sends Claude's errors: inside a 200 stream, as a
``validationException`` exception message (botocore's ``EventStreamError``,
lowercase code), per both reports above. A validation answer here is an HTTP
400; :func:`tooltape.fake_providers.dialects.bedrock._converse.bedrock_exception_wire` renders the
in-stream form to queue as a turn.

A body Bedrock cannot bind gets :func:`bedrock_body_error`: Converse answers
broken JSON or a field of the wrong type with a ``SerializationException``
(``x-amzn-ErrorType``) and a ``{"message"}`` body; invoke with Claude's
``Malformed input request: #/messages: expected type: JSONArray, found: String,
please reformat your input and try again.`` (a ``ValidationException``). The
message texts for broken JSON are inferred. Too many bytes is Bedrock's 413
(``Input is too long for requested model.`` is for tokens; tooltape's text
names the byte limit).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from tooltape.fake_providers._body import BodyProblem, read_body
from tooltape.fake_providers._tool_schemas import schema_problem
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.dialects.anthropic._tool_choice import anthropic_choice_problem
from tooltape.fake_providers.dialects.anthropic._tools import anthropic_tools_problem
from tooltape.fake_providers.dialects.anthropic._validate import (
    ANTHROPIC_FIELDS,
    anthropic_pairing_error,
)
from tooltape.fake_providers.dialects.bedrock._tool_choice import converse_choice_problem
from tooltape.harness.json_text import compact

__all__ = [
    "VALIDATION_ERROR_TYPE",
    "bedrock_body_error",
    "bedrock_error_wire",
    "converse_error",
    "validate_converse_request",
    "validate_invoke_request",
]

VALIDATION_ERROR_TYPE = "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"
"""The ``x-amzn-ErrorType`` header Bedrock sends with a validation 400."""

_TOOL_USE_ID = (re.compile(r"[a-zA-Z0-9_.:-]+"), "[a-zA-Z0-9_.:-]+")
_TOOL_NAME = (re.compile(r"[a-zA-Z0-9_-]+"), "[a-zA-Z0-9_-]+")
_CHECKED_FIELDS = {
    "toolUse": (("toolUseId", _TOOL_USE_ID), ("name", _TOOL_NAME)),
    "toolResult": (("toolUseId", _TOOL_USE_ID),),
}
_MAX_LENGTH = 64

_NO_TOOL_CONFIG = (
    "The toolConfig field must be defined when using toolUse and toolResult content blocks."
)
_DUPLICATE_IDS = "The toolUse blocks at messages.{n}.content contain duplicate Ids: {ids}"
_EXTRA_RESULTS = (
    "The number of toolResult blocks at messages.{n}.content exceeds the number of toolUse "
    "blocks of previous turn."
)
_MISSING_RESULTS = "Expected toolResult blocks at messages.{n}.content for the following Ids: {ids}"
_CLAUDE_RESULTS_NOT_FIRST = (
    "The model returned the following errors: messages.{n}: Did not find {count} tool_result "
    "block(s) at the beginning of this message. Messages following tool_use blocks must begin "
    "with a matching number of tool_result blocks."
)
SERIALIZATION_ERROR_TYPE = (
    "SerializationException:http://internal.amazon.com/coral/com.amazon.coral.service/"
)
_CONVERSE_FIELDS: dict[str, tuple[type, ...]] = {"messages": (list,), "toolConfig": (dict,)}
_JAVA_TYPES = {
    "string": "String",
    "integer": "Integer",
    "number": "BigDecimal",
    "boolean": "Boolean",
    "array": "JSONArray",
    "object": "JSONObject",
    "null": "Null",
}
_INVOKE_TYPES = {
    "messages": "JSONArray",
    "model": "String",
    "stream": "Boolean",
    "max_tokens": "Integer",
}
_MODEL_ID = re.compile(
    r"/model/(.+)/(?:converse-stream|converse|invoke-with-response-stream|invoke)$"
)


def bedrock_error_wire(error: ProviderError, error_type: str = VALIDATION_ERROR_TYPE) -> Wire:
    """Bedrock's error response for ``error``: its status, JSON body and error-type header.

    Args:
        error: The status and ``{"message": ...}`` body.
        error_type: The ``x-amzn-ErrorType`` header (its part before ``:`` is the code
            botocore reports).
    """
    content = compact(error.body, ensure_ascii=True).encode()
    headers = (
        ("content-type", "application/json"),
        ("content-length", str(len(content))),
        ("x-amzn-errortype", error_type),
    )
    return Wire(reads=(content,), status=error.status, headers=headers)


def _rejection(
    message: str, status: int = 400, error_type: str = VALIDATION_ERROR_TYPE
) -> ProviderError:
    headers = (("x-amzn-errortype", error_type),)
    return ProviderError(status=status, body={"message": message}, headers=headers)


def bedrock_body_error(problem: BodyProblem, *, invoke: bool = False) -> ProviderError:
    """Bedrock's error for a body it cannot bind (``invoke``: the invoke endpoint's form)."""
    if problem.kind == "too_large":
        return _rejection(f"Request body too large: {problem.detail}.", 413)
    if problem.kind == "timeout":
        return _rejection("The request body was not received in time.", 408)
    found = _JAVA_TYPES.get(problem.got, "String")
    if invoke:
        if problem.kind in ("syntax", "depth"):
            reason = "#: the body is not valid JSON"
        elif problem.kind == "not_object":
            reason = f"#: expected type: JSONObject, found: {found}"
        else:
            expected = _INVOKE_TYPES.get(problem.detail, "JSONObject")
            reason = f"#/{problem.detail}: expected type: {expected}, found: {found}"
        return _rejection(
            f"Malformed input request: {reason}, please reformat your input and try again."
        )
    if problem.kind in ("syntax", "depth"):
        text = "Unexpected character in the request body."
    else:
        where = problem.detail or "the request"
        text = f"Unexpected {found} for {where}; expected a structure or list."
    return _rejection(text, 400, SERIALIZATION_ERROR_TYPE)


def validate_converse_request(request: ProviderRequest) -> ProviderError | None:
    """Bedrock's 400 for a Converse request with broken tool pairing, else ``None``."""
    body, error = read_body(request, _CONVERSE_FIELDS, bedrock_body_error)
    if error is not None:
        return error
    model = _MODEL_ID.search(request.path)
    message = converse_error(body, model_id=model.group(1) if model else "")
    return _rejection(message) if message else None


def validate_invoke_request(request: ProviderRequest) -> ProviderError | None:
    """Claude's 400 (as Bedrock relays it) for an Anthropic body on invoke, else ``None``."""
    body, error = read_body(request, ANTHROPIC_FIELDS, partial(bedrock_body_error, invoke=True))
    if error is not None:
        return error
    if isinstance(body, dict) and (text := _invoke_problem(body)):
        return _rejection(text)
    message = anthropic_pairing_error(body)
    return _rejection(message) if message else None


_INVOKE_REQUIRED = ("anthropic_version", "max_tokens", "messages")


def _invoke_problem(body: dict[str, Any]) -> str | None:
    """A missing required key (Bedrock's schema text), then Claude's ``tool_choice`` checks."""
    for key in _INVOKE_REQUIRED:
        if key not in body:
            return (
                f"Malformed input request: #: required key [{key}] not found, please reformat "
                "your input and try again."
            )
    return anthropic_choice_problem(body) or anthropic_tools_problem(body.get("tools"))


def converse_error(body: object, *, model_id: str = "") -> str | None:
    """The error message for a Converse request body, or ``None`` when it passes.

    Args:
        body: The parsed JSON body (``messages``, ``toolConfig``...).
        model_id: The model id from the URL; Claude's own checks run for Anthropic models.
    """
    if not isinstance(body, dict):
        return None
    if problem := converse_choice_problem(body) or _converse_schema_problem(body):
        return problem
    if not body.get("messages") and ":prompt/" not in model_id:  # a prompt ARN brings its own
        return NO_USER_MESSAGE
    if not isinstance(body.get("messages"), list):
        return None
    messages = [m if isinstance(m, dict) else {} for m in body["messages"]]
    contents = [_blocks(message) for message in messages]
    constraint = _constraint_error(contents)
    if constraint:
        return constraint
    if body.get("toolConfig") is None and any(_tool_blocks(c) for c in contents):
        return _NO_TOOL_CONFIG
    return _pairing_error(messages, contents, claude="anthropic" in model_id)


NO_USER_MESSAGE = (
    "A conversation must start with a user message. Try again with a conversation that "
    "starts with a user message."
)
"""Converse's 400 for a request whose ``messages`` are missing or empty (a system prompt
alone included): https://github.com/elastic/kibana/pull/246393,
https://github.com/langgenius/dify/issues/12340."""


def _converse_schema_problem(body: dict[str, Any]) -> str | None:
    """A ``toolSpec.inputSchema.json`` that is not a JSON Schema (the text is inferred)."""
    config = body.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    for n, tool in enumerate(tools if isinstance(tools, list) else ()):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        schema = spec.get("inputSchema") if isinstance(spec, dict) else None
        problem = (
            schema_problem(schema["json"])
            if isinstance(schema, dict) and "json" in schema
            else None
        )
        if problem:
            return (
                f"The value at toolConfig.tools.{n}.toolSpec.inputSchema.json is not a valid "
                f"JSON schema: {problem}"
            )
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block if isinstance(block, dict) else {} for block in content]


def _tool_blocks(content: list[dict[str, Any]]) -> bool:
    return any("toolUse" in block or "toolResult" in block for block in content)


def _constraint_error(contents: list[list[dict[str, Any]]]) -> str | None:
    problems: list[str] = []
    for n, content in enumerate(contents, start=1):
        for m, block in enumerate(content, start=1):
            for kind, fields in _CHECKED_FIELDS.items():
                inner = block.get(kind)
                if not isinstance(inner, dict):
                    continue
                for name, (pattern, text) in fields:
                    where = f"messages.{n}.member.content.{m}.member.{kind}.{name}"
                    problems += [
                        f"Value at '{where}' failed to satisfy constraint: {constraint}"
                        for constraint in _field_problems(inner.get(name), pattern, text)
                    ]
    if not problems:
        return None
    count = f"{len(problems)} validation error{'s' if len(problems) > 1 else ''}"
    return f"{count} detected: " + "; ".join(problems)


def _field_problems(value: object, pattern: re.Pattern[str], text: str) -> list[str]:
    if value is None:
        return ["Member must not be null"]
    value = str(value)
    problems = []
    if not pattern.fullmatch(value):
        problems.append(f"Member must satisfy regular expression pattern: {text}")
    if not value:
        problems.append("Member must have length greater than or equal to 1")
    if len(value) > _MAX_LENGTH:
        problems.append(f"Member must have length less than or equal to {_MAX_LENGTH}")
    return problems


def _ids(content: list[dict[str, Any]], kind: str) -> list[str]:
    return [str(b[kind].get("toolUseId")) for b in content if isinstance(b.get(kind), dict)]


def _pairing_error(
    messages: list[dict[str, Any]], contents: list[list[dict[str, Any]]], *, claude: bool
) -> str | None:
    for n, (message, content) in enumerate(zip(messages, contents, strict=True)):
        if message.get("role") == "assistant":
            uses = _ids(content, "toolUse")
            repeated = [i for i in dict.fromkeys(uses) if uses.count(i) > 1]
            if repeated:
                return _DUPLICATE_IDS.format(n=n, ids=", ".join(repeated))
        elif message.get("role") == "user":
            error = _answer_error(n, messages, contents, claude=claude)
            if error:
                return error
    return None


def _answer_error(
    n: int,
    messages: list[dict[str, Any]],
    contents: list[list[dict[str, Any]]],
    *,
    claude: bool,
) -> str | None:
    """The error when user message ``n`` does not answer the calls of the message before."""
    previous = n > 0 and messages[n - 1].get("role") == "assistant"
    uses = _ids(contents[n - 1], "toolUse") if previous else []
    results = _ids(contents[n], "toolResult")
    if len(results) > len(uses):
        return _EXTRA_RESULTS.format(n=n)
    missing = [i for i in dict.fromkeys(uses) if i not in results]
    if missing:
        return _MISSING_RESULTS.format(n=n, ids=", ".join(missing))
    leading = 0
    for block in contents[n]:
        if "toolResult" not in block:
            break
        leading += 1
    if claude and uses and leading < len(results):
        return _CLAUDE_RESULTS_NOT_FIRST.format(n=n, count=len(uses))
    return None
