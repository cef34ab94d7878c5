"""Scripted turns of one conversation never share a numbered id; given ids are kept."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.fake_providers import FakeProvider, FakeToolStreamingModel
from tooltape.harness import Plan, PlannedCall, diagnose_agent_run, reference_merge

ONE_CALL = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}}])
TWO_CALLS = Plan(calls=[{"name": "a"}, {"name": "b", "id": "mine"}])


def test_a_plan_knows_which_ids_it_numbered():
    assert [c.id for c in TWO_CALLS.calls] == ["call_0", "mine"]
    assert [c.id_given for c in TWO_CALLS.calls] == [False, True]
    # Numbering is bookkeeping, not content: equal to the plan that spells the ids out.
    assert Plan(calls=[{"name": "a", "id": "call_0"}, {"name": "b", "id": "mine"}]) == TWO_CALLS
    call = PlannedCall(name="z")
    Plan(calls=[call])
    assert call.id is None  # the caller's call is not changed


def test_fresh_ids_move_past_the_taken_ones_and_keep_given_ids():
    assert ONE_CALL.with_fresh_ids([]) is ONE_CALL
    assert ONE_CALL.with_fresh_ids(["call_7"]) is ONE_CALL  # no collision, no change
    moved = TWO_CALLS.with_fresh_ids(["call_0", "call_1", "mine"])
    assert [c.id for c in moved.calls] == ["call_2", "mine"]
    assert not moved.calls[0].id_given


def _streamed_ids(provider: FakeProvider) -> list[list[str]]:
    return [
        [c["id"] for c in reference_merge(provider.dialect.parse(t.wire.body)).calls()]
        for t in provider.turns
    ]


def test_three_turns_of_one_provider_stream_three_ids():
    provider = FakeProvider("anthropic_messages")
    provider.stream(ONE_CALL).then(ONE_CALL).then(TWO_CALLS)
    (first,), (second,), (third, mine) = _streamed_ids(provider)
    assert mine == "mine"  # given: as is; numbered: Anthropic's own format, one per turn
    assert all(re.fullmatch(r"toolu_01[A-Za-z0-9]{22}", i) for i in (first, second, third))
    assert len({first, second, third}) == 3


def test_given_ids_are_streamed_as_given_even_when_they_repeat():
    given = Plan(calls=[{"name": "get_weather", "id": "call_0"}])
    provider = FakeProvider("openai_chat").stream(given).then(given)
    assert _streamed_ids(provider) == [["call_0"], ["call_0"]]


def _agent_loop(model: FakeToolStreamingModel, turns: int) -> list[object]:
    history: list[object] = [HumanMessage("weather?")]
    for _ in range(turns):
        message = model.invoke(history)
        history.append(message)
        assert isinstance(message, AIMessage)
        history += [ToolMessage("mild", tool_call_id=c["id"]) for c in message.tool_calls]
    return history


def test_a_three_turn_agent_script_is_not_flagged_duplicate_id():
    model = FakeToolStreamingModel(turns=[ONE_CALL, ONE_CALL, ONE_CALL], dialect="openai_chat")
    history = _agent_loop(model, 3)
    ids = [c["id"] for m in history if isinstance(m, AIMessage) for c in m.tool_calls]
    assert len(set(ids)) == 3, ids
    assert "duplicate_id" not in {d.kind for d in diagnose_agent_run(history)}
