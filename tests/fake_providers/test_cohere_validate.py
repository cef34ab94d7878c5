"""The cohere_v2 dialect's pairing check, through the cohere SDK and ChatCohere."""

from __future__ import annotations

import json
from typing import Any

import cohere
import pytest
from langchain_cohere import ChatCohere
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.fake_providers import FakeProvider, ProviderRequest, patch_httpx
from tooltape.fake_providers.dialects.cohere._dialect import CohereV2Dialect
from tooltape.fake_providers.dialects.cohere._validate import MISSING_RESULTS
from tooltape.harness import Plan

DIALECT = CohereV2Dialect()
PLAN = Plan(text_before="Done.")


def call(call_id: str) -> dict[str, Any]:
    function = {"name": "get_weather", "arguments": '{"location": "Tokyo"}'}
    return {"id": call_id, "type": "function", "function": function}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "sunny"}


USER = {"role": "user", "content": "weather?"}


def assistant(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "tool_plan": "I will check.", "tool_calls": [call(i) for i in ids]}


def validate(messages: list[Any]) -> Any:
    body = json.dumps({"model": "command-a-03-2025", "messages": messages, "stream": True})
    return DIALECT.validate(ProviderRequest("POST", "/v2/chat", {}, body.encode()))


@pytest.mark.parametrize(
    ("messages", "missing"),
    [
        ([USER, assistant("c1")], "c1"),
        ([USER, assistant("c1", "c2"), result("c1")], "c2"),
        ([USER, assistant("c1", "c2"), USER], "c1, c2"),
        ([USER, assistant("c1"), result("c1"), assistant("c2"), result("c9")], "c2"),
        # a result separated from its call by another message does not count
        ([USER, assistant("c1"), USER, result("c1")], "c1"),
    ],
)
def test_calls_without_results_get_cohere_400(messages: list[Any], missing: str) -> None:
    error = validate(messages)
    assert error is not None and error.status == 400
    assert error.body == {"message": MISSING_RESULTS.format(ids=missing)}
    assert error.message.startswith("invalid request: An assistant message with 'tool_calls'")


@pytest.mark.parametrize(
    "messages",
    [
        [USER],
        [USER, assistant("c1", "c2"), result("c2"), result("c1"), USER],
        [USER, {"role": "assistant", "content": "plain text"}],
    ],
)
def test_paired_histories_are_accepted(messages: list[Any]) -> None:
    assert validate(messages) is None


@pytest.mark.parametrize(
    "messages",
    [
        [USER, result("orphan")],
        [USER, assistant("c1"), result("c1"), USER, result("c1")],  # answered once already
        [USER, assistant("c1"), result("c1"), result("c9")],
    ],
)
def test_a_result_that_answers_no_call_gets_a_400(messages: list[Any]) -> None:
    error = validate(messages)

    assert error is not None and error.status == 400
    assert error.message.startswith("invalid request: the tool message with tool_call_id ")


def test_an_empty_body_is_left_alone_and_one_without_messages_is_refused() -> None:
    assert DIALECT.validate(ProviderRequest("POST", "/v2/chat", {}, b"")) is None
    error = DIALECT.validate(ProviderRequest("POST", "/v2/chat", {}, b'{"model": "x"}'))
    assert error is not None and error.message == "invalid request: messages is required"


@pytest.mark.parametrize("body", [b"not json", b"[1]", b'{"messages": "x"}'])
def test_bodies_cohere_cannot_bind_get_its_400(body: bytes) -> None:
    error = DIALECT.validate(ProviderRequest("POST", "/v2/chat", {}, body))
    assert error is not None and error.status == 400
    assert error.message.startswith("invalid request: ")


def test_cohere_sdk_raises_bad_request_with_the_message() -> None:
    provider = FakeProvider(DIALECT).stream(PLAN)
    client = cohere.ClientV2(api_key="k")
    with patch_httpx(provider), pytest.raises(cohere.BadRequestError) as caught:
        list(client.chat_stream(model="command-a-03-2025", messages=[USER, assistant("c1")]))
    assert caught.value.status_code == 400
    assert caught.value.body == {"message": MISSING_RESULTS.format(ids="c1")}
    assert provider.played == 0 and len(provider.rejected) == 1


def test_chat_cohere_dangling_call_is_rejected_and_a_paired_one_streams() -> None:
    calls = [
        {"name": "get_weather", "args": {"location": "Tokyo"}, "id": "c1"},
        {"name": "get_time", "args": {"location": "Tokyo"}, "id": "c2"},
    ]
    history = [HumanMessage("weather?"), AIMessage("", tool_calls=calls)]
    provider = FakeProvider(DIALECT).stream(PLAN)
    llm = ChatCohere(cohere_api_key="k", model="command-a-03-2025")
    with patch_httpx(provider):
        with pytest.raises(cohere.BadRequestError) as caught:
            list(llm.stream([*history, ToolMessage("sunny", tool_call_id="c1")]))
        assert caught.value.body["message"].endswith("did not have response messages: c2")
        paired = [*history, ToolMessage("sunny", tool_call_id="c1")]
        paired.append(ToolMessage("9am", tool_call_id="c2"))
        text = "".join(str(chunk.content) for chunk in llm.stream(paired))
    assert text == PLAN.text_before
    provider.assert_all_played()
