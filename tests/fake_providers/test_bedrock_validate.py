"""Bedrock's request validation: exact texts, Bedrock's error shape, and what clients raise.

The rules and their evidence are in ``fake_providers/dialects/bedrock/_validate.py``.
Served through the real server, botocore turns each answer into a
``ClientError`` carrying the message; with Bedrock's ``x-amzn-ErrorType``
header (``bedrock_error_wire``) it is ``client.exceptions.ValidationException``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError, EventStreamError
from langchain_aws import ChatBedrock, ChatBedrockConverse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.fake_providers import FakeProvider, ProviderRequest
from tooltape.fake_providers.dialects.bedrock._converse import (
    BedrockConverseDialect,
    bedrock_exception_wire,
)
from tooltape.fake_providers.dialects.bedrock._invoke import BedrockInvokeDialect
from tooltape.fake_providers.dialects.bedrock._validate import (
    bedrock_error_wire,
    converse_error,
    validate_converse_request,
    validate_invoke_request,
)
from tooltape.harness import Plan

CONVERSE = BedrockConverseDialect()
INVOKE = BedrockInvokeDialect()
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
TOOLS = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}


def use(*ids: str, text: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    content += [{"toolUse": {"toolUseId": i, "name": "f", "input": {}}} for i in ids]
    return {"role": "assistant", "content": content}


def result(*ids: str, text_first: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": text_first}] if text_first else []
    content += [{"toolResult": {"toolUseId": i, "content": [{"text": "ok"}]}} for i in ids]
    return {"role": "user", "content": content}


USER = {"role": "user", "content": [{"text": "hi"}]}


def body(*messages: dict[str, Any], tools: bool = True) -> dict[str, Any]:
    return {"messages": list(messages), **({"toolConfig": TOOLS} if tools else {})}


# --- the rules and their exact texts -------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [USER, use("tooluse_A", "tooluse_B"), result("tooluse_A")],
            "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_B",
        ),
        (
            [USER, use("tooluse_A", "tooluse_B"), USER],
            "Expected toolResult blocks at messages.2.content for the following Ids: "
            "tooluse_A, tooluse_B",
        ),
        (
            [USER, use("tooluse_A"), result("tooluse_A", "tooluse_B")],
            "The number of toolResult blocks at messages.2.content exceeds the number of "
            "toolUse blocks of previous turn.",
        ),
        (
            [result("tooluse_A")],
            "The number of toolResult blocks at messages.0.content exceeds the number of "
            "toolUse blocks of previous turn.",
        ),
        (
            [USER, use("tooluse_A", "tooluse_A"), result("tooluse_A", "tooluse_A")],
            "The toolUse blocks at messages.1.content contain duplicate Ids: tooluse_A",
        ),
        (
            [USER, use("tooluse_A"), result("tooluse_X")],
            "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_A",
        ),
    ],
    ids=["one_missing", "all_missing", "extra", "orphan_first", "duplicates", "wrong_id"],
)
def test_pairing_rules_have_bedrocks_exact_texts(messages, expected):
    assert converse_error(body(*messages)) == expected


def test_tool_config_is_required_once_the_history_holds_tool_blocks():
    history = body(USER, use("tooluse_A"), result("tooluse_A"), tools=False)
    assert converse_error(history) == (
        "The toolConfig field must be defined when using toolUse and toolResult content blocks."
    )
    assert converse_error(body(USER, tools=False)) is None


@pytest.mark.parametrize(
    ("tool_id", "expected"),
    [
        (
            "call/1",
            "1 validation error detected: Value at 'messages.2.member.content.1.member.toolUse."
            "toolUseId' failed to satisfy constraint: Member must satisfy regular expression "
            "pattern: [a-zA-Z0-9_.:-]+",
        ),
        (
            "",
            "2 validation errors detected: Value at 'messages.2.member.content.1.member.toolUse."
            "toolUseId' failed to satisfy constraint: Member must satisfy regular expression "
            "pattern: [a-zA-Z0-9_.:-]+; Value at 'messages.2.member.content.1.member.toolUse."
            "toolUseId' failed to satisfy constraint: Member must have length greater than or "
            "equal to 1",
        ),
        (
            "a" * 65,
            "1 validation error detected: Value at 'messages.2.member.content.1.member.toolUse."
            "toolUseId' failed to satisfy constraint: Member must have length less than or equal "
            "to 64",
        ),
    ],
    ids=["slash", "empty", "too_long"],
)
def test_id_constraints_use_aws_validation_texts(tool_id, expected):
    assert converse_error(body(USER, use(tool_id))) == expected


def test_ids_with_dots_and_colons_are_fine_on_converse_but_not_for_claude_on_invoke():
    assert converse_error(body(USER, use("functions.f:0"), result("functions.f:0"))) is None
    anthropic_body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "functions.f:0", "name": "f", "input": {}}],
            },
        ],
    }
    request = ProviderRequest("POST", f"/model/{CLAUDE}/invoke-with-response-stream")
    rejected = validate_invoke_request(
        ProviderRequest(request.method, request.path, body=json.dumps(anthropic_body).encode())
    )
    assert rejected is not None
    assert rejected.body == {
        "message": "messages.1.content.0.tool_use.id: String should match pattern "
        "'^[a-zA-Z0-9_-]+$'"
    }


def test_claude_models_add_claudes_own_check_with_bedrocks_prefix():
    history = body(USER, use("tooluse_A"), result("tooluse_A", text_first="here you go"))
    assert converse_error(history, model_id="amazon.nova-pro-v1:0") is None
    assert converse_error(history, model_id=CLAUDE) == (
        "The model returned the following errors: messages.2: Did not find 1 tool_result "
        "block(s) at the beginning of this message. Messages following tool_use blocks must "
        "begin with a matching number of tool_result blocks."
    )


def test_a_well_paired_history_passes():
    history = body(
        USER,
        use("tooluse_A", "tooluse_B", text="Checking."),
        result("tooluse_A", "tooluse_B"),
        {"role": "assistant", "content": [{"text": "Sunny."}]},
        USER,
        use("tooluse_C"),
    )
    assert converse_error(history, model_id=CLAUDE) is None
    request = ProviderRequest(
        "POST", f"/model/{CLAUDE}/converse-stream", body=json.dumps(history).encode()
    )
    assert validate_converse_request(request) is None
    broken = CONVERSE.validate(ProviderRequest("POST", "/model/m/converse-stream", body=b"{"))
    assert broken is not None and broken.status == 400  # SerializationException, not a pass


def test_invoke_passes_claudes_text_through_unwrapped():
    anthropic_body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f"}]},
            {"role": "user", "content": "and?"},
        ],
    }
    request = ProviderRequest("POST", "/model/m/invoke-with-response-stream")
    error = INVOKE.validate(
        ProviderRequest(request.method, request.path, body=json.dumps(anthropic_body).encode())
    )
    assert error is not None
    assert error.status == 400
    assert error.message == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )


# --- what botocore and langchain-aws raise ---------------------------------------------------


@pytest.fixture
def served(bedrock_endpoint):
    """Serve one provider; returns ``(provider, runtime client, control client)``."""

    def serve(provider: FakeProvider) -> tuple[FakeProvider, Any, Any]:
        bedrock_endpoint.serve(provider)
        return provider, bedrock_endpoint.runtime, bedrock_endpoint.control

    return serve


def test_botocore_raises_client_error_with_the_message(served):
    provider, runtime, _ = served(FakeProvider(CONVERSE).stream(Plan()))
    history = [USER, use("tooluse_A", "tooluse_B"), result("tooluse_A")]
    with pytest.raises(ClientError) as raised:
        runtime.converse_stream(modelId=CLAUDE, messages=history, toolConfig=TOOLS)
    assert raised.value.response["Error"]["Message"] == (
        "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_B"
    )
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert provider.played == 0
    assert len(provider.rejected) == 1


def test_with_bedrocks_error_type_header_it_is_a_validation_exception(served):
    rejection = CONVERSE.validate(
        ProviderRequest(
            "POST",
            "/model/m/converse-stream",
            body=json.dumps(body(USER, use("tooluse_A"), USER)).encode(),
        )
    )
    assert rejection is not None
    _, runtime, _ = served(FakeProvider(CONVERSE).stream(bedrock_error_wire(rejection)))
    with pytest.raises(runtime.exceptions.ValidationException) as raised:
        runtime.converse_stream(modelId=CLAUDE, messages=[USER])
    assert raised.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "Expected toolResult blocks at messages.2.content for the following Ids: "
        "tooluse_A",
    }


def dangling_history() -> list[Any]:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "tooluse_A"}
    return [HumanMessage("weather?"), AIMessage("", tool_calls=[call]), HumanMessage("and?")]


def test_chat_bedrock_converse_raises_the_validation_error(served):
    _, runtime, control = served(FakeProvider(CONVERSE).stream(Plan()))
    llm = ChatBedrockConverse(model=CLAUDE, client=runtime, bedrock_client=control)
    tools = [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}]
    with pytest.raises(ClientError, match="for the following Ids: tooluse_A"):
        list(llm.bind_tools(tools).stream(dangling_history()))


def test_chat_bedrock_converse_without_tools_flattens_tool_blocks_and_warns(served):
    """It dodges the toolConfig 400 by sending the calls as text, with a RuntimeWarning."""
    provider, runtime, control = served(FakeProvider(CONVERSE).stream(Plan(text_before="ok")))
    llm = ChatBedrockConverse(model=CLAUDE, client=runtime, bedrock_client=control)
    history = [*dangling_history()[:2], ToolMessage("sunny", tool_call_id="tooluse_A")]
    with pytest.warns(RuntimeWarning, match="converting to text format"):
        list(llm.stream(history))
    sent = provider.requests[0].json()["messages"]
    assert sent[1]["content"] == [
        {"text": '[Called get_weather with parameters: {"city": "Paris"}]'}
    ]
    assert provider.rejected == []


def test_chat_bedrock_raises_claudes_text(served):
    _, runtime, control = served(FakeProvider(INVOKE).stream(Plan()))
    llm = ChatBedrock(model=CLAUDE, client=runtime, bedrock_client=control)
    tools = [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}]
    with pytest.raises(ClientError, match="ids were found without `tool_result` blocks") as raised:
        list(llm.bind_tools(tools).stream(dangling_history()))
    assert raised.value.response["Error"]["Message"].startswith("messages.1: `tool_use` ids")


def test_claudes_in_stream_validation_exception_reaches_the_adapter(served):
    """The live form of Claude's errors: a 200 stream with a validationException message."""
    text = (
        "The model returned the following errors: messages.2: Did not find 1 tool_result "
        "block(s) at the beginning of this message. Messages following tool_use blocks must "
        "begin with a matching number of tool_result blocks."
    )
    _, runtime, control = served(FakeProvider(CONVERSE).stream(bedrock_exception_wire(text)))
    llm = ChatBedrockConverse(model=CLAUDE, client=runtime, bedrock_client=control)
    with pytest.raises(EventStreamError) as raised:
        list(llm.stream("hi"))
    assert raised.value.response["Error"] == {"Code": "validationException", "Message": text}
