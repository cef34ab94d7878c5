"""FakeProvider scripts and the ProviderRouter: turns, validation, exhaustion, routes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import openai
import pytest
from langchain_core.messages.tool import tool_call_chunk
from openai.types.chat import ChatCompletionMessageParam

from tooltape.fake_providers import Dialect, ProviderEvent, get_dialect, register_dialect
from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._httpx2_transport import patch_httpx2
from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
from tooltape.fake_providers._sse import decode_sse
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
from tooltape.fake_providers.http_objects import json_wire
from tooltape.harness import Deltas, Plan, PlannedCall, PlannedStream, Quirk
from tooltape.harness._errors import TooltapeAssertionError, TooltapeUsageError


@register_dialect
class _EchoDialect(Dialect):
    """A test-only dialect: one SSE event per fragment, a templated path, a simple rule."""

    name = "_test_echo_provider"
    path = "/v1beta/models/{model}:streamEcho"

    def build_events(self, stream: PlannedStream, quirks: Sequence[Quirk]) -> list[ProviderEvent]:
        return [
            ProviderEvent({"name": f.name, "args": f.args, "id": f.id, "index": f.index})
            for message in stream.messages
            for f in message
        ]

    def parse(self, body: bytes) -> Deltas:
        return [[tool_call_chunk(**e.json())] for e in decode_sse(body)]

    def validate(self, request: ProviderRequest) -> ProviderError | None:
        payload = request.json()
        if isinstance(payload, dict) and payload.get("reject"):
            return ProviderError(422, {"error": {"message": "rejected on purpose"}})
        return None

    def body_error(self, problem: BodyProblem) -> ProviderError:
        return ProviderError(400, {"error": {"message": problem.kind}})


ECHO = "https://echo.test/v1beta/models/m1:streamEcho"
PLAN_A = Plan(calls=(PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_a"),))
PLAN_B = Plan(calls=(PlannedCall(name="get_time", args={"tz": "CET"}, id="call_b"),))


def echo_provider() -> FakeProvider:
    return FakeProvider("_test_echo_provider", base_url="https://echo.test")


def post(
    body: dict[str, Any] | None = None, path: str = "/v1beta/models/m1:streamEcho"
) -> ProviderRequest:
    return ProviderRequest("POST", path, {}, json.dumps(body or {}).encode())


# --- construction --------------------------------------------------------------------


def test_default_base_urls_are_the_public_apis() -> None:
    openai_chat = FakeProvider("openai_chat")
    assert openai_chat.base_url == "https://api.openai.com/v1"
    assert (openai_chat.host, openai_chat.port) == ("api.openai.com", 443)
    assert FakeProvider("anthropic_messages").host == "api.anthropic.com"
    local = FakeProvider("openai_chat", base_url="http://localhost:8000/v1/")
    assert (local.host, local.port, local.base_url) == (
        "localhost",
        8000,
        "http://localhost:8000/v1",
    )


def test_a_dialect_without_a_default_base_url_needs_one() -> None:
    with pytest.raises(TooltapeUsageError, match=r"_test_echo_provider.*base_url="):
        FakeProvider("_test_echo_provider")
    assert FakeProvider(_EchoDialect(), base_url="http://x").dialect.name == "_test_echo_provider"


def test_unknown_dialect_names_the_known_ones() -> None:
    with pytest.raises(TooltapeUsageError, match=r"unknown dialect 'nope'.*openai_chat"):
        FakeProvider("nope")


# --- the script ----------------------------------------------------------------------


def test_turns_chain_and_play_in_order() -> None:
    provider = echo_provider()
    assert provider.stream(PLAN_A).then(PLAN_B, ["split_reads"], seed=4) is provider
    first, second = provider.handle(post()), provider.handle(post())
    dialect = get_dialect("_test_echo_provider")
    assert first == dialect.render(PLAN_A)
    assert second == dialect.render(PLAN_B, ["split_reads"], 4)
    assert provider.played == 2
    assert [t.label for t in provider.turns] == [
        "turn 1: stream calling get_weather",
        "turn 2: stream calling get_time with split_reads(pieces=3, after_field=True)",
    ]
    provider.assert_all_played()


def test_a_prerendered_wire_is_served_as_is() -> None:
    wire = Wire(reads=(b"data: {}\n\n",))
    assert echo_provider().stream(wire).handle(post()) is wire


def test_error_turns() -> None:
    provider = echo_provider().error(429, {"error": {"message": "slow down"}}).error(503)
    first, second = provider.handle(post()), provider.handle(post())
    assert (first.status, json.loads(first.body)) == (429, {"error": {"message": "slow down"}})
    assert first.content_type == "application/json"
    assert second.status == 503
    assert json.loads(second.body)["error"]["message"] == "scripted error 503"


def test_validation_failure_answers_the_provider_error_and_keeps_the_turn() -> None:
    provider = echo_provider().stream(PLAN_A)
    rejected = provider.handle(post({"reject": True}))
    assert rejected.status == 422
    assert json.loads(rejected.body) == {"error": {"message": "rejected on purpose"}}
    assert provider.rejected[0][1].message == "rejected on purpose"
    assert provider.played == 0
    assert provider.handle(post()).status == 200
    assert len(provider.requests) == 2


def test_an_exhausted_script_answers_400_and_fails_assert_all_played() -> None:
    provider = echo_provider().stream(PLAN_A)
    provider.handle(post())
    extra = provider.handle(post())
    assert extra.status == 400
    error = json.loads(extra.body)["error"]
    assert error["type"] == "tooltape_script_exhausted"
    assert "no turn left for request #2" in error["message"]
    assert "1 turn(s) were scripted" in error["message"]
    assert provider.unexpected == [post()]
    with pytest.raises(TooltapeAssertionError, match=r"request #2 \(POST /v1beta/.*no turn left"):
        provider.assert_all_played()


def test_assert_all_played_names_the_unplayed_turns() -> None:
    provider = echo_provider().stream(PLAN_A).then(PLAN_B).error(500)
    provider.handle(post())
    with pytest.raises(AssertionError) as raised:
        provider.assert_all_played()
    message = str(raised.value)
    assert message.startswith("tooltape: fake _test_echo_provider provider at https://echo.test")
    assert "turn 2: stream calling get_time was not played" in message
    assert "turn 3: 500 was not played" in message
    assert "turn 1" not in message


def test_turns_are_served_once_each_under_concurrent_requests() -> None:
    provider = echo_provider()
    plans = [Plan(calls=(PlannedCall(name=f"tool_{n}", id=f"call_{n}"),)) for n in range(40)]
    for plan in plans:
        provider.stream(plan)
    with ThreadPoolExecutor(8) as pool:
        wires = list(pool.map(lambda _: provider.handle(post()), range(40)))
    assert sorted(w.body for w in wires) == sorted(t.wire.body for t in provider.turns)
    provider.assert_all_played()


# --- routing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "served"),
    [
        ("https://api.openai.com/v1/chat/completions", True),
        ("https://api.openai.com/chat/completions", True),
        ("https://api.openai.com/openai/v1/chat/completions", True),
        ("https://api.openai.com:443/v1/chat/completions?x=1", True),
        ("https://api.openai.com/v1/chat/completions/extra", False),
        ("https://api.openai.com/v1/completions", False),
        ("https://api.openai.com/v1/xchat/completions", False),
        ("http://api.openai.com/v1/chat/completions", False),
        ("https://api.anthropic.com/v1/chat/completions", False),
    ],
)
def test_routes_by_host_port_and_path_suffix(url: str, served: bool) -> None:
    router = ProviderRouter([FakeProvider("openai_chat")])
    assert (router.provider_for("POST", url) is not None) is served


def test_templated_paths_match_any_text_in_the_placeholder() -> None:
    # Placeholders may span slashes: Bedrock model ids can be ARNs with '/'.
    router = ProviderRouter([echo_provider()])
    assert router.provider_for("POST", ECHO) is not None
    assert router.provider_for("POST", "https://echo.test/v1beta/models/a/b:streamEcho") is not None
    assert router.provider_for("POST", "https://echo.test/v1beta/models/a:streamOther") is None
    assert router.provider_for("GET", ECHO) is None


def test_the_first_provider_that_serves_wins() -> None:
    first, second = FakeProvider("openai_chat"), FakeProvider("openai_chat")
    assert (
        ProviderRouter([first, second]).provider_for("POST", ECHO.replace("echo.test", "x")) is None
    )
    url = "https://api.openai.com/v1/chat/completions"
    assert ProviderRouter([first, second]).provider_for("POST", url) is first


def test_host_matching_can_be_turned_off_for_servers() -> None:
    router = ProviderRouter([FakeProvider("openai_chat")], match_host=False)
    assert router.provider_for("POST", "http://127.0.0.1:5000/v1/chat/completions") is not None


def test_no_route_answers_404_naming_method_url_and_routes() -> None:
    router = ProviderRouter([FakeProvider("openai_chat"), FakeProvider("anthropic_messages")])
    wire = router.dispatch(ProviderRequest("GET", "/v1/models"), "https://api.openai.com/v1/models")
    assert wire.status == 404
    body = json.loads(wire.body)
    assert body["error"]["type"] == "tooltape_no_route"
    assert body["error"]["message"] == (
        "tooltape: no fake provider serves GET https://api.openai.com/v1/models; routes: "
        "POST https://api.openai.com/v1/chat/completions (openai_chat); "
        "POST https://api.anthropic.com/v1/messages (anthropic_messages)"
    )
    assert router.unrouted == ["GET https://api.openai.com/v1/models"]
    with pytest.raises(TooltapeAssertionError, match=r"no route for GET https://api\.openai\.com"):
        router.assert_all_played()


def test_router_needs_providers() -> None:
    with pytest.raises(TooltapeUsageError, match="at least one FakeProvider"):
        ProviderRouter([])
    with pytest.raises(TooltapeUsageError, match="expected FakeProvider instances"):
        ProviderRouter(["openai_chat"])  # type: ignore[list-item]


def test_json_wire_sets_length_and_type() -> None:
    wire = json_wire(418, {"a": 1})
    assert dict(wire.headers) == {"content-type": "application/json", "content-length": "8"}


# --- a scripted multi-turn conversation with the official SDK ------------------------


def test_multi_turn_with_a_broken_history_raises_the_sdks_bad_request_error() -> None:
    provider = FakeProvider("openai_chat").stream(PLAN_A).then(Plan(text_before="Sunny."))
    history: list[dict[str, Any]] = [{"role": "user", "content": "weather in Paris?"}]
    with patch_httpx2(provider), openai.OpenAI(api_key="sk-test", max_retries=0) as client:
        calls = _tool_calls(client, history)
        assert [(c["id"], c["name"], json.loads(c["args"])) for c in calls] == [
            ("call_a", "get_weather", {"city": "Paris"})
        ]
        history.append(_assistant(calls))
        dangling = list(history)
        history.append({"role": "tool", "tool_call_id": "call_a", "content": "sunny"})
        assert _tool_calls(client, history) == []
        with pytest.raises(openai.BadRequestError) as raised:
            _tool_calls(client, dangling)
    assert raised.value.status_code == 400
    assert "did not have response messages: call_a" in raised.value.message
    assert len(provider.requests) == 3
    assert len(provider.rejected) == 1
    provider.assert_all_played()


def _assistant(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["args"]},
            }
            for c in calls
        ],
    }


def _tool_calls(client: openai.OpenAI, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    typed = cast("list[ChatCompletionMessageParam]", messages)
    stream = client.chat.completions.create(model="gpt-4o", messages=typed, stream=True)
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(delta.index, {"id": None, "name": "", "args": ""})
            call["id"] = call["id"] or delta.id
            call["name"] += (delta.function and delta.function.name) or ""
            call["args"] += (delta.function and delta.function.arguments) or ""
    return [calls[n] for n in sorted(calls)]
