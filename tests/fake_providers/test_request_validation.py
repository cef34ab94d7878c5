"""Request validation per dialect: ``tool_choice`` and missing or ill-typed fields.

Each case is a request body and the status and error text the real provider
sends (the ``_tool_choice`` module of each dialect names the source of every text,
and which are inferred). Real clients then raise them: the openai and
anthropic SDKs, google-genai through ChatGoogleGenerativeAI, the cohere SDK.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import cohere
import httpx2
import openai
import pytest

from tooltape.fake_providers import (
    FakeProvider,
    FakeTransport,
    ProviderRequest,
    get_dialect,
    patch_httpx,
)
from tooltape.harness import Plan, PlannedCall

PLAN = Plan(calls=[PlannedCall(name="get_weather", args={"city": "Paris"})])
USER = [{"role": "user", "content": "hi"}]
FN = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
RESP_FN = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
CLAUDE_TOOL = {"name": "get_weather", "input_schema": {"type": "object"}}
GEMINI_TOOLS = [{"functionDeclarations": [{"name": "get_weather"}]}]
CONVERSE_TOOLS = [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {}}}}]
CLAUDE = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": USER}
ONLY_WITH_TOOLS = (
    "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
)
NOT_FOUND = "Tool choice 'function' not found in 'tools' parameter."
ONE_ERROR = "1 validation error detected: "

# dialect, body, path (None: the dialect's), the error text the provider sends
CASES: list[tuple[str, dict[str, Any], str | None, str]] = [
    # OpenAI Chat Completions
    ("openai_chat", {"model": "m"}, None, "Missing required parameter: 'messages'."),
    (
        "openai_chat",
        {"model": "m", "messages": "hi"},
        None,
        "Invalid type for 'messages': expected an array of objects, but got a string instead.",
    ),
    (
        "openai_chat",
        {"model": "m", "messages": USER, "tool_choice": "required"},
        None,
        ONLY_WITH_TOOLS,
    ),
    (
        "openai_chat",
        {"model": "m", "messages": USER, "tools": [FN], "tool_choice": "any"},
        None,
        "Invalid value: 'any'. Supported values are: 'none', 'auto', and 'required'.",
    ),
    (
        "openai_chat",
        {
            "model": "m",
            "messages": USER,
            "tools": [FN],
            "tool_choice": {"type": "function", "function": {"name": "get_time"}},
        },
        None,
        NOT_FOUND,
    ),
    (
        "openai_chat",
        {"model": "m", "messages": USER, "tools": [FN], "tool_choice": {"type": "function"}},
        None,
        "Missing required parameter: 'tool_choice.function.name'.",
    ),
    (
        "openai_chat",
        {"model": "m", "messages": USER, "tools": [FN], "tool_choice": 3},
        None,
        "Invalid type for 'tool_choice': expected one of a string or object, "
        "but got an integer instead.",
    ),
    # OpenAI Responses
    (
        "openai_responses",
        {"model": "m", "input": "hi", "tool_choice": "required"},
        None,
        "Tool choice 'required' must be specified with 'tools' parameter.",
    ),
    (
        "openai_responses",
        {
            "model": "m",
            "input": "hi",
            "tools": [RESP_FN],
            "tool_choice": {"type": "function", "name": "get_time"},
        },
        None,
        NOT_FOUND,
    ),
    (
        "openai_responses",
        {"model": "m", "input": "hi", "tools": [RESP_FN], "tool_choice": {"type": "tool"}},
        None,
        "Invalid value: 'tool'. Supported values are: 'function', 'allowed_tools', 'custom', "
        "'mcp', and 'file_search'.",
    ),
    # Anthropic Messages
    ("anthropic_messages", {"model": "m", "messages": USER}, None, "max_tokens: Field required"),
    ("anthropic_messages", {"model": "m", "max_tokens": 9}, None, "messages: Field required"),
    (
        "anthropic_messages",
        {**CLAUDE, "tool_choice": {"type": "any"}},
        None,
        "tool_choice may only be specified while providing tools.",
    ),
    (
        "anthropic_messages",
        {**CLAUDE, "tools": [CLAUDE_TOOL], "tool_choice": {"type": "tool", "name": "get_time"}},
        None,
        "Tool 'get_time' not found in provided tools",
    ),
    (
        "anthropic_messages",
        {**CLAUDE, "tools": [CLAUDE_TOOL], "tool_choice": {"type": "required"}},
        None,
        "tool_choice: Input tag 'required' found using 'type' does not match any of the "
        "expected tags: 'auto', 'any', 'tool', 'none'",
    ),
    (
        "anthropic_messages",
        {**CLAUDE, "tools": [CLAUDE_TOOL], "tool_choice": "auto"},
        None,
        "tool_choice: Input should be a valid dictionary or object to extract fields from",
    ),
    # Gemini
    (
        "gemini",
        {"tools": GEMINI_TOOLS},
        None,
        "* GenerateContentRequest.contents: contents is not specified\n",
    ),
    (
        "gemini",
        {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
        None,
        "Function calling config is set without function_declarations.",
    ),
    (
        "gemini",
        {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": GEMINI_TOOLS,
            "tool_config": {"function_calling_config": {"mode": "REQUIRED"}},
        },
        None,
        "Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/"
        'google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "REQUIRED"',
    ),
    (
        "gemini",
        {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": GEMINI_TOOLS,
            "toolConfig": {
                "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}
            },
        },
        None,
        "* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names[0]: "
        "allowed_function_names must be a subset of function declarations.\n",
    ),
    # Cohere v2
    ("cohere_v2", {"messages": USER}, None, "invalid request: model is required"),
    ("cohere_v2", {"model": "m"}, None, "invalid request: messages is required"),
    (
        "cohere_v2",
        {"model": "m", "messages": USER, "tool_choice": "REQUIRED"},
        None,
        "invalid request: tool_choice REQUIRED needs tools to be specified",
    ),
    (
        "cohere_v2",
        {"model": "m", "messages": USER, "tools": [FN], "tool_choice": "auto"},
        None,
        "invalid request: tool_choice must be one of REQUIRED, NONE; got 'auto'",
    ),
    # Bedrock Converse
    (
        "bedrock_converse",
        {"messages": [], "toolConfig": {"tools": [], "toolChoice": {"any": {}}}},
        "/model/m/converse",
        ONE_ERROR + "Value at 'toolConfig.tools' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1",
    ),
    (
        "bedrock_converse",
        {
            "messages": [],
            "toolConfig": {"tools": CONVERSE_TOOLS, "toolChoice": {"tool": {"name": ""}}},
        },
        "/model/m/converse-stream",
        ONE_ERROR + "Value at 'toolConfig.toolChoice.tool.name' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1",
    ),
    (
        "bedrock_converse",
        {
            "messages": [],
            "toolConfig": {"tools": CONVERSE_TOOLS, "toolChoice": {"auto": {}, "any": {}}},
        },
        "/model/m/converse",
        ONE_ERROR + "Value at 'toolConfig.toolChoice' failed to satisfy constraint: "
        "Member must have exactly one member set",
    ),
    (
        "bedrock_converse",
        {
            "messages": [],
            "toolConfig": {"tools": CONVERSE_TOOLS, "toolChoice": {"tool": {"name": "x"}}},
        },
        "/model/m/converse",
        "The tool specified in toolConfig.toolChoice isn't present in toolConfig.tools.",
    ),
    # Claude on Bedrock (InvokeModel): Bedrock checks the keys, Claude the tool_choice
    (
        "bedrock_invoke",
        {
            "anthropic_version": "bedrock-2023-05-31",
            "max_tokens": 9,
            "messages": USER,
            "tool_choice": {"type": "any"},
        },
        "/model/m/invoke",
        "tool_choice may only be specified while providing tools.",
    ),
    (
        "bedrock_invoke",
        {"anthropic_version": "v", "messages": USER},
        "/model/m/invoke",
        "Malformed input request: #: required key [max_tokens] not found, please reformat "
        "your input and try again.",
    ),
]


def case_id(case: tuple[str, dict[str, Any], str | None, str]) -> str:
    return f"{case[0]}:{case[3][:48]}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_provider_answers_400_with_its_real_text(
    case: tuple[str, dict[str, Any], str | None, str],
) -> None:
    dialect, body, path, text = case
    request = ProviderRequest(
        "POST", path or get_dialect(dialect).path, {}, json.dumps(body).encode()
    )
    error = get_dialect(dialect).validate(request)
    assert error is not None, f"{dialect} accepted {body}"
    assert (error.status, error.message) == (400, text)


VALID: list[tuple[str, dict[str, Any]]] = [
    ("openai_chat", {"model": "m", "messages": USER, "tools": [FN], "tool_choice": "required"}),
    ("openai_chat", {"model": "m", "messages": USER, "tool_choice": None}),
    (
        "openai_chat",
        {
            "model": "m",
            "messages": USER,
            "tools": [FN],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        },
    ),
    ("openai_responses", {"model": "m", "input": "hi", "tool_choice": "auto"}),
    ("openai_responses", {"model": "m", "input": "hi", "tool_choice": "none"}),
    ("anthropic_messages", {**CLAUDE, "tool_choice": {"type": "auto"}}),
    (
        "anthropic_messages",
        {**CLAUDE, "tools": [CLAUDE_TOOL], "tool_choice": {"type": "tool", "name": "get_weather"}},
    ),
    (
        "gemini",
        {
            "contents": [],
            "tools": GEMINI_TOOLS,
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
    ),
    ("cohere_v2", {"model": "m", "messages": USER, "tools": [FN], "tool_choice": "REQUIRED"}),
    (
        "ollama",
        {"model": "m", "tool_choice": "whatever"},
    ),  # Ollama has no tool_choice and no required messages
    (
        "bedrock_converse",
        {
            "messages": [{"role": "user", "content": [{"text": "weather?"}]}],
            "toolConfig": {
                "tools": CONVERSE_TOOLS,
                "toolChoice": {"tool": {"name": "get_weather"}},
            },
        },
    ),
]


@pytest.mark.parametrize(
    ("dialect", "body"), VALID, ids=[f"{d}-{n}" for n, (d, _) in enumerate(VALID)]
)
def test_a_usable_request_is_accepted(dialect: str, body: dict[str, Any]) -> None:
    path = "/model/m/converse" if dialect == "bedrock_converse" else get_dialect(dialect).path
    request = ProviderRequest("POST", path, {}, json.dumps(body).encode())
    assert get_dialect(dialect).validate(request) is None


# --- real clients raise the errors, and no turn is played ----------------------------------


def test_openai_sdk_raises_bad_request_for_a_tool_choice_without_tools() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN)
    client = openai.OpenAI(
        api_key="sk", max_retries=0, http_client=httpx2.Client(transport=FakeTransport(provider))
    )
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="m", messages=USER, tool_choice="required")  # type: ignore[arg-type]
    assert caught.value.status_code == 400
    assert caught.value.body == {
        "message": ONLY_WITH_TOOLS,
        "type": "invalid_request_error",
        "param": "tool_choice",
        "code": None,
    }
    assert provider.played == 0 and len(provider.rejected) == 1


def test_anthropic_sdk_raises_bad_request_for_an_unknown_forced_tool() -> None:
    provider = FakeProvider("anthropic_messages").stream(PLAN)
    client = anthropic.Anthropic(
        api_key="sk", max_retries=0, http_client=httpx2.Client(transport=FakeTransport(provider))
    )
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=9,
            messages=USER,  # type: ignore[arg-type]
            tools=[CLAUDE_TOOL],  # type: ignore[list-item]
            tool_choice={"type": "tool", "name": "get_time"},
        )
    assert caught.value.body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "Tool 'get_time' not found in provided tools",
        },
    }
    assert provider.played == 0


def test_cohere_sdk_raises_bad_request_for_required_without_tools() -> None:
    provider = FakeProvider("cohere_v2").stream(PLAN)
    with patch_httpx(provider), pytest.raises(cohere.BadRequestError) as caught:
        cohere.ClientV2(api_key="k").chat(model="m", messages=USER, tool_choice="REQUIRED")  # type: ignore[arg-type]
    assert caught.value.body == {
        "message": "invalid request: tool_choice REQUIRED needs tools to be specified"
    }


def test_chat_google_raises_for_a_calling_config_without_declarations() -> None:
    from langchain_google_genai import ChatGoogleGenerativeAI

    provider = FakeProvider("gemini").stream(PLAN)
    llm = ChatGoogleGenerativeAI(
        model="gemini-2.5-flash",
        api_key="k",
        max_retries=1,
        client_args={"transport": FakeTransport(provider)},
    )
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    request = ProviderRequest(
        "POST", "/v1beta/models/g:generateContent", {}, json.dumps(body).encode()
    )
    assert provider.handle(request).status == 400  # the raw answer
    with pytest.raises(Exception) as caught:  # the adapter re-raises ClientError as its own
        llm.invoke("hi", tool_config={"function_calling_config": {"mode": "ANY"}})
    assert "Function calling config is set without function_declarations." in str(caught.value)
