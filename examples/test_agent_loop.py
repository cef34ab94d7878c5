"""An agent loop over a fake provider: create_agent runs the tools, then answers.

Needs ``pip install langchain`` beside ``tooltape[adapters]``.
"""

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from tooltape.harness import Plan, PlannedCall, assert_tool_messages_paired


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"mild in {city}"


def test_agent_calls_both_tools_then_answers(fake_openai):
    calls = Plan(
        calls=[
            PlannedCall("get_weather", {"city": "Paris"}),
            PlannedCall("get_weather", {"city": "Oslo"}),
        ]
    )
    # Turn 1 streams two interleaved calls; turn 2 (the request that carries the
    # tool results) streams the answer.
    fake_openai.stream(calls, quirks=["interleave_calls"]).then(Plan(text_before="Mild in both."))

    agent = create_agent(fake_openai.chat_model(), [get_weather])
    state = agent.invoke({"messages": [HumanMessage("Weather in Paris and Oslo?")]})

    messages = state["messages"]
    assert messages[-1].text == "Mild in both."
    assert [m.text for m in messages if m.type == "tool"] == ["mild in Paris", "mild in Oslo"]
    assert_tool_messages_paired(messages)  # every call answered, after it, once
    assert len(fake_openai.requests) == 2
