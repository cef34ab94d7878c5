"""diagnose_agent_run on hand-built histories, and the loop guard on real LangGraph graphs."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from tooltape.fake_providers._chat_model import FakeToolStreamingModel
from tooltape.harness import (
    AgentLoopDetected,
    AgentRunUnhealthy,
    Diagnosis,
    Plan,
    TooltapeAssertionError,
    TooltapeUsageError,
    arun_with_loop_guard,
    assert_agent_run_healthy,
    diagnose_agent_run,
    run_with_loop_guard,
)


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"mild in {city}"


def call(name: str = "get_weather", call_id: str | None = "call_1", **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args or {"city": "Paris"}, "id": call_id, "type": "tool_call"}


def ai(
    *calls: dict[str, Any], invalid: list[dict[str, Any]] | None = None, **meta: Any
) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=list(calls),
        invalid_tool_calls=[
            {"type": "invalid_tool_call", "error": None, **c} for c in invalid or []
        ],
        response_metadata=meta,
    )


def result(call_id: str, status: str = "success") -> ToolMessage:
    return ToolMessage("mild", tool_call_id=call_id, status=status)


USER = HumanMessage("Weather in Paris?")
FINAL = AIMessage("It is mild.")


def kinds(messages: Any, **kwargs: Any) -> list[str]:
    return [d.kind for d in diagnose_agent_run(messages, **kwargs)]


# -- diagnose_agent_run ----------------------------------------------------------------------


def test_a_clean_run_has_no_diagnosis() -> None:
    messages = [USER, ai(call(), finish_reason="tool_calls"), result("call_1"), FINAL]
    assert diagnose_agent_run(messages, tools=[get_weather]) == []
    assert diagnose_agent_run({"messages": messages}) == []
    assert_agent_run_healthy(messages, tools=[get_weather])


def test_a_call_without_id() -> None:
    (found,) = diagnose_agent_run([USER, ai(call(call_id=None))], finished=False)
    assert found == Diagnosis("missing_id", 1, found.detail, None)
    assert "ToolNode cannot pair a ToolMessage with it" in found.detail


def test_an_empty_id_counts_as_missing() -> None:
    assert kinds([USER, ai(call(call_id=""))], finished=False) == ["missing_id"]


def test_a_malformed_call_beside_a_valid_one() -> None:
    bad = {"name": "get_weather", "args": '{"a": undefined}', "id": "call_0"}
    found = diagnose_agent_run([USER, ai(call(), invalid=[bad])], finished=False)
    assert [d.kind for d in found] == ["invalid_call"]
    assert "ToolNode runs only the valid calls beside it" in found[0].detail
    assert found[0].call_id == "call_0"


def test_a_turn_of_only_malformed_calls_ends_silently() -> None:
    bad = {"name": "get_weather", "args": "[1, 2]", "id": "call_0"}
    (found,) = diagnose_agent_run([USER, ai(invalid=[bad])])
    assert found.kind == "invalid_only_turn"
    assert "routes to END: the run stops silently" in str(found)


def test_a_repeated_name_is_named_with_or_without_tools() -> None:
    messages = [USER, ai(call("get_weatherget_weather"))]
    assert kinds(messages, finished=False) == ["repeated_name"]
    (found,) = diagnose_agent_run(messages, tools=[get_weather], finished=False)
    assert "'get_weatherget_weather' is 'get_weather' repeated" in found.detail


def test_an_unknown_tool_and_missing_required_args() -> None:
    messages = [USER, ai(call("search", "call_1"), call(call_id="call_2", town="x"))]
    found = diagnose_agent_run(messages, tools=[get_weather], finished=False)
    assert [d.kind for d in found] == ["unknown_tool", "args_rejected"]
    assert "'search' is not a registered tool (tools: get_weather)" in found[0].detail
    assert "lacks required argument(s) city" in found[1].detail
    named = diagnose_agent_run(messages, tools=["get_weather", "search"], finished=False)
    assert named == []


@pytest.mark.parametrize(
    ("meta", "shown"),
    [
        ({"finish_reason": "length", "model_provider": "openai"}, "finish_reason='length'"),
        ({"stop_reason": "max_tokens"}, "stop_reason='max_tokens'"),
        ({"status": "incomplete"}, "status='incomplete'"),
        ({"model_provider": "openai"}, "without a finish reason"),
    ],
)
def test_a_truncated_turn(meta: dict[str, Any], shown: str) -> None:
    (found,) = diagnose_agent_run([USER, ai(call(), **meta)], finished=False)
    assert found.kind == "truncated_turn"
    assert shown in found.detail
    assert "ToolNode would execute: get_weather({'city': 'Paris'})" in found.detail


@pytest.mark.parametrize(
    "meta",
    [{}, {"finish_reason": "tool_calls"}, {"stop_reason": "tool_use"}, {"status": "completed"}],
)
def test_a_finished_turn_is_not_truncated(meta: dict[str, Any]) -> None:
    assert kinds([USER, ai(call(), **meta)], finished=False) == []


def test_a_dropped_tool_message() -> None:
    two = ai(call(call_id="call_1"), call(call_id="call_2"))
    mid_run = [USER, two, result("call_1")]
    (found,) = diagnose_agent_run(mid_run, finished=False)
    assert found.kind == "dropped_result"
    assert found.call_id == "call_2"
    assert "the tool step answered other calls, not this one" in found.detail
    later = [*mid_run, ai(call(call_id="call_3")), result("call_3"), FINAL]
    (earlier,) = diagnose_agent_run(later)
    assert earlier.kind == "dropped_result"
    assert "a later turn started: the provider rejects it (400)" in earlier.detail


def test_orphan_and_duplicate_results_and_duplicate_ids() -> None:
    messages = [USER, ai(call(call_id="c1"), call(call_id="c1")), result("c1"), result("c1")]
    assert kinds([*messages, FINAL]) == ["duplicate_id", "duplicate_result"]
    orphan = [USER, ai(call(call_id="c1")), result("c1"), result("c9"), FINAL]
    assert kinds(orphan) == ["orphan_result"]


def test_a_finished_run_must_answer_and_end_with_the_model() -> None:
    pending = [USER, ai(call())]
    assert kinds(pending) == ["pending_at_end"]
    assert kinds(pending, finished=False) == []
    no_answer = [USER, ai(call()), result("call_1")]
    assert kinds(no_answer) == ["no_final_answer"]
    assert kinds(no_answer, finished=False) == []


def test_assert_agent_run_healthy_raises_with_every_diagnosis() -> None:
    messages = [USER, ai(call(call_id=None), call("get_weatherget_weather", "c2"))]
    with pytest.raises(AgentRunUnhealthy) as raised:
        assert_agent_run_healthy(messages, tools=[get_weather])
    text = str(raised.value)
    assert text.startswith("tooltape: the agent run is unhealthy (3 problem(s)):")
    assert "  - missing_id at message 1:" in text
    assert "  - repeated_name at message 1:" in text
    assert "  - pending_at_end at message 1:" in text
    assert isinstance(raised.value, TooltapeAssertionError)
    assert [d.kind for d in raised.value.diagnoses] == [
        "missing_id",
        "repeated_name",
        "pending_at_end",
    ]
    assert_agent_run_healthy(
        messages, tools=[get_weather], allow=["missing_id", "repeated_name", "pending_at_end"]
    )


def test_histories_that_are_not_messages_are_refused() -> None:
    with pytest.raises(TooltapeUsageError, match="is not a LangChain message"):
        diagnose_agent_run([{"role": "user", "content": "hi"}])
    with pytest.raises(TooltapeUsageError, match="a state with 'messages'"):
        diagnose_agent_run({"input": []})


# -- the loop guard --------------------------------------------------------------------------


def weather_graph(model: FakeToolStreamingModel) -> Any:
    bound = model.bind_tools([get_weather])
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


CALL = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])
ANSWER = Plan(text_before="It is mild.")
INPUTS = {"messages": [USER]}


def test_the_guard_returns_the_final_state_of_a_healthy_run() -> None:
    model = FakeToolStreamingModel(turns=[CALL, ANSWER])
    state = run_with_loop_guard(weather_graph(model), INPUTS, tools=[get_weather])
    assert state["messages"][-1].text == "It is mild."
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]


def test_the_guard_stops_a_run_that_keeps_calling_and_names_the_pending_ids() -> None:
    model = FakeToolStreamingModel(turns=[CALL], repeat_last=True)
    with pytest.raises(AgentLoopDetected) as raised:
        run_with_loop_guard(weather_graph(model), INPUTS, max_turns=3)
    assert raised.value.turns == 3
    assert raised.value.pending == ["call_1_r2"]
    assert "made 3 model turn(s) and still asks for tools (max_turns=3)" in str(raised.value)
    assert "pending: ['call_1_r2']" in str(raised.value)
    assert "calls so far: get_weather x3" in str(raised.value)
    assert len(model.requests) == 3  # stopped before a fourth model call


def test_the_guard_reports_calls_answered_only_with_errors() -> None:
    unknown = Plan(calls=[{"name": "get_wether", "args": {"city": "Paris"}, "id": "c"}])
    model = FakeToolStreamingModel(turns=[unknown], repeat_last=True, check_tools=False)
    with pytest.raises(AgentLoopDetected) as raised:
        run_with_loop_guard(weather_graph(model), INPUTS, max_turns=2, check=False)
    assert raised.value.pending == ["c_r1", "c"]
    assert "answered only with errors: ['c']" in str(raised.value)


def test_langgraphs_recursion_limit_becomes_a_loop_report() -> None:
    model = FakeToolStreamingModel(turns=[CALL], repeat_last=True)
    with pytest.raises(AgentLoopDetected, match=r"\(LangGraph: Recursion limit of 4 reached"):
        run_with_loop_guard(
            weather_graph(model), INPUTS, max_turns=50, config={"recursion_limit": 4}
        )


def test_the_guard_raises_the_diagnosis_before_the_tool_node_runs() -> None:
    def model() -> FakeToolStreamingModel:
        return FakeToolStreamingModel(turns=[CALL, ANSWER], quirks=["missing_id"])

    with pytest.raises(TypeError, match="returned unexpected type"):
        weather_graph(model()).invoke(INPUTS)  # unguarded: ToolNode's own error
    with pytest.raises(AgentRunUnhealthy, match="missing_id at message 1"):
        run_with_loop_guard(weather_graph(model()), INPUTS)


def test_the_guard_checks_the_finished_run() -> None:
    bad = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}])
    model = FakeToolStreamingModel(turns=[bad], quirks=["non_object_args"])
    with pytest.raises(AgentRunUnhealthy, match="invalid_only_turn at message 1"):
        run_with_loop_guard(weather_graph(model), INPUTS)
    quiet = FakeToolStreamingModel(turns=[bad], quirks=["non_object_args"])
    state = run_with_loop_guard(weather_graph(quiet), INPUTS, allow=["invalid_only_turn"])
    assert state["messages"][-1].invalid_tool_calls


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(TooltapeUsageError, match="max_turns must be at least 1"):
        run_with_loop_guard(weather_graph(FakeToolStreamingModel()), INPUTS, max_turns=0)


@pytest.mark.asyncio
async def test_the_async_guard_runs_create_agent() -> None:
    model = FakeToolStreamingModel(turns=[CALL, ANSWER])
    agent = create_agent(model, [get_weather])
    state = await arun_with_loop_guard(agent, INPUTS, tools=[get_weather])
    assert state["messages"][-1].text == "It is mild."
    looping = FakeToolStreamingModel(turns=[CALL], repeat_last=True)
    with pytest.raises(AgentLoopDetected, match="pending: \\['call_1_r1'\\]"):
        await arun_with_loop_guard(create_agent(looping, [get_weather]), INPUTS, max_turns=2)
