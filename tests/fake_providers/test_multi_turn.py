"""Scripted turns through the real LangChain adapters: pairing passes, a dropped result fails."""

import anthropic
import openai
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

from tooltape.fake_providers import FakeProvider, patch_httpx2
from tooltape.harness import Plan, assert_merge

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
]

CALLS = Plan(
    calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_oslo"},
    ]
)
ANTHROPIC_CALLS = Plan(
    calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_paris"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "toolu_oslo"},
    ]
)
ANSWER = Plan(text_before="Paris 18°C, Oslo 7°C.")

CASES = {
    "openai_chat": (CALLS, lambda: ChatOpenAI(model="gpt-4o", api_key="sk-test", streaming=True)),
    "openai_responses": (
        CALLS,
        lambda: ChatOpenAI(
            model="gpt-4o", api_key="sk-test", use_responses_api=True, streaming=True
        ),
    ),
    "anthropic_messages": (
        ANTHROPIC_CALLS,
        lambda: ChatAnthropic(model="claude-sonnet-4-6", api_key="sk-test", streaming=True),
    ),
}

MISSING_RESULT = {
    "openai_chat": (
        openai.BadRequestError,
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_oslo",
    ),
    "openai_responses": (
        openai.BadRequestError,
        "No tool output found for function call call_oslo.",
    ),
    "anthropic_messages": (
        anthropic.BadRequestError,
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_oslo.",
    ),
}


def run_turns(dialect, *, answer_every_call):
    plan, make_model = CASES[dialect]
    provider = FakeProvider(dialect).stream(plan).then(ANSWER)
    with patch_httpx2(provider) as transport:
        model = make_model().bind_tools(TOOLS)
        history = [HumanMessage("Weather in Paris and Oslo?")]
        first = model.invoke(history)
        assert_merge(first, plan)
        history.append(first)
        calls = first.tool_calls if answer_every_call else first.tool_calls[:1]
        history += [ToolMessage("mild", tool_call_id=c["id"], name=c["name"]) for c in calls]
        final = model.invoke(history)
        transport.assert_all_played()
    return provider, final


@pytest.mark.parametrize("dialect", CASES)
def test_paired_conversation_reaches_the_final_answer(dialect):
    provider, final = run_turns(dialect, answer_every_call=True)
    assert final.text == "Paris 18°C, Oslo 7°C."
    assert final.tool_calls == []
    assert len(provider.requests) == 2


@pytest.mark.parametrize("dialect", CASES)
def test_dropped_tool_result_gets_the_providers_real_400(dialect):
    error_type, text = MISSING_RESULT[dialect]
    with pytest.raises(error_type) as error:
        run_turns(dialect, answer_every_call=False)
    assert error.value.status_code == 400
    assert text in str(error.value)


def test_a_non_streaming_call_plays_the_turn_as_one_json_body():
    provider = FakeProvider("openai_chat").stream(CALLS)
    with patch_httpx2(provider) as transport:
        model = ChatOpenAI(model="gpt-4o", api_key="sk-test", max_retries=0)
        message = model.invoke("hi")
        transport.assert_all_played()
    assert [call["name"] for call in message.tool_calls] == [c.name for c in CALLS.calls]
