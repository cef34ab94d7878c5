"""Requests the real providers refuse are refused (issue #21 item 7), each case of the issue.

A tool schema that is not a JSON Schema, in every dialect that takes tools (Ollama
accepts anything, as the real one does); an OpenAI tool name with a space; an
Anthropic tool without ``input_schema``; a tool result that answers no call (Mistral,
Cohere); a Mistral ``tool_choice`` naming no tool; a Bedrock Converse request
without messages. Plus one through the official SDK, over a real server.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tooltape.fake_providers import FakeProvider, ProviderRequest, get_dialect, serve_in_thread
from tooltape.harness import Plan

USER = [{"role": "user", "content": "weather?"}]
BAD_SCHEMAS = [{"type": "strnig"}, {"type": "object", "properties": {"city": {"type": 5}}}]


def _validate(dialect: str, body: dict[str, Any], path: str | None = None) -> Any:
    resolved = get_dialect(dialect)
    request = ProviderRequest("POST", path or resolved.path, {}, json.dumps(body).encode())
    return resolved.validate(request)


def _function(schema: Any, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def _bodies(schema: Any) -> dict[str, tuple[dict[str, Any], str | None]]:
    """One request per dialect carrying ``schema`` as a tool's parameter schema."""
    chat = {"model": "m", "messages": USER, "tools": [_function(schema)]}
    converse_tool = {"toolSpec": {"name": "get_weather", "inputSchema": {"json": schema}}}
    return {
        "openai_chat": (chat, None),
        "openai_responses": (
            {"model": "m", "input": "hi", "tools": [{"type": "function", "name": "get_weather",
                                                    "parameters": schema}]},
            None,
        ),
        "anthropic_messages": (
            {"model": "m", "max_tokens": 9, "messages": USER,
             "tools": [{"name": "get_weather", "input_schema": schema}]},
            None,
        ),
        "bedrock_converse": (
            {"messages": [{"role": "user", "content": [{"text": "hi"}]}],
             "toolConfig": {"tools": [converse_tool]}},
            "/model/m/converse",
        ),
        "gemini": (
            {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
             "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": schema}]}]},
            None,
        ),
        "mistral_native": (chat, None),
        "cohere_v2": (chat, None),
    }  # fmt: skip


@pytest.mark.parametrize("schema", BAD_SCHEMAS, ids=["type strnig", "nested type 5"])
@pytest.mark.parametrize("dialect", list(_bodies({})))
def test_a_schema_that_is_not_a_json_schema_is_refused(dialect: str, schema: Any) -> None:
    body, path = _bodies(schema)[dialect]

    error = _validate(dialect, body, path)

    assert error is not None and error.status == 400, dialect
    assert error.message


@pytest.mark.parametrize("dialect", list(_bodies({})))
def test_a_good_schema_passes(dialect: str) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    body, path = _bodies(schema)[dialect]
    assert _validate(dialect, body, path) is None


def test_ollama_takes_any_schema_as_the_real_one_does() -> None:
    body = {"model": "m", "messages": USER, "tools": [_function({"type": "strnig"})]}
    assert _validate("ollama", body) is None


def test_openai_parameters_that_are_not_an_object_and_a_name_with_a_space() -> None:
    typed = _validate("openai_chat", {"model": "m", "messages": USER, "tools": [_function("x")]})
    named = _validate(
        "openai_chat", {"model": "m", "messages": USER, "tools": [_function({}, "get weather")]}
    )

    assert typed.message == (
        "Invalid type for 'tools[0].function.parameters': expected an object, but got a string "
        "instead."
    )
    assert named.message.startswith("Invalid 'tools[0].function.name': string does not match")


def test_an_anthropic_tool_without_input_schema() -> None:
    body = {"model": "m", "max_tokens": 9, "messages": USER, "tools": [{"name": "get_weather"}]}
    assert _validate("anthropic_messages", body).message == (
        "tools.0.custom.input_schema: Field required"
    )


CALL = {"id": "abcDEF123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"}}  # fmt: skip


@pytest.mark.parametrize(
    "messages",
    [
        [*USER, {"role": "tool", "tool_call_id": "abcDEF123", "content": "sunny"}],
        [*USER, {"role": "assistant", "content": "", "tool_calls": [CALL]}, *USER],
        [
            *USER,
            {"role": "assistant", "content": "", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "abcDEF123", "content": "sunny"},
            {"role": "tool", "tool_call_id": "abcDEF123", "content": "again"},
        ],
    ],
    ids=["result without a call", "call without a result", "two results for one call"],
)
def test_mistral_refuses_results_that_do_not_answer_the_calls(messages: list[Any]) -> None:
    error = _validate("mistral_native", {"model": "m", "messages": messages})

    assert (error.status, error.message) == (
        400, "Not the same number of function calls and responses"
    )  # fmt: skip


def test_mistral_accepts_paired_results_and_refuses_a_tool_choice_naming_no_tool() -> None:
    paired = [
        *USER,
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "sunny"},
    ]
    assert _validate("mistral_native", {"model": "m", "messages": paired}) is None

    choice = {"type": "function", "function": {"name": "get_time"}}
    body = {"model": "m", "messages": USER, "tools": [_function({})], "tool_choice": choice}
    error = _validate("mistral_native", body)
    assert (
        error.status == 400 and "'get_time' is not one of the tools: get_weather" in error.message
    )


def test_cohere_refuses_a_result_that_answers_no_call() -> None:
    body = {
        "model": "m",
        "messages": [*USER, {"role": "tool", "tool_call_id": "x", "content": "s"}],
    }
    error = _validate("cohere_v2", body)
    assert error.status == 400 and "tool_call_id x does not respond" in error.message


def test_bedrock_converse_without_messages() -> None:
    error = _validate("bedrock_converse", {"inferenceConfig": {}}, "/model/m/converse")
    assert error.message.startswith("A conversation must start with a user message.")
    arn = "/model/arn:aws:bedrock:us-east-1:1:prompt/P1/converse"
    assert _validate("bedrock_converse", {}, arn) is None  # a prompt brings its messages


def test_the_openai_sdk_gets_the_400_over_a_real_server() -> None:
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(Plan())
    with (
        serve_in_thread(provider) as url,
        openai.OpenAI(api_key="sk-x", base_url=url + "/v1", max_retries=0) as client,
        pytest.raises(openai.BadRequestError) as raised,
    ):
        client.chat.completions.create(
            model="m", messages=USER, tools=[_function({"type": "strnig"})], stream=True
        )

    assert raised.value.status_code == 400
    assert "Invalid schema for function 'get_weather'" in str(raised.value)
