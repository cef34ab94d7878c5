import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.harness import (
    PairingError,
    PendingToolCalls,
    TooltapeUsageError,
    assert_no_pending,
    assert_tool_messages_paired,
    find_pairing_problems,
    pending_tool_calls,
    read_history,
)


def lc_call(name, id, args=None):
    return {"name": name, "args": args or {}, "id": id, "type": "tool_call"}


def chat_call(name, id):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}}


# One conversation in the four shapes: two calls, both answered.
PAIRED = {
    "langchain": [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[lc_call("a", "c1"), lc_call("b", "c2")]),
        ToolMessage("1", tool_call_id="c1", name="a"),
        ToolMessage("2", tool_call_id="c2", name="b"),
    ],
    "openai_chat": [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [chat_call("a", "c1"), chat_call("b", "c2")],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "tool", "tool_call_id": "c2", "content": "2"},
    ],
    "openai_responses": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "a", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "b", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "1"},
        {"type": "function_call_output", "call_id": "c2", "output": "2"},
    ],
    "anthropic": [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "a", "input": {}},
                {"type": "tool_use", "id": "c2", "name": "b", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "1"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "2"},
            ],
        },
    ],
}


def drop_last_result(shape):
    history = [dict(m) if isinstance(m, dict) else m for m in PAIRED[shape]]
    if shape == "anthropic":
        history[-1] = {**history[-1], "content": history[-1]["content"][:1]}
    else:
        history = history[:-1]
    return history


@pytest.mark.parametrize("shape", PAIRED)
def test_shapes_are_detected(shape):
    assert read_history(PAIRED[shape]).shape == shape


@pytest.mark.parametrize("shape", PAIRED)
def test_paired_history_passes(shape):
    assert pending_tool_calls(PAIRED[shape]) == []
    assert_no_pending(PAIRED[shape])
    assert_tool_messages_paired(PAIRED[shape])


@pytest.mark.parametrize("shape", PAIRED)
def test_dropped_result_is_pending_and_unpaired(shape):
    history = drop_last_result(shape)
    assert pending_tool_calls(history) == [{"name": "b", "args": {}, "id": "c2"}]
    with pytest.raises(PendingToolCalls, match=r"b\(id='c2'\)"):
        assert_no_pending(history)
    with pytest.raises(PairingError, match=r"call_without_result .*c2"):
        assert_tool_messages_paired(history)
    assert_tool_messages_paired(history, allow_pending=True)


def test_request_bodies_are_accepted():
    assert pending_tool_calls({"messages": drop_last_result("openai_chat")})[0]["id"] == "c2"
    assert pending_tool_calls({"input": drop_last_result("openai_responses")})[0]["id"] == "c2"


def kinds(history, **kwargs):
    return [p.kind for p in find_pairing_problems(history, **kwargs)]


def test_result_without_call():
    history = [*PAIRED["openai_chat"], {"role": "tool", "tool_call_id": "ghost", "content": "x"}]
    assert kinds(history) == ["result_without_call"]


def test_two_results_for_one_call():
    history = [*PAIRED["langchain"], ToolMessage("again", tool_call_id="c1", name="a")]
    assert "duplicate_result" in kinds(history)


def test_result_before_its_call():
    history = [
        {"role": "tool", "tool_call_id": "c1", "content": "early"},
        {"role": "assistant", "tool_calls": [chat_call("a", "c1")]},
    ]
    assert kinds(history) == ["result_before_call", "call_without_result"]


@pytest.mark.parametrize("bad_id", ["", None])
def test_empty_ids(bad_id):
    history = [AIMessage("", tool_calls=[lc_call("a", "ok")]), ToolMessage("1", tool_call_id="ok")]
    history[0].tool_calls.append(lc_call("b", bad_id))
    assert "empty_id" in kinds(history)


def test_duplicate_ids_in_one_turn():
    history = [
        {"role": "assistant", "tool_calls": [chat_call("a", "c1"), chat_call("b", "c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "tool", "tool_call_id": "c1", "content": "2"},
    ]
    assert kinds(history)[:1] == ["duplicate_call_id"]


def test_result_name_disagrees_with_call():
    history = [
        AIMessage("", tool_calls=[lc_call("a", "c1")]),
        ToolMessage("1", tool_call_id="c1", name="z"),
    ]
    assert kinds(history) == ["name_mismatch"]


def test_invalid_calls_left_unanswered():
    message = AIMessage(
        "", invalid_tool_calls=[{"name": "a", "args": "{oops", "id": "c9", "error": None}]
    )
    assert kinds([message]) == ["invalid_call_unanswered"]
    assert pending_tool_calls([message]) == []  # the agent loop would not run it


def test_result_separated_from_its_turn():
    history = [
        {"role": "assistant", "tool_calls": [chat_call("a", "c1")]},
        {"role": "user", "content": "wait"},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
    ]
    assert kinds(history) == ["result_not_adjacent"]


def test_anthropic_results_must_come_first():
    history = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "a", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "here"},
                {"type": "tool_result", "tool_use_id": "c1"},
            ],
        },
    ]
    assert kinds(history) == ["result_not_first"]


def test_unsupported_histories():
    with pytest.raises(TooltapeUsageError, match="'messages' or 'input'"):
        pending_tool_calls({"prompt": "x"})
    with pytest.raises(TooltapeUsageError, match="neither a LangChain message nor a dict"):
        pending_tool_calls(["hello"])


# --- agreement with the agent loops themselves --------------------------------------------


def _langchain_pending_ids(messages):
    from langchain.agents.factory import _make_model_to_tools_edge

    edge = _make_model_to_tools_edge(
        model_destination="model", structured_output_tools={}, end_destination="__end__"
    )
    routed = edge({"messages": messages})
    if not isinstance(routed, list):
        return []
    return [send.arg[0]["id"] for send in routed]


@st.composite
def langchain_histories(draw):
    """Turns of calls, each answered fully, partly, or not at all, with unique ids."""
    messages, counter = [HumanMessage("go")], 0
    for _ in range(draw(st.integers(1, 3))):
        ids = [f"c{counter + n}" for n in range(draw(st.integers(0, 3)))]
        counter += len(ids)
        messages.append(AIMessage("", tool_calls=[lc_call("t", i) for i in ids]))
        answered = draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
        messages += [ToolMessage("r", tool_call_id=i) for i in answered]
        if draw(st.booleans()):
            messages.append(HumanMessage("more"))
    return messages


@given(langchain_histories())
def test_pending_rule_agrees_with_langchain_create_agent(history):
    assert [c["id"] for c in pending_tool_calls(history)] == _langchain_pending_ids(history)


@given(langchain_histories())
def test_pending_rule_agrees_with_langgraph_when_ids_are_unique(history):
    from langgraph.prebuilt.chat_agent_executor import _validate_chat_history

    last_ai = max(n for n, m in enumerate(history) if isinstance(m, AIMessage))
    earlier_paired = not find_pairing_problems(history[:last_ai], allow_pending=False)
    if not earlier_paired:
        return
    if pending_tool_calls(history):
        with pytest.raises(ValueError, match="do not have a corresponding ToolMessage"):
            _validate_chat_history(history)
    else:
        _validate_chat_history(history)
