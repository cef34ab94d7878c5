"""The ASGI app on a real uvicorn server in a thread, over real loopback sockets."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import MutableMapping
from typing import Any

import httpx
import httpx2
import openai
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages.tool import tool_call_chunk
from langchain_openai import ChatOpenAI
from openai.types.chat import ChatCompletionMessageParam

from tooltape.fake_providers._asgi import FakeProviderApp
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._server import serve_in_thread
from tooltape.fake_providers._wire import Wire
from tooltape.fake_providers.framing import PEER_CLOSED
from tooltape.harness import MergeResult, Plan, PlannedCall, reference_merge
from tooltape.harness._errors import TooltapeUsageError

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
    [{"kind": "line_endings", "style": "cr"}, "comments", "sse_fields"],
    ["malformed_args", "truncate_args", {"kind": "events_per_read", "n": 3}, "split_reads"],
]
MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "weather?"}]
STREAM_BODY = {"messages": MESSAGES, "stream": True, "stream_options": {"include_usage": True}}
"""Asks for usage, so each served turn is the scripted wire byte for byte (usage chunk kept)."""


def merged(result: MergeResult) -> tuple[Any, ...]:
    return result.calls(), [(c["name"], c["args"]) for c in result.invalid_tool_calls]


def reference(provider: FakeProvider, turn: int = 0) -> tuple[Any, ...]:
    return merged(reference_merge(provider.dialect.parse(provider.turns[turn].wire.body)))


def sdk_result(chunks: list[Any]) -> tuple[Any, ...]:
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


@pytest.fixture
def server_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture the server thread's warnings and errors."""
    caplog.set_level(logging.WARNING)
    return caplog


def no_noise(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


# --- same merged result as the mock transports ---------------------------------------


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
def test_the_openai_sdk_reads_the_server(quirks: list[Any], server_logs: Any) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, quirks, seed=3)
    with (
        serve_in_thread(provider) as url,
        openai.OpenAI(api_key="sk-test", base_url=f"{url}/v1") as client,
    ):
        chunks = list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    assert sdk_result(chunks) == reference(provider)
    provider.assert_all_played()
    assert no_noise(server_logs) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=str)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses"])
async def test_async_chat_openai_reads_the_server(dialect: str, quirks: list[Any]) -> None:
    provider = FakeProvider(dialect).stream(PLAN, quirks, seed=3)
    with serve_in_thread([provider]) as url:
        llm = ChatOpenAI(
            model="gpt-4o",
            api_key="sk-test",
            base_url=f"{url}/v1",
            use_responses_api=dialect == "openai_responses",
        )
        chunks = [chunk async for chunk in llm.astream("weather?")]
    assert merged(reference_merge(chunks)) == reference(provider)


def test_sync_chat_openai_reads_the_server() -> None:
    provider = FakeProvider("openai_responses").stream(PLAN, ["split_reads", "split_utf8"])
    with serve_in_thread(provider) as url:
        llm = ChatOpenAI(model="gpt-4o", api_key="sk", base_url=f"{url}/v1", use_responses_api=True)
        chunks = list(llm.stream("weather?"))
    assert merged(reference_merge(chunks)) == reference(provider)


def test_chat_anthropic_reads_the_server() -> None:
    tools = [
        {"name": name, "description": name, "input_schema": {"type": "object", "properties": {}}}
        for name in ("get_weather", "get_time")
    ]
    provider = FakeProvider("anthropic_messages").stream(PLAN, ["split_reads", "split_utf8"])
    with serve_in_thread(provider) as url:
        llm = ChatAnthropic(model="claude-sonnet-4-6", api_key="sk", base_url=url)
        chunks = list(llm.bind_tools(tools).stream("weather?"))
    assert merged(reference_merge(chunks)) == reference(provider)
    assert "anthropic-version" in provider.requests[0].headers


def test_each_read_goes_out_as_its_own_chunk() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["split_reads", "split_utf8"], seed=1)
    wire = provider.turns[0].wire
    with (
        serve_in_thread(provider) as url,
        httpx.Client() as client,
        client.stream("POST", f"{url}/v1/chat/completions", json=STREAM_BODY) as resp,
    ):
        received = list(resp.iter_raw())
    assert b"".join(received) == wire.body
    assert resp.headers["transfer-encoding"] == "chunked"
    # h11 never merges HTTP chunks, so every read boundary reaches the client.
    boundaries = {sum(map(len, received[: n + 1])) for n in range(len(received) - 1)}
    assert set(wire.boundaries) <= boundaries


# --- dropped connections -------------------------------------------------------------


def test_close_mid_event_aborts_the_connection_like_the_mock_transports(server_logs: Any) -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["close_mid_event"]).stream(PLAN)
    app = FakeProviderApp(provider)
    with serve_in_thread(app) as url, openai.OpenAI(api_key="sk", base_url=f"{url}/v1") as client:
        with pytest.raises(openai.APIConnectionError) as raised:
            list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
        again = list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    assert isinstance(raised.value.__cause__, httpx2.RemoteProtocolError)
    assert str(raised.value.__cause__) == PEER_CLOSED
    assert sdk_result(again) == reference(provider, 1)  # the server lives on
    assert app.aborted == 1
    assert no_noise(server_logs) == []


def test_close_mid_event_reaches_plain_httpx_as_its_read_error() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN, ["close_mid_event"])
    wire = provider.turns[0].wire
    with (
        serve_in_thread(provider) as url,
        httpx.Client() as client,
        client.stream("POST", f"{url}/v1/chat/completions", json=STREAM_BODY) as response,
    ):
        received: list[bytes] = []
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            received.extend(response.iter_raw())
    assert b"".join(received) == wire.body


def test_a_client_hanging_up_mid_stream_ends_the_stream_quietly(server_logs: Any) -> None:
    big = Wire(reads=tuple(b"data: " + b"x" * 65_536 + b"\n\n" for _ in range(400)))  # 26 MB
    provider = FakeProvider("openai_chat").stream(big).stream(PLAN)
    app = FakeProviderApp(provider)
    with serve_in_thread(app) as url, httpx.Client() as client:
        with client.stream("POST", f"{url}/v1/chat/completions", json=STREAM_BODY) as response:
            first = next(response.iter_raw())
        # The socket buffers cannot hold 26 MB: the server was still sending at the hang-up.
        after = client.post(f"{url}/v1/chat/completions", json=STREAM_BODY)
    assert first.startswith(b"data: xxx")
    assert after.status_code == 200
    assert app.client_disconnects == 1
    assert no_noise(server_logs) == []


# --- routing and errors --------------------------------------------------------------


def test_unknown_routes_get_the_404_naming_method_url_and_routes() -> None:
    providers = [FakeProvider("openai_chat"), FakeProvider("anthropic_messages")]
    with serve_in_thread(providers) as url, httpx.Client() as client:
        response = client.get(f"{url}/v1/models?limit=2")
    assert response.status_code == 404
    assert response.headers["content-length"] == str(len(response.content))
    assert response.json()["error"]["message"] == (
        f"tooltape: no fake provider serves GET {url}/v1/models?limit=2; routes: "
        "POST https://api.openai.com/v1/chat/completions (openai_chat); "
        "POST https://api.anthropic.com/v1/messages (anthropic_messages)"
    )


def test_requests_are_recorded_and_validated_over_http() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN)
    dangling: list[ChatCompletionMessageParam] = [
        *MESSAGES,
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
    ]
    with (
        serve_in_thread(provider) as url,
        openai.OpenAI(api_key="sk-test", base_url=f"{url}/v1", max_retries=0) as client,
    ):
        with pytest.raises(openai.BadRequestError, match="did not have response messages: call_x"):
            client.chat.completions.create(model="m", messages=dangling, stream=True)
        list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    first, second = provider.requests
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer sk-test"
    assert json.loads(second.body)["messages"] == MESSAGES
    provider.assert_all_played()


# --- the server itself ---------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_non_loopback_hosts_are_refused(host: str) -> None:
    with pytest.raises(TooltapeUsageError, match=r"not a loopback address.*allow_non_loopback"):
        serve_in_thread(FakeProvider("openai_chat"), host=host).__enter__()


def test_localhost_and_any_asgi_app_are_served() -> None:
    async def hello(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"hello"})

    with serve_in_thread(hello, host="localhost") as url:
        assert httpx.get(url).text == "hello"
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)  # stopped with the context


def test_serve_in_thread_refuses_what_it_cannot_serve() -> None:
    with pytest.raises(TooltapeUsageError, match="needs an ASGI app"):
        serve_in_thread(42).__enter__()


def test_the_app_answers_lifespan_events_for_other_servers() -> None:
    app = FakeProviderApp(FakeProvider("openai_chat"))
    inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app({"type": "lifespan"}, receive, send))
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


def test_the_ipv6_loopback_is_served() -> None:
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip(
            "no IPv6 loopback on this machine: enable it "
            "(Linux: sysctl -w net.ipv6.conf.lo.disable_ipv6=0)"
        )
    provider = FakeProvider("openai_chat").stream(PLAN)
    with serve_in_thread(provider, host="::1") as url:
        response = httpx.post(f"{url}/v1/chat/completions", json=STREAM_BODY)
    assert url.startswith("http://[::1]:")
    assert response.content == provider.turns[0].wire.body
