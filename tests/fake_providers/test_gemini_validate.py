"""Gemini's 400s for broken function call histories, as the SDK and the adapter see them.

The rules run on hand-built ``contents`` and on the history ChatGoogleGenerativeAI
builds from LangChain messages (one model content holding every call, one user
content holding every response). google-genai must raise ``ClientError`` with
the exact text, and the adapter its ``GoogleInvalidRequestError``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from _corpus import corpus_params
from google import genai
from google.genai import errors, types
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_google_genai.chat_models import GoogleInvalidRequestError

from tooltape.fake_providers import FakeProvider, FakeTransport, ProviderRequest
from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect
from tooltape.fake_providers.dialects.gemini._validate import (
    CALL_TURN_ORDER,
    RESPONSE_COUNT,
    RESPONSE_TURN_ORDER,
)
from tooltape.harness import Plan

DIALECT = GeminiDialect()
PATH = "/v1beta/models/gemini-3.5-flash:streamGenerateContent"
USER = {"role": "user", "parts": [{"text": "weather in Paris and Oslo?"}]}
TWO_CALLS = {
    "role": "model",
    "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    ],
}
TEXT = {"role": "model", "parts": [{"text": "Sure."}]}


def response(city: str) -> dict[str, Any]:
    return {"functionResponse": {"name": "get_weather", "response": {"output": city}}}


BOTH = {"role": "user", "parts": [response("sunny"), response("rain")]}
ONE = {"role": "user", "parts": [response("sunny")]}


def request(contents: list[Any]) -> ProviderRequest:
    return ProviderRequest("POST", PATH, body=json.dumps({"contents": contents}).encode())


@pytest.mark.parametrize(
    "contents",
    [
        [USER],
        [USER, TWO_CALLS],  # a trailing call turn: the model is asked to go on
        [USER, TWO_CALLS, BOTH],
        [USER, TWO_CALLS, BOTH, TEXT, USER],
        [USER, TEXT, USER, TWO_CALLS, BOTH, TWO_CALLS, BOTH],
    ],
    ids=["user", "trailing_call", "paired", "paired_then_text", "two_rounds"],
)
def test_valid_histories_pass(contents):
    assert DIALECT.validate(request(contents)) is None


@pytest.mark.parametrize(
    ("contents", "message"),
    [
        ([USER, TWO_CALLS, ONE], RESPONSE_COUNT),
        ([USER, TWO_CALLS, {**BOTH, "parts": [*BOTH["parts"], response("fog")]}], RESPONSE_COUNT),
        ([USER, TWO_CALLS, USER], RESPONSE_COUNT),  # the dangling calls of an interrupted turn
        ([TWO_CALLS, BOTH], CALL_TURN_ORDER),  # a history that starts with a call
        ([USER, TEXT, TWO_CALLS, BOTH], CALL_TURN_ORDER),
        ([USER, BOTH], RESPONSE_TURN_ORDER),
        ([USER, TWO_CALLS, BOTH, BOTH], RESPONSE_TURN_ORDER),
    ],
    ids=[
        "missing_response",
        "extra_response",
        "text_after_calls",
        "starts_with_call",
        "call_after_text",
        "orphan_response",
        "responses_twice",
    ],
)
def test_broken_histories_get_gemini_400(contents, message):
    error = DIALECT.validate(request(contents))
    assert error is not None
    assert error.status == 400
    assert error.body == {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    assert error.message == message


def test_an_empty_body_is_not_judged_and_one_without_contents_is_refused():
    assert DIALECT.validate(ProviderRequest("POST", PATH, body=b"")) is None
    error = DIALECT.validate(ProviderRequest("POST", PATH, body=b'{"model": "x"}'))
    assert error is not None  # the text: test_request_validation.py
    assert error.message == "* GenerateContentRequest.contents: contents is not specified\n"


@pytest.mark.parametrize("record", corpus_params("gemini"))
def test_recorded_requests_are_accepted(record):
    """The real API answered every recorded request with a stream."""
    body = json.dumps(record["request"]).encode()
    assert DIALECT.validate(ProviderRequest("POST", PATH, body=body)) is None


# --- the SDK and the adapter raise the real error ----------------------------------------


def client(provider: FakeProvider) -> genai.Client:
    transport = FakeTransport(provider)
    options = types.HttpOptions(
        httpx_client=httpx2.Client(transport=transport),
        httpx_async_client=httpx2.AsyncClient(transport=transport),
    )
    return genai.Client(api_key="test-key", http_options=options)


def test_sdk_raises_client_error_with_the_text():
    provider = FakeProvider("gemini").stream(Plan(text_before="never served"))
    contents = [types.Content.model_validate(c) for c in (USER, TWO_CALLS, ONE)]
    stream = client(provider).models.generate_content_stream(model="m", contents=contents)
    with pytest.raises(errors.ClientError) as raised:
        list(stream)
    assert (raised.value.code, raised.value.status) == (400, "INVALID_ARGUMENT")
    assert raised.value.message == RESPONSE_COUNT
    assert provider.played == 0 and len(provider.rejected) == 1


@pytest.mark.asyncio
async def test_async_sdk_raises_client_error_with_the_text():
    provider = FakeProvider("gemini")
    contents = [types.Content.model_validate(c) for c in (USER, BOTH)]
    stream = await client(provider).aio.models.generate_content_stream(model="m", contents=contents)
    with pytest.raises(errors.ClientError, match="function response turn comes immediately"):
        [chunk async for chunk in stream]


def chat(provider: FakeProvider) -> ChatGoogleGenerativeAI:
    return ChatGoogleGenerativeAI(
        model="gemini-3.5-flash",
        api_key="test-key",
        max_retries=1,
        client_args={"transport": FakeTransport(provider)},
    )


CALLS = AIMessage(
    content="",
    tool_calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c2"},
    ],
)


def test_adapter_history_with_every_result_is_accepted():
    provider = FakeProvider("gemini").stream(Plan(text_before="Sunny and rainy."))
    history = [
        HumanMessage("weather?"),
        CALLS,
        ToolMessage("sunny", tool_call_id="c1"),
        ToolMessage("rain", tool_call_id="c2"),
    ]
    text = "".join(chunk.text for chunk in chat(provider).stream(history))
    assert text == "Sunny and rainy."
    contents = provider.requests[0].json()["contents"]
    assert [len(c["parts"]) for c in contents] == [1, 2, 2]  # responses share one content
    provider.assert_all_played()


def test_adapter_raises_invalid_request_for_a_missing_result():
    provider = FakeProvider("gemini")
    history = [HumanMessage("weather?"), CALLS, ToolMessage("sunny", tool_call_id="c1")]
    with pytest.raises(GoogleInvalidRequestError, match="number of function response parts"):
        list(chat(provider).stream(history))
    assert provider.rejected[0][1].message == RESPONSE_COUNT


@pytest.mark.asyncio
async def test_async_adapter_raises_invalid_request_for_a_history_opening_with_calls():
    provider = FakeProvider("gemini")
    history = [CALLS, ToolMessage("sunny", tool_call_id="c1"), ToolMessage("r", tool_call_id="c2")]
    with pytest.raises(GoogleInvalidRequestError, match="function call turn comes immediately"):
        [chunk async for chunk in chat(provider).astream(history)]
