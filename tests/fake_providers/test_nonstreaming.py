"""Non-streamed turns: a request that does not stream gets the provider's whole JSON body.

Real parts read the bodies: the official SDKs' ``create()`` without ``stream``,
LangChain chat models' ``invoke()`` with the default ``streaming=False``, a
LangGraph agent, botocore's own response parser for Bedrock, and cassettes
recorded over real HTTP on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import httpx
import httpx2
import ollama
import openai
import pytest
from _corpus import corpus_path
from langchain_anthropic import ChatAnthropic
from langchain_cohere import ChatCohere
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import inspect_cassette, load_cassette, record, use_cassette
from tooltape.fake_providers import (
    FakeProvider,
    FakeTransport,
    dialect_names,
    get_dialect,
    patch_httpx,
    patch_httpx2,
    serve_in_thread,
)
from tooltape.harness import Plan, PlannedCall, reference_merge

CALL = PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_7")
PLAN = Plan(calls=[CALL], text_before="Let me check.")
ANSWER = Plan(text_before="It is sunny in Paris.")
USER = [{"role": "user", "content": "weather in Paris?"}]
BODIES: dict[str, dict[str, Any]] = {
    "openai_chat": {"model": "gpt-4o", "messages": USER},
    "openai_responses": {"model": "gpt-4.1", "input": "weather in Paris?"},
    "anthropic_messages": {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": USER},
    "cohere_v2": {"model": "command-a-03-2025", "messages": USER},
    "ollama": {"model": "llama3.1", "messages": USER, "stream": False},
    "mistral_native": {"model": "mistral-large-latest", "messages": USER},
    "gemini": {"contents": [{"role": "user", "parts": [{"text": "weather in Paris?"}]}]},
    "bedrock_converse": {"messages": [{"role": "user", "content": [{"text": "weather?"}]}]},
    "bedrock_invoke": {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 64,
        "messages": USER,
    },
}
PATHS = {
    "gemini": "/v1beta/models/gemini-2.5-flash:generateContent",
    "bedrock_converse": "/model/anthropic.claude-v2/converse",
    "bedrock_invoke": "/model/anthropic.claude-v2/invoke",
}


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def post(dialect: str, provider: FakeProvider) -> httpx.Response:
    path = PATHS.get(dialect, get_dialect(dialect).path)
    url = provider.base_url + path.removeprefix("/v1" if provider.base_url.endswith("/v1") else "")
    with patch_httpx(provider):
        return httpx.post(url, json=BODIES[dialect])


def test_every_dialect_has_a_body_for_every_request() -> None:
    assert sorted(BODIES) == dialect_names()


@pytest.mark.parametrize("dialect", dialect_names())
def test_a_request_without_streaming_gets_one_json_body_holding_the_calls(dialect: str) -> None:
    provider = FakeProvider(dialect).stream(PLAN)
    response = post(dialect, provider)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    merged = reference_merge(provider.dialect.parse(response.content))
    assert [(c["name"], c["args"]) for c in merged.calls()] == [("get_weather", {"city": "Paris"})]
    if dialect != "ollama":  # ChatOllama mints its own ids
        assert [c["id"] for c in merged.calls()] == ["call_7"]
    assert "Let me check." in json.dumps(body)
    provider.assert_all_played()


@pytest.mark.parametrize("dialect", dialect_names())
def test_the_streamed_operation_still_streams(dialect: str) -> None:
    wire = get_dialect(dialect).render(PLAN)
    assert get_dialect(dialect).wants_stream(_streamed_request(dialect))
    assert (
        reference_merge(get_dialect(dialect).parse(wire.body)).calls()[0]["name"] == "get_weather"
    )


def _streamed_request(dialect: str) -> Any:
    from tooltape.fake_providers import ProviderRequest

    body = {**BODIES[dialect], "stream": True}
    return ProviderRequest("POST", get_dialect(dialect).path, {}, json.dumps(body).encode())


def test_openai_sdk_create_without_stream_sync_and_async() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN).stream(PLAN)
    http = httpx2.Client(transport=FakeTransport(provider))
    client = openai.OpenAI(api_key="sk-test", http_client=http)
    completion = client.chat.completions.create(model="gpt-4o", messages=USER)  # type: ignore[arg-type]
    message = completion.choices[0].message
    assert message.content == "Let me check."
    assert message.tool_calls is not None
    assert [(c.id, c.function.name) for c in message.tool_calls] == [("call_7", "get_weather")]  # type: ignore[union-attr]
    assert completion.choices[0].finish_reason == "tool_calls" and completion.usage is not None

    async def main() -> Any:
        aclient = openai.AsyncOpenAI(
            api_key="sk-test", http_client=httpx2.AsyncClient(transport=FakeTransport(provider))
        )
        return await aclient.chat.completions.create(model="gpt-4o", messages=USER)  # type: ignore[arg-type]

    assert asyncio.run(main()).choices[0].message.tool_calls[0].id == "call_7"  # a given id is kept
    provider.assert_all_played()


def test_openai_sdk_responses_create_without_stream() -> None:
    provider = FakeProvider("openai_responses").stream(PLAN)
    http = httpx2.Client(transport=FakeTransport(provider))
    response = openai.OpenAI(api_key="sk-test", http_client=http).responses.create(
        model="gpt-4.1", input="weather?"
    )
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("call_7", "get_weather", '{"city": "Paris"}')
    ]
    assert response.output_text == "Let me check." and response.status == "completed"


def test_anthropic_sdk_create_without_stream() -> None:
    provider = FakeProvider("anthropic_messages").stream(PLAN)
    http = httpx2.Client(transport=FakeTransport(provider))
    message = anthropic.Anthropic(api_key="sk-test", http_client=http).messages.create(
        model="claude-sonnet-4-6",
        max_tokens=64,
        messages=USER,  # type: ignore[arg-type]
    )
    assert [b.type for b in message.content] == ["text", "tool_use"]
    block = message.content[1]
    assert block.type == "tool_use"
    assert (block.id, block.name, block.input) == ("call_7", "get_weather", {"city": "Paris"})
    assert message.stop_reason == "tool_use"


def test_ollama_client_chat_with_stream_false() -> None:
    provider = FakeProvider("ollama").stream(PLAN)
    with patch_httpx(provider):
        answer = ollama.Client(host=provider.base_url).chat(model="m", messages=USER, stream=False)
    assert answer.done and answer.message.content == "Let me check."
    assert answer.message.tool_calls is not None
    assert [(c.function.name, dict(c.function.arguments)) for c in answer.message.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def test_botocore_parses_the_converse_body() -> None:
    import botocore.session
    from botocore.parsers import create_parser

    provider = FakeProvider("bedrock_converse").stream(PLAN)
    response = post("bedrock_converse", provider)
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    parsed = create_parser("rest-json").parse(
        {"status_code": 200, "headers": dict(response.headers), "body": response.content},
        model.operation_model("Converse").output_shape,
    )
    content = parsed["output"]["message"]["content"]
    assert content[0] == {"text": "Let me check."}
    tool = content[1]["toolUse"]
    assert (tool["toolUseId"], tool["name"], tool["input"]) == (
        "call_7",
        "get_weather",
        {"city": "Paris"},
    )
    assert parsed["stopReason"] == "tool_use" and parsed["usage"]["totalTokens"] > 0


def invoke_models() -> dict[str, Any]:
    """Each chat model with its defaults (``streaming`` off), reading a provider of its dialect."""
    return {
        "openai_chat": lambda p: ChatOpenAI(model="gpt-4o", api_key=SecretStr("sk"), max_retries=0),
        "openai_responses": lambda p: ChatOpenAI(
            model="gpt-4.1", api_key=SecretStr("sk"), max_retries=0, use_responses_api=True
        ),
        "anthropic_messages": lambda p: ChatAnthropic(
            model_name="claude-sonnet-4-6", api_key=SecretStr("sk"), max_retries=0, timeout=None
        ),
        "gemini": lambda p: ChatGoogleGenerativeAI(
            model="gemini-2.5-flash",
            api_key="test-key",
            max_retries=1,
            client_args={"transport": FakeTransport(p)},
        ),
        "ollama": lambda p: ChatOllama(model="llama3.1", base_url=p.base_url),
        "cohere_v2": lambda p: ChatCohere(cohere_api_key=SecretStr("k"), model="command-a-03-2025"),
    }


@pytest.mark.parametrize("dialect", sorted(invoke_models()))
def test_chat_model_invoke_with_default_streaming_gets_the_calls(dialect: str) -> None:
    provider = FakeProvider(dialect).stream(PLAN)
    model = invoke_models()[dialect](provider).bind_tools([get_weather])
    with patch_httpx2(provider), patch_httpx(provider):
        message = model.invoke("weather in Paris?")
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    if dialect != "ollama":
        assert message.tool_calls[0]["id"] == "call_7"
    provider.assert_all_played()


def test_a_langgraph_agent_with_streaming_off_runs_tool_then_answers() -> None:
    from langchain.agents import create_agent

    provider = FakeProvider("openai_chat").stream(PLAN).stream(ANSWER)
    model = ChatOpenAI(model="gpt-4o", api_key=SecretStr("sk"), max_retries=0, streaming=False)
    with patch_httpx2(provider):
        state = create_agent(model, [get_weather]).invoke(
            {"messages": [HumanMessage("weather in Paris?")]}
        )
    kinds = [m.type for m in state["messages"]]
    assert kinds == ["human", "ai", "tool", "ai"]
    assert state["messages"][2].content == "sunny in Paris"
    assert state["messages"][2].tool_call_id == "call_7"
    assert state["messages"][-1].content == "It is sunny in Paris."
    second = json.loads(provider.requests[1].body)
    assert second["stream"] is False and second["messages"][-1]["tool_call_id"] == "call_7"
    provider.assert_all_played()


def test_an_error_turn_is_served_as_is_and_a_wire_turn_as_its_merged_calls() -> None:
    wire = get_dialect("anthropic_messages").render(PLAN, ["split_reads"])
    provider = FakeProvider("anthropic_messages").error(529, {"type": "error"}).stream(wire)
    assert post("anthropic_messages", provider).status_code == 529
    body = post("anthropic_messages", provider).json()
    calls = [(b["id"], b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]
    assert calls == [("call_7", "get_weather", {"city": "Paris"})]
    provider.assert_all_played()


def test_profiles_answer_in_their_base_dialects_shape() -> None:
    provider = FakeProvider("vllm").stream(PLAN)
    response = post("openai_chat", provider)
    assert response.json()["object"] == "chat.completion"
    assert response.content.startswith(b'{\n  "id"')  # OpenAI pretty-prints


def test_a_non_streamed_call_records_replays_and_inspects(tmp_path: Any) -> None:
    path = tmp_path / "invoke.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url:
        model = ChatOpenAI(model="gpt-4o", api_key=SecretStr("sk"), base_url=url + "/v1")
        with record(path):
            recorded = model.invoke("weather?")
    interaction = load_cassette(path).interactions[0]
    assert interaction.response.content_type.startswith("application/json")
    with use_cassette(path, record_mode="none"):
        replayed = ChatOpenAI(model="gpt-4o", api_key=SecretStr("sk"), base_url=url + "/v1").invoke(
            "weather?"
        )
    assert replayed.tool_calls == recorded.tool_calls
    inspection = inspect_cassette(path)
    assert inspection.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_7"}
    ]
    assert (
        inspection.warnings == [] and inspection.interactions[0].events[0].kind == "chat.completion"
    )


def test_inspect_reads_a_gemini_stream_recorded_without_alt_sse(tmp_path: Any) -> None:
    gemini = get_dialect("gemini")
    frames = [
        json.loads(e.data) for e in gemini.events(_stream(PLAN), ()) if isinstance(e.data, str)
    ]
    body = json.dumps(frames, indent=2).encode()  # what streamGenerateContent sends without alt=sse
    assert reference_merge(gemini.parse(body)).calls() == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_7"}
    ]
    (tmp_path / "array.json").write_bytes(body)
    inspection = inspect_cassette(tmp_path / "array.json", dialect="gemini")
    assert [c["name"] for c in inspection.tool_calls] == ["get_weather"]


def _stream(plan: Plan) -> Any:
    from tooltape.harness import stream_plan

    return stream_plan(plan, (), seed=0)


def test_the_real_unstreamed_gemini_recording_gives_its_call() -> None:
    path = corpus_path("gemini", "llm-gemini__test_gemini-test_tools__0.json")
    from tooltape.fake_providers.dialects.gemini._parse import read_gemini_stream

    body = json.loads(path.read_text())["response_body"].encode()
    calls = reference_merge(get_dialect("gemini").parse(body)).calls()
    assert [(c["name"], c["args"]) for c in calls] == [("pelican_name_generator", {})]
    # google-genai's own stream reader (it always asks for alt=sse) cannot read it; parse says
    # what the array holds instead of silently nothing.
    assert read_gemini_stream(body).error is not None
