"""The faults real agent loops hit, each turned into a clear failure with a diagnosis.

For every fault: what the unguarded loop does today (pinned: a TypeError inside
ToolNode, the provider's 400 at the next turn, a silent END, a retry loop, a tool
run with truncated arguments), the guarded run failing with the diagnosis text
before that happens, and the fixed flow passing. The providers are the fake
OpenAI Chat, OpenAI Responses and Anthropic APIs, read by the real adapters.
"""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import FakeProvider, patch_httpx2
from tooltape.harness import (
    AgentLoopDetected,
    AgentRunUnhealthy,
    Plan,
    assert_tool_messages_paired,
    diagnose_agent_run,
    run_with_loop_guard,
)

executed: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    executed.append(city)
    return f"mild in {city}"


TOOLS = [get_weather]
TWO_CITIES = Plan(
    calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_oslo"},
    ]
)
ONE_CITY = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris"}])
ANSWER = Plan(text_before="It is mild.")
QUESTION = {"messages": [HumanMessage("Weather in Paris and Oslo?")]}
MALFORMED_FIRST = [{"kind": "malformed_args", "call": 0, "variant": "undefined"}]


@pytest.fixture(autouse=True)
def _clear_executed() -> None:
    executed.clear()


def tool_node_graph(model: Any, tools_node: Any = None) -> Any:
    bound = model.bind_tools(TOOLS)
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", tools_node or ToolNode(TOOLS))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


def build(loop: str, provider: FakeProvider) -> Any:
    model = provider.dialect.chat_model(provider.base_url)
    return create_agent(model, TOOLS) if loop == "create_agent" else tool_node_graph(model)


def provider(dialect: str, first: Plan, quirks: Any = (), *rest: Plan) -> FakeProvider:
    fake = FakeProvider(dialect).stream(first, quirks, seed=1)
    for seed, plan in enumerate(rest or (ANSWER,), start=2):
        fake.then(plan, seed=seed)
    return fake


def guarded(loop: str, fake: FakeProvider, **options: Any) -> Any:
    with patch_httpx2(fake):
        return run_with_loop_guard(build(loop, fake), QUESTION, tools=TOOLS, **options)


def unguarded(loop: str, fake: FakeProvider) -> Any:
    with patch_httpx2(fake):
        return build(loop, fake).invoke(QUESTION)


LOOPS = ["create_agent", "state_graph"]


# -- 1. calls without ids ------------------------------------------------------------------


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses"])
def test_calls_without_ids_crash_tool_node(dialect: str, loop: str) -> None:
    """Pinned: ToolNode invokes the tool without a call id and rejects the bare string."""
    with pytest.raises(TypeError, match="Tool get_weather returned unexpected type"):
        unguarded(loop, provider(dialect, TWO_CITIES, ["missing_id"]))


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses"])
def test_calls_without_ids_fail_with_the_diagnosis(dialect: str, loop: str) -> None:
    fake = provider(dialect, TWO_CITIES, ["missing_id"])
    with pytest.raises(AgentRunUnhealthy) as raised:
        guarded(loop, fake)
    assert (
        "missing_id at message 1: get_weather({'city': 'Paris'}) has id None: ToolNode cannot "
        "pair a ToolMessage with it"
    ) in str(raised.value)
    assert executed == []
    assert len(fake.requests) == 1


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses", "anthropic_messages"])
def test_calls_with_ids_pass(dialect: str, loop: str) -> None:
    state = guarded(loop, provider(dialect, TWO_CITIES))
    assert state["messages"][-1].text == "It is mild."
    assert sorted(executed) == ["Oslo", "Paris"]


# -- 2. a malformed call next to a valid one -----------------------------------------------

NEXT_TURN_400 = {
    "openai_chat": (
        openai.BadRequestError,
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_paris",
    ),
    "openai_responses": (
        openai.BadRequestError,
        "No tool output found for function call call_paris.",
    ),
    "anthropic_messages": (
        anthropic.BadRequestError,
        "`tool_use` ids were found without `tool_result` blocks immediately after: call_paris.",
    ),
}


@pytest.mark.parametrize("dialect", NEXT_TURN_400)
def test_tool_node_answers_only_the_valid_call_and_the_next_turn_gets_a_400(dialect: str) -> None:
    """Pinned: ToolNode ignores invalid_tool_calls; the provider rejects the next request."""
    error, text = NEXT_TURN_400[dialect]
    fake = provider(dialect, TWO_CITIES, MALFORMED_FIRST)
    with pytest.raises(error) as raised:
        unguarded("state_graph", fake)
    assert text in str(raised.value)
    assert executed == ["Oslo"]


@pytest.mark.parametrize("dialect", NEXT_TURN_400)
def test_create_agent_answers_the_malformed_call_with_an_error(dialect: str) -> None:
    """Pinned: create_agent (langchain 1.5) adds an error ToolMessage for an invalid call."""
    state = unguarded("create_agent", provider(dialect, TWO_CITIES, MALFORMED_FIRST))
    patched = next(
        m for m in state["messages"] if isinstance(m, ToolMessage) and m.status == "error"
    )
    assert patched.tool_call_id == "call_paris"
    assert "arguments were malformed or truncated" in patched.text
    assert [d.kind for d in diagnose_agent_run(state["messages"], tools=TOOLS)] == ["invalid_call"]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", NEXT_TURN_400)
def test_a_malformed_call_fails_with_the_diagnosis(dialect: str, loop: str) -> None:
    fake = provider(dialect, TWO_CITIES, MALFORMED_FIRST)
    with pytest.raises(AgentRunUnhealthy) as raised:
        guarded(loop, fake)
    assert (
        "invalid_call at message 1: 'get_weather' (id='call_paris') has arguments "
        "'{\"a\": undefined}' that are not a JSON object; ToolNode runs only the valid calls"
    ) in str(raised.value)
    assert len(fake.requests) == 1
    assert executed == []


# -- 3. a turn of only invalid calls ---------------------------------------------------------


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "anthropic_messages"])
def test_an_invalid_only_turn_ends_the_graph_silently(dialect: str, loop: str) -> None:
    """Pinned: tools_condition sees no tool_calls and routes to END without an error."""
    fake = provider(dialect, ONE_CITY, ["non_object_args"])
    state = unguarded(loop, fake)
    last = state["messages"][-1]
    assert isinstance(last, AIMessage)
    assert last.tool_calls == []
    assert last.invalid_tool_calls[0]["args"] == "[1, 2]"
    assert fake.played == 1  # the answer turn was never requested
    assert executed == []


@pytest.mark.parametrize("loop", LOOPS)
def test_an_invalid_only_turn_fails_with_the_diagnosis(loop: str) -> None:
    with pytest.raises(AgentRunUnhealthy) as raised:
        guarded(loop, provider("openai_chat", ONE_CITY, ["non_object_args"]))
    assert (
        "invalid_only_turn at message 1: the turn holds only invalid tool calls ('get_weather' "
        "args='[1, 2]'); tools_condition sees no tool_calls and routes to END"
    ) in str(raised.value)


# -- 4. a repeated name ----------------------------------------------------------------------

REPEATED = [*get_scenario("repeated_name").quirks]
WEATHER = get_scenario("repeated_name").plan
RETRY = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_retry"}])


@pytest.mark.parametrize("loop", LOOPS)
def test_a_repeated_name_is_not_a_tool_and_the_model_retries(loop: str) -> None:
    """Pinned: ToolNode answers 'not a valid tool'; a model that retries loops."""
    # the model's first call carries the repeated name; its retry is clean
    fake = provider("openai_chat", WEATHER, REPEATED, RETRY, ANSWER)
    state = unguarded(loop, fake)
    errors = [m.text for m in state["messages"] if isinstance(m, ToolMessage)]
    assert errors[0].startswith(
        "Error: get_weatherget_weatherget_weather is not a valid tool, try one of [get_weather]."
    )
    assert executed == ["Paris"]  # only the retry (scripted without the quirk) ran


@pytest.mark.parametrize("loop", LOOPS)
def test_a_repeated_name_fails_with_the_diagnosis(loop: str) -> None:
    with pytest.raises(AgentRunUnhealthy) as raised:
        guarded(loop, provider("openai_chat", WEATHER, REPEATED))
    assert (
        "repeated_name at message 1: tool name 'get_weatherget_weatherget_weather' is "
        "'get_weather' repeated: the provider sent the name on every chunk"
    ) in str(raised.value)


@pytest.mark.parametrize("loop", LOOPS)
def test_a_model_that_keeps_retrying_is_stopped_with_its_pending_ids(loop: str) -> None:
    fake = FakeProvider("openai_chat")
    for turn in range(3):
        retry = Plan(calls=[{"name": "get_weather", "args": {"city": "P"}, "id": f"call_{turn}"}])
        fake.then(retry, REPEATED, seed=turn)
    with pytest.raises(AgentLoopDetected) as raised:
        guarded(loop, fake, max_turns=3, check=False)
    assert raised.value.pending == ["call_2", "call_0", "call_1"]
    assert "pending: ['call_2']; answered only with errors: ['call_0', 'call_1']" in str(
        raised.value
    )
    assert executed == []


# -- 5. a truncated stream --------------------------------------------------------------------

TRUNCATED = get_scenario("truncated_mid_string")


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses", "anthropic_messages"])
def test_a_truncated_stream_runs_the_tool_with_partial_args(dialect: str, loop: str) -> None:
    """Pinned: no error anywhere; parse_partial_json makes {"city": "Pa"} a valid call."""
    fake = FakeProvider(dialect).stream(TRUNCATED, seed=1).then(ANSWER, seed=2)
    unguarded(loop, fake)
    assert executed == ["Pa"]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("dialect", ["openai_chat", "openai_responses", "anthropic_messages"])
def test_a_truncated_stream_fails_with_the_diagnosis(dialect: str, loop: str) -> None:
    fake = FakeProvider(dialect).stream(TRUNCATED, seed=1).then(ANSWER, seed=2)
    with pytest.raises(AgentRunUnhealthy) as raised:
        guarded(loop, fake)
    assert (
        "truncated_turn at message 1: the stream ended without a finish reason (no terminal "
        "event); its calls hold partial arguments that parse_partial_json repaired and ToolNode "
        "would execute: get_weather({'city': 'Pa'})"
    ) in str(raised.value)
    assert executed == []


@pytest.mark.parametrize(
    ("dialect", "shown"),
    [
        ("openai_chat", "finish_reason='length'"),
        ("anthropic_messages", "stop_reason='max_tokens'"),
        ("openai_responses", "status='incomplete'"),
    ],
)
def test_a_length_cut_fails_with_the_diagnosis(dialect: str, shown: str) -> None:
    fake = FakeProvider(dialect).stream(get_scenario("truncated_length"), seed=1)
    with pytest.raises(
        AgentRunUnhealthy, match=f"truncated_turn at message 1: the turn ended with {shown}"
    ):
        guarded("create_agent", fake)


# -- 6. a dropped ToolMessage -----------------------------------------------------------------


def first_result_only(state: MessagesState) -> dict[str, Any]:
    """A buggy tools node: it runs every call but returns only the first result."""
    results = ToolNode(TOOLS).invoke(state)["messages"]
    return {"messages": results[:1]}


def dropping_graph(fake: FakeProvider) -> Any:
    return tool_node_graph(fake.dialect.chat_model(fake.base_url), first_result_only)


@pytest.mark.parametrize("dialect", NEXT_TURN_400)
def test_a_dropped_tool_message_gets_the_providers_400(dialect: str) -> None:
    error, text = NEXT_TURN_400[dialect]
    fake = provider(dialect, TWO_CITIES)
    with patch_httpx2(fake), pytest.raises(error) as raised:
        dropping_graph(fake).invoke(QUESTION)
    assert text.replace("call_paris", "call_oslo") in str(raised.value)


@pytest.mark.parametrize("dialect", NEXT_TURN_400)
def test_a_dropped_tool_message_fails_with_the_diagnosis(dialect: str) -> None:
    fake = provider(dialect, TWO_CITIES)
    with patch_httpx2(fake), pytest.raises(AgentRunUnhealthy) as raised:
        run_with_loop_guard(dropping_graph(fake), QUESTION, tools=TOOLS)
    assert (
        "dropped_result at message 1: get_weather(id='call_oslo') has no ToolMessage: the tool "
        "step answered other calls, not this one"
    ) in str(raised.value)
    assert len(fake.requests) == 1  # stopped before the request the provider would reject


# -- the Responses id trap ----------------------------------------------------------------------


def test_turns_get_their_own_seed_by_default_so_langgraph_keeps_every_turn() -> None:
    fake = FakeProvider("openai_responses").stream(TWO_CITIES).then(ANSWER)
    state = unguarded("state_graph", fake)
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolMessage",
        "AIMessage",
    ]
    assert_tool_messages_paired(state["messages"])


def test_responses_turns_with_one_seed_share_an_id_and_langgraph_drops_the_call_turn() -> None:
    """Pinned: two Responses turns rendered with the same seed carry the same response id.

    ChatOpenAI uses it as the AIMessage id, and LangGraph's add_messages replaces the
    message with that id: the final answer overwrites the turn that made the calls, so
    the ToolMessages answer calls the history no longer holds. FakeProvider therefore
    gives each turn its own seed unless told otherwise, as here.
    """
    fake = FakeProvider("openai_responses").stream(TWO_CITIES, seed=0).then(ANSWER, seed=0)
    state = unguarded("state_graph", fake)
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolMessage",
    ]
    assert state["messages"][1].text == "It is mild."
    kinds = [d.kind for d in diagnose_agent_run(state["messages"])]
    assert kinds == ["orphan_result", "orphan_result", "no_final_answer"]
    with pytest.raises(AssertionError, match="result_without_call"):
        assert_tool_messages_paired(state["messages"])


# -- the fixed flows ----------------------------------------------------------------------------

FIXED = {
    "calls_with_ids": lambda: provider("openai_responses", TWO_CITIES),
    "well_formed_args": lambda: provider("anthropic_messages", TWO_CITIES),
    "object_args": lambda: provider("openai_chat", ONE_CITY),
    "name_sent_once": lambda: provider(
        "openai_chat", WEATHER, [{"kind": "split_args", "pieces": 2}]
    ),
    "complete_stream": lambda: FakeProvider("openai_chat").stream(TRUNCATED.plan).then(ANSWER),
    "one_retry_then_answer": lambda: provider("openai_chat", WEATHER, REPEATED, RETRY, ANSWER),
}


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("fixed", FIXED)
def test_the_fixed_flow_passes_the_guard(fixed: str, loop: str) -> None:
    fake = FIXED[fixed]()
    allow = ["repeated_name"] if fixed == "one_retry_then_answer" else []
    state = guarded(loop, fake, max_turns=3, allow=allow)
    assert state["messages"][-1].text == "It is mild."
    assert executed
    assert fake.rejected == []
    fake.assert_all_played()


def test_the_fixed_tools_node_answers_every_call() -> None:
    fake = provider("openai_chat", TWO_CITIES)
    with patch_httpx2(fake):
        graph = tool_node_graph(fake.dialect.chat_model(fake.base_url))
        state = run_with_loop_guard(graph, QUESTION, tools=TOOLS)
    assert_tool_messages_paired(state["messages"])
    assert sorted(executed) == ["Oslo", "Paris"]
