"""A long-running server holds what its bounded log shows, not one turn per request.

Real uvicorn on 127.0.0.1, the openai SDK as the client; the provider is fed one
turn per request, as ``tooltape serve --repeat`` feeds it.
"""

from __future__ import annotations

import openai
import pytest

from tooltape.fake_providers import FakeProvider, FakeProviderApp, ServerLimits, serve_in_thread
from tooltape.harness import Plan, PlannedCall
from tooltape.harness._errors import TooltapeAssertionError

ONE_CALL = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])
GIVEN = Plan(calls=[PlannedCall(name="get_time", id="call_3")])


def test_fresh_ids_start_at_first_free_and_skip_given_ids() -> None:
    two = Plan(calls=[{"name": "a"}, {"name": "b", "id": "mine"}, {"name": "c"}])
    moved = two.with_fresh_ids({"call_5"}, first_free=4)
    assert [c.id for c in moved.calls] == ["call_4", "mine", "call_6"]
    assert moved.first_free_after(4) == 7
    assert GIVEN.first_free_after(4) == 4  # a given id moves nothing on
    assert ONE_CALL.with_fresh_ids(set(), first_free=0) is ONE_CALL


def test_a_provider_serving_many_turns_holds_only_the_played_turns_its_log_keeps() -> None:
    provider = FakeProvider("openai_chat", base_url="http://tooltape.invalid")
    limits = ServerLimits(log_requests=5)
    streamed: list[str] = []
    with serve_in_thread(FakeProviderApp(provider, limits=limits)) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        for number in range(300):
            provider.stream(GIVEN if number == 150 else ONE_CALL)
            stream = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            streamed += [
                call.id
                for chunk in stream
                for call in (chunk.choices[0].delta.tool_calls or [] if chunk.choices else [])
                if call.id
            ]
    assert provider.played == provider.scripted == 300
    assert len(provider.turns) == 5 and len(provider.requests) == 5
    assert len(streamed) == 300
    assert len(set(streamed)) == 300  # no id handed out twice, with 295 turns forgotten
    assert "call_3" in streamed  # a given id is streamed as given
    provider.assert_all_played()
    provider.stream(ONE_CALL)
    with pytest.raises(TooltapeAssertionError, match="turn 301: stream calling get_weather"):
        provider.assert_all_played()


def test_without_a_log_limit_every_turn_is_kept() -> None:
    provider = FakeProvider("openai_chat")
    for _ in range(3):
        provider.stream(ONE_CALL)
    assert len(provider.turns) == provider.scripted == 3
    assert provider.tool_names == ("get_weather",)
