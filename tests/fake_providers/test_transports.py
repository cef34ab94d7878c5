"""The httpx2 transport, patch_httpx2 and the respx routes, served to real clients.

Every path must give the client the same bytes with the same read boundaries,
so the client's merged result equals the reference merge of the dialect's own
parse of those bytes (not merely the plan: lossy quirks included).
"""

from __future__ import annotations

import re
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest
import respx
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_openai import ChatOpenAI
from openai.types.chat import ChatCompletionMessageParam

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers._httpx2_transport import FakeTransport, patch_httpx2
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._respx import add_respx_routes, patch_httpx
from tooltape.fake_providers._wire import Wire
from tooltape.fake_providers.framing import PEER_CLOSED
from tooltape.harness import MergeResult, Plan, PlannedCall, reference_merge

PLAN = Plan(
    calls=(
        PlannedCall(name="get_weather", args={"city": "北京", "note": "café ☕"}, id="call_a"),
        PlannedCall(name="get_time", args={"tz": "Asia/Shanghai"}, id="call_b"),
    ),
    text_before="Let me check 🌦",
)
QUIRK_SETS: list[list[Any]] = [
    [],
    ["split_reads", "split_utf8"],
    [{"kind": "line_endings", "style": "mixed"}, "comments", "data_no_space"],
    # lossy: the first call's args malformed (invalid), the last call's cut short
    ["malformed_args", "truncate_args", {"kind": "events_per_read", "n": 3}, "split_reads"],
]
CHAT_URL = "https://api.openai.com/v1/chat/completions"
MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "weather?"}]
STREAM_BODY = {"messages": MESSAGES, "stream": True, "stream_options": {"include_usage": True}}
"""Asks for usage, so each served turn is the scripted wire byte for byte (usage chunk kept)."""


def merged(result: MergeResult) -> tuple[Any, ...]:
    return result.calls(), [(c["name"], c["args"]) for c in result.invalid_tool_calls]


def reference(provider: FakeProvider, turn: int = 0) -> tuple[Any, ...]:
    return merged(reference_merge(provider.dialect.parse(provider.turns[turn].wire.body)))


def sdk_result(chunks: list[Any]) -> tuple[Any, ...]:
    """Merge the openai SDK's chat chunks the way langchain-openai converts them."""
    deltas = []
    for chunk in chunks:
        calls = chunk.choices[0].delta.tool_calls if chunk.choices else None
        deltas.append(
            [
                tool_call_chunk(
                    name=c.function.name if c.function else None,
                    args=c.function.arguments if c.function else None,
                    id=c.id,
                    index=c.index,
                )
                for c in calls or []
            ]
        )
    return merged(reference_merge(deltas))


def chat_result(chunks: list[AIMessageChunk]) -> tuple[Any, ...]:
    return merged(reference_merge(chunks))


def stream_sdk(client: openai.OpenAI) -> list[Any]:
    return list(client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True))


async def astream_sdk(client: openai.AsyncOpenAI) -> list[Any]:
    stream = await client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
    return [chunk async for chunk in stream]


# --- httpx2: the explicit transport --------------------------------------------------


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
def test_fake_transport_serves_the_openai_sdk(quirks: list[Any]) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, quirks, seed=2)
    http_client = httpx2.Client(transport=FakeTransport(provider))
    with openai.OpenAI(api_key="sk-test", http_client=http_client) as client:
        assert sdk_result(stream_sdk(client)) == reference(provider)
    provider.assert_all_played()


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
async def test_fake_transport_serves_the_async_openai_sdk(quirks: list[Any]) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, quirks, seed=2)
    http_client = httpx2.AsyncClient(transport=FakeTransport(provider))
    async with openai.AsyncOpenAI(api_key="sk-test", http_client=http_client) as client:
        assert sdk_result(await astream_sdk(client)) == reference(provider)


def test_reads_arrive_one_by_one_and_lazily() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["split_reads", "close_mid_event"])
    wire = provider.turns[0].wire
    with (
        httpx2.Client(transport=FakeTransport(provider)) as client,
        client.stream("POST", CHAT_URL, json=STREAM_BODY) as response,
    ):
        chunks = response.iter_raw()
        received = [next(chunks) for _ in wire.reads]  # every read, before the error
        with pytest.raises(httpx2.RemoteProtocolError, match=re.escape(PEER_CLOSED)):
            next(chunks)
    assert received == list(wire.reads)


@pytest.mark.asyncio
async def test_async_reads_arrive_one_by_one() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["split_reads", "split_utf8"])
    async with (
        httpx2.AsyncClient(transport=FakeTransport(provider)) as client,
        client.stream("POST", CHAT_URL, json=STREAM_BODY) as response,
    ):
        received = [chunk async for chunk in response.aiter_raw()]
    assert received == list(provider.turns[0].wire.reads)
    assert response.headers["content-type"].startswith("text/event-stream")


# --- httpx2: patch_httpx2 ------------------------------------------------------------


TOOLS = [
    {"name": name, "description": name, "input_schema": {"type": "object", "properties": {}}}
    for name in ("get_weather", "get_time")
]
DIALECTS = ["openai_chat", "openai_responses", "anthropic_messages"]


def chat_model(dialect: str, **kwargs: Any) -> Any:
    """The reference LangChain adapter of a dialect, built with default clients."""
    if dialect == "anthropic_messages":
        # Bound tools keep content as blocks (unbound, tool_use blocks trigger a warning).
        return ChatAnthropic(model="claude-sonnet-4-6", api_key="sk-test", **kwargs).bind_tools(
            TOOLS
        )
    responses = dialect == "openai_responses"
    return ChatOpenAI(model="gpt-4o", api_key="sk-test", use_responses_api=responses, **kwargs)


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_patch_httpx2_serves_adapters_built_inside(dialect: str, quirks: list[Any]) -> None:
    provider = FakeProvider(dialect).stream(PLAN, quirks, seed=5)
    with patch_httpx2(provider) as transport:
        assert chat_result(list(chat_model(dialect).stream("weather?"))) == reference(provider)
    transport.assert_all_played()


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_patch_httpx2_serves_async_adapters(dialect: str, quirks: list[Any]) -> None:
    provider = FakeProvider(dialect).stream(PLAN, quirks, seed=5)
    with patch_httpx2(provider):
        chunks = [chunk async for chunk in chat_model(dialect).astream("weather?")]
    assert chat_result(chunks) == reference(provider)


def test_patch_httpx2_serves_the_openai_sdk_and_clients_built_before_it() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN).then(PLAN, ["split_reads"])
    with (
        openai.OpenAI(api_key="sk-test") as early,
        patch_httpx2(provider),
        openai.OpenAI(api_key="sk-test") as client,
    ):
        assert sdk_result(stream_sdk(client)) == reference(provider, 0)
        assert sdk_result(stream_sdk(early)) == reference(provider, 1)
    provider.assert_all_played()


def test_patch_httpx2_restores_the_transports_even_when_nested() -> None:
    originals = (httpx2.Client._transport_for_url, httpx2.AsyncClient._transport_for_url)
    with patch_httpx2(FakeProvider("openai_chat")) as outer:
        with patch_httpx2(FakeProvider("anthropic_messages")) as inner, httpx2.Client() as client:
            assert client._transport_for_url(httpx2.URL("https://api.openai.com/")) is outer
            assert client._transport_for_url(httpx2.URL("https://api.anthropic.com/")) is inner
        assert httpx2.Client._transport_for_url is not originals[0]
    assert (httpx2.Client._transport_for_url, httpx2.AsyncClient._transport_for_url) == originals


def test_patch_httpx2_answers_other_hosts_with_the_no_route_error() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN)
    with (
        patch_httpx2(provider) as transport,
        openai.OpenAI(api_key="sk-test", base_url="https://example.com/v1") as client,
        pytest.raises(openai.NotFoundError) as raised,
    ):
        stream_sdk(client)
    assert raised.value.message == (
        "Error code: 404 - tooltape: no fake provider serves POST "
        "https://example.com/v1/chat/completions; "
        "routes: POST https://api.openai.com/v1/chat/completions (openai_chat)"
    )
    assert transport.router.unrouted == ["POST https://example.com/v1/chat/completions"]
    with pytest.raises(AssertionError, match="turn 1: stream calling get_weather, get_time"):
        transport.assert_all_played()


def test_patch_httpx2_never_reaches_the_network() -> None:
    with (
        patch_httpx2(FakeProvider("openai_chat")),
        httpx2.Client() as client,
    ):
        response = client.get("https://www.python.org/")
    assert response.status_code == 404
    assert "no fake provider serves GET https://www.python.org/" in response.text


def test_close_mid_event_through_chat_anthropic_raises_httpx2_s_read_error() -> None:
    # anthropic 2.16 and before let httpx2's read error through; 2.17 wraps it in its
    # APIConnectionError (langchain-anthropic's AnthropicConnectionError): either way the
    # chain of causes holds the read error, with the peer's words.
    provider = FakeProvider("anthropic_messages").stream(PLAN, ["close_mid_event"])
    raised_types = (httpx2.RemoteProtocolError, anthropic.APIConnectionError)
    with patch_httpx2(provider), pytest.raises(raised_types) as raised:
        list(chat_model("anthropic_messages").stream("weather?"))
    chain: list[BaseException] = []
    error: BaseException | None = raised.value
    while error is not None:
        chain.append(error)
        error = error.__cause__
    read_errors = [e for e in chain if isinstance(e, httpx2.RemoteProtocolError)]
    assert [str(e) for e in read_errors] == [PEER_CLOSED], chain


def test_close_mid_event_through_chat_openai_raises_the_sdk_connection_error() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["close_mid_event"])
    with patch_httpx2(provider), pytest.raises(openai.APIConnectionError) as raised:
        list(ChatOpenAI(model="gpt-4o", api_key="sk-test").stream("weather?"))
    # langchain-openai wraps the SDK's APIConnectionError, which wraps httpx2's read error.
    sdk_error = raised.value.__cause__
    assert isinstance(sdk_error, openai.APIConnectionError)
    assert isinstance(sdk_error.__cause__, httpx2.RemoteProtocolError)
    assert str(sdk_error.__cause__) == PEER_CLOSED


# --- httpx through respx -------------------------------------------------------------


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
def test_respx_serves_the_openai_sdk_on_an_httpx_client(quirks: list[Any]) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, quirks, seed=7)
    with (
        patch_httpx(provider) as router,
        openai.OpenAI(api_key="sk-test", http_client=httpx.Client()) as client,
    ):
        assert sdk_result(stream_sdk(client)) == reference(provider)
    router.assert_all_played()


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
async def test_respx_serves_async_chat_openai_on_httpx(quirks: list[Any]) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, quirks, seed=7)
    with patch_httpx(provider):
        async with httpx.AsyncClient() as http_client:
            llm = ChatOpenAI(model="gpt-4o", api_key="sk-test", http_async_client=http_client)
            chunks = [chunk async for chunk in llm.astream("weather?")]
    assert chat_result(chunks) == reference(provider)


def test_respx_reads_keep_their_boundaries_and_a_cut_body_raises() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["split_reads", "close_mid_event"])
    wire = provider.turns[0].wire
    with (
        patch_httpx(provider),
        httpx.Client() as client,
        client.stream("POST", CHAT_URL, json=STREAM_BODY) as response,
    ):
        chunks = response.iter_raw()
        received = [next(chunks) for _ in wire.reads]
        with pytest.raises(httpx.RemoteProtocolError) as raised:
            next(chunks)
    assert received == list(wire.reads)
    assert str(raised.value) == PEER_CLOSED


@pytest.mark.asyncio
async def test_respx_async_reads_keep_their_boundaries() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["split_reads", "split_utf8"])
    with patch_httpx(provider):
        async with (
            httpx.AsyncClient() as client,
            client.stream("POST", CHAT_URL, json=STREAM_BODY) as response,
        ):
            received = [chunk async for chunk in response.aiter_raw()]
    assert received == list(provider.turns[0].wire.reads)


def test_add_respx_routes_inside_a_users_respx_mock() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN)
    with respx.mock(assert_all_mocked=True) as mock:
        other = mock.get("https://example.com/health").respond(200, text="ok")
        router = add_respx_routes(mock, provider)
        with httpx.Client() as client:
            assert client.get("https://example.com/health").text == "ok"
            unknown = client.post("https://api.openai.com/v1/embeddings", json={})
            with client.stream("POST", CHAT_URL, json=STREAM_BODY) as response:
                body = response.read()
    assert other.called
    assert unknown.status_code == 404
    assert router.unrouted == ["POST https://api.openai.com/v1/embeddings"]
    assert body == provider.turns[0].wire.body


def test_patch_httpx_answers_unknown_hosts_with_the_no_route_error() -> None:
    with patch_httpx(FakeProvider("anthropic_messages")), httpx.Client() as client:
        response = client.post("http://localhost:1234/v1/messages", json={})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "tooltape: no fake provider serves POST http://localhost:1234/v1/messages; "
        "routes: POST https://api.anthropic.com/v1/messages (anthropic_messages)"
    )


def test_error_turns_reach_the_sdk_with_their_status() -> None:
    body = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit"}}
    provider = FakeProvider("openai_chat").error(429, body)
    with (
        patch_httpx2(provider),
        openai.OpenAI(api_key="sk-test", max_retries=0) as client,
        pytest.raises(openai.RateLimitError, match="Rate limit reached"),
    ):
        stream_sdk(client)


def test_a_prerendered_wire_streams_verbatim() -> None:
    wire = get_dialect("openai_chat").render(PLAN, ["split_reads"], seed=9)
    provider = FakeProvider("openai_chat").stream(Wire(reads=wire.reads, headers=wire.headers))
    with patch_httpx2(provider), openai.OpenAI(api_key="sk-test") as client:
        assert sdk_result(stream_sdk(client)) == reference(provider)
