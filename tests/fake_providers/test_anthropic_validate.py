"""anthropic_messages validate(): Anthropic's real 400s for broken tool pairing.

Unit cases check each text, message index and content position; the official SDK
and ChatAnthropic then receive the error from an httpx2 MockTransport and must
raise BadRequestError with exactly that message. Requests that ChatAnthropic
builds from well-paired LangChain histories must pass.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.fake_providers import ProviderRequest
from tooltape.fake_providers.dialects.anthropic._dialect import AnthropicMessagesDialect
from tooltape.harness import Plan

DIALECT = AnthropicMessagesDialect()
PATTERN = "String should match pattern '^[a-zA-Z0-9_-]+$'"


def use(call_id: str, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "sunny"}


def text(value: str = "ok") -> dict[str, Any]:
    return {"type": "text", "text": value}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def request(messages: list[dict[str, Any]]) -> ProviderRequest:
    body = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": messages}
    return ProviderRequest(method="POST", path="/v1/messages", body=json.dumps(body).encode())


def error_message(messages: list[dict[str, Any]]) -> str | None:
    error = DIALECT.validate(request(messages))
    if error is None:
        return None
    assert error.status == 400
    assert error.body["type"] == "error"
    assert error.body["error"]["type"] == "invalid_request_error"
    return error.message


ASK = {"role": "user", "content": "weather in Paris and the time?"}


@pytest.mark.parametrize(
    "messages",
    [
        [ASK],
        [ASK, assistant(text("hi"), use("toolu_01A")), user(result("toolu_01A"))],
        [
            ASK,
            assistant(use("toolu_01A"), use("toolu_01B")),
            user(result("toolu_01B"), result("toolu_01A"), text()),
        ],
        [
            ASK,
            assistant(use("toolu_01A")),
            user(result("toolu_01A")),
            assistant(text("done")),
            user(text()),
        ],
    ],
    ids=["no_tools", "one_pair", "two_pairs_then_text", "later_turns"],
)
def test_well_paired_histories_pass(messages):
    assert error_message(messages) is None


def test_tool_use_without_result_names_the_assistant_message_and_ids():
    messages = [ASK, assistant(use("toolu_01A"), use("toolu_01B")), user(result("toolu_01A"))]
    assert error_message(messages) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01B. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )


def test_tool_use_followed_by_text_only_lists_every_id():
    messages = [
        ASK,
        assistant(use("toolu_01A")),
        user(result("toolu_01A")),
        assistant(use("toolu_01B"), use("toolu_01C")),
        {"role": "user", "content": "go on"},
    ]
    assert error_message(messages).startswith(
        "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01B, toolu_01C."
    )


def test_tool_use_in_the_last_message_has_no_result_after_it():
    assert error_message([ASK, assistant(use("toolu_01A"))]).startswith(
        "messages.1: `tool_use` ids"
    )


def test_result_without_tool_use_names_message_and_content_position():
    messages = [ASK, assistant(use("toolu_01A")), user(result("toolu_01A"), result("toolu_01Z"))]
    assert error_message(messages) == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Z. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message."
    )


def test_result_in_the_first_message_is_unexpected():
    assert error_message([user(result("toolu_01A"))]).startswith(
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A."
    )


def test_results_not_first_in_the_user_turn():
    messages = [
        ASK,
        assistant(use("toolu_01A"), use("toolu_01B")),
        user(text(), result("toolu_01A"), result("toolu_01B")),
    ]
    assert error_message(messages) == (
        "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. "
        "Messages following `tool_use` blocks must begin with a matching number of `tool_result` "
        "blocks."
    )


def test_duplicate_tool_use_ids_point_at_the_repeat():
    same_message = [
        ASK,
        assistant(text(), use("toolu_01A"), use("toolu_01A")),
        user(result("toolu_01A")),
    ]
    assert error_message(same_message) == "messages.1.content.2: `tool_use` ids must be unique"
    across = [
        ASK,
        assistant(use("toolu_01A")),
        user(result("toolu_01A")),
        assistant(use("toolu_01A")),
        user(result("toolu_01A")),
    ]
    assert error_message(across) == "messages.3.content.0: `tool_use` ids must be unique"


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [ASK, assistant(text(), use("call.1:0")), user(result("call.1:0"))],
            f"messages.1.content.1.tool_use.id: {PATTERN}",
        ),
        (
            [ASK, assistant(use("")), user(result(""))],
            f"messages.1.content.0.tool_use.id: {PATTERN}",
        ),
        (
            [ASK, assistant(use("toolu_01A")), user(result("toolu 01A"))],
            f"messages.2.content.0.tool_result.tool_use_id: {PATTERN}",
        ),
        (
            [ASK, assistant({"type": "tool_use", "id": None, "name": "f", "input": {}})],
            "messages.1.content.0.tool_use.id: Input should be a valid string",
        ),
        (
            [ASK, assistant(use("toolu_01A")), user({"type": "tool_result", "content": "x"})],
            "messages.2.content.0.tool_result.tool_use_id: Field required",
        ),
    ],
    ids=["dot_and_colon", "empty", "space_in_result", "null", "missing"],
)
def test_id_pattern_is_checked_before_pairing(messages, expected):
    assert error_message(messages) == expected


def test_an_empty_body_passes_and_an_empty_object_misses_its_fields():
    assert DIALECT.validate(ProviderRequest(method="POST", path="/v1/messages", body=b"")) is None
    error = DIALECT.validate(ProviderRequest(method="POST", path="/v1/messages", body=b"{}"))
    assert error is not None and error.message == "model: Field required"  # test_request_validation


# --- real clients receive the error ---------------------------------------------------------


class Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, reads: tuple[bytes, ...]) -> None:
        self.reads = reads

    def __iter__(self):
        yield from self.reads

    async def __aiter__(self):
        for read in self.reads:
            yield read


class FakeAnthropic:
    """Answers like the API: validate() first, else a rendered stream; keeps the requests."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.requests: list[ProviderRequest] = []
        self.transport = httpx2.MockTransport(self.handle)

    def handle(self, http: httpx2.Request) -> httpx2.Response:
        provider_request = ProviderRequest(
            method=http.method, path=http.url.path, headers=dict(http.headers), body=http.content
        )
        self.requests.append(provider_request)
        error = DIALECT.validate(provider_request)
        if error is not None:
            return httpx2.Response(error.status, json=error.body)
        wire = DIALECT.render(self.plan)
        return httpx2.Response(200, headers=list(wire.headers), stream=Reads(wire.reads))

    def chat(self) -> Any:
        llm = ChatAnthropic(model="claude-sonnet-4-6", api_key="sk-test", max_retries=0)
        params = (
            llm._client_params
        )  # same injection as test_anthropic.py: keep ChatAnthropic's params
        vars(llm)["_client"] = anthropic.Anthropic(
            **params, http_client=httpx2.Client(transport=self.transport)
        )
        vars(llm)["_async_client"] = anthropic.AsyncAnthropic(
            **params, http_client=httpx2.AsyncClient(transport=self.transport)
        )
        schema = {"type": "object", "properties": {}}
        return llm.bind_tools([{"name": "get_weather", "description": "d", "input_schema": schema}])


DANGLING = [ASK, assistant(use("toolu_01A")), user(text("never mind"))]
DANGLING_TEXT = (
    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "toolu_01A. Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)


def test_sdk_raises_bad_request_with_the_exact_message():
    fake = FakeAnthropic(Plan())
    client = anthropic.Anthropic(
        api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=fake.transport)
    )
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model="claude-sonnet-4-6", max_tokens=64, messages=DANGLING)
    assert raised.value.status_code == 400
    assert raised.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": DANGLING_TEXT},
    }
    assert DANGLING_TEXT in str(raised.value)


@pytest.mark.asyncio
async def test_async_sdk_stream_raises_bad_request_with_the_exact_message():
    fake = FakeAnthropic(Plan())
    client = anthropic.AsyncAnthropic(
        api_key="sk-test", max_retries=0, http_client=httpx2.AsyncClient(transport=fake.transport)
    )
    with pytest.raises(
        anthropic.BadRequestError, match=r"toolu_01A\. Each `tool_use` block"
    ) as raised:
        await client.messages.create(
            model="claude-sonnet-4-6", max_tokens=64, messages=DANGLING, stream=True
        )
    assert raised.value.body["error"]["message"] == DANGLING_TEXT


CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_01A", "type": "tool_call"}


def test_chat_anthropic_well_paired_history_passes_and_streams():
    fake = FakeAnthropic(Plan(text_before="It is sunny."))
    history = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[CALL]),
        ToolMessage("sunny", tool_call_id="toolu_01A"),
    ]
    chunks = list(fake.chat().stream(history))
    assert "".join(c.text for c in chunks) == "It is sunny."
    sent = fake.requests[0].json()
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        (
            [HumanMessage("weather?"), AIMessage("", tool_calls=[CALL]), HumanMessage("hurry")],
            DANGLING_TEXT,
        ),
        (
            [
                HumanMessage("weather?"),
                AIMessage("", tool_calls=[CALL]),
                HumanMessage("hurry"),
                ToolMessage("sunny", tool_call_id="toolu_01A"),
            ],
            "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. "
            "Messages following `tool_use` blocks must begin with a matching number of "
            "`tool_result` blocks.",
        ),
        (
            [
                HumanMessage("weather?"),
                AIMessage("", tool_calls=[{**CALL, "id": ""}]),
                ToolMessage("sunny", tool_call_id=""),
            ],
            f"messages.1.content.0.tool_use.id: {PATTERN}",
        ),
    ],
    ids=["human_instead_of_tool", "human_before_tool", "empty_id"],
)
def test_chat_anthropic_broken_history_raises_the_exact_message(history, expected):
    """ChatAnthropic merges a Human and a Tool message into one user turn, and passes empty
    ids through (it rewrites other invalid ids), so these reach the API as sent here."""
    fake = FakeAnthropic(Plan())
    with pytest.raises(anthropic.BadRequestError) as raised:
        list(fake.chat().stream(history))
    assert raised.value.body["error"]["message"] == expected


def test_chat_anthropic_rewrites_invalid_ids_so_they_pass():
    fake = FakeAnthropic(Plan(text_before="ok"))
    call = {**CALL, "id": "functions.get_weather:0"}
    history = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("sunny", tool_call_id=call["id"]),
    ]
    list(fake.chat().stream(history))
    sent = fake.requests[0].json()["messages"]
    assert sent[1]["content"][0]["id"] == sent[2]["content"][0]["tool_use_id"] != call["id"]
