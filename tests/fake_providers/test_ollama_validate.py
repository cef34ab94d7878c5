"""The ollama dialect's request checks, through the ollama client and ChatOllama.

Ollama checks no tool pairing; it rejects only bodies its chat handler cannot
bind; ``"stream": false`` is a valid request (test_nonstreaming.py serves it).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import ollama
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_ollama import ChatOllama

from tooltape.fake_providers import FakeProvider, ProviderRequest, patch_httpx
from tooltape.fake_providers.dialects.ollama._dialect import OllamaDialect
from tooltape.harness import Plan

DIALECT = OllamaDialect()
BASE = "http://fake-ollama:11434"
PLAN = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])


def request(body: bytes) -> ProviderRequest:
    return ProviderRequest("POST", "/api/chat", {}, body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "missing request body"),
        (b"  \n", "missing request body"),
        (b"x{", "invalid character 'x' looking for beginning of value"),
        (b'{"model": "m", ', "unexpected EOF"),
        (b"[1, 2]", "json: cannot unmarshal array into Go value of type api.ChatRequest"),
        (b'"m"', "json: cannot unmarshal string into Go value of type api.ChatRequest"),
        (
            b'{"model": 7}',
            "json: cannot unmarshal number into Go struct field ChatRequest.model of type string",
        ),
        (b'{"messages": []}', "model is required"),
        (b'{"model": ""}', "model is required"),
        (b"null", "model is required"),
    ],
)
def test_malformed_bodies_get_ollamas_400(body: bytes, message: str) -> None:
    error = DIALECT.validate(request(body))
    assert error is not None
    assert (error.status, error.body) == (400, {"error": message})


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "messages": []},
        {"model": "m", "messages": [], "stream": True},
        {"model": "m", "messages": [], "stream": False},
        # a dangling call and an orphan result: Ollama renders them into the prompt as they are
        {
            "model": "m",
            "messages": [
                {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
                {"role": "tool", "content": "orphan", "tool_name": "g"},
            ],
        },
    ],
)
def test_any_bindable_streamed_request_is_accepted(body: dict[str, Any]) -> None:
    assert DIALECT.validate(request(json.dumps(body).encode())) is None


def test_a_body_without_model_gets_ollamas_error_shape_over_http() -> None:
    """ollama-python refuses an empty model itself, so post the body with plain httpx."""
    with patch_httpx(FakeProvider(DIALECT, base_url=BASE).stream(PLAN)):
        response = httpx.post(f"{BASE}/api/chat", json={"messages": []})
    assert response.status_code == 400
    assert response.json() == {"error": "model is required"}
    assert str(ollama.ResponseError(response.text, 400)) == "model is required (status code: 400)"


def test_chat_ollama_streams_a_broken_history_unchallenged() -> None:
    """No pairing check: ChatOllama's dangling-call history is served the next turn."""
    history = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {}, "id": "call_1"}]),
        ToolMessage("sunny", tool_call_id="call_other"),
    ]
    provider = FakeProvider(DIALECT, base_url=BASE).stream(PLAN)
    with patch_httpx(provider):
        message = ChatOllama(model="m", base_url=BASE).invoke(history)
    assert [c["name"] for c in message.tool_calls] == ["get_weather"]
    sent = provider.requests[0].json()
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "tool"]
    assert provider.rejected == []
