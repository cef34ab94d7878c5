import pytest
from langchain_core.messages import AIMessage

from tooltape.harness import (
    HazardFound,
    MergeMismatch,
    Plan,
    TooltapeAssertionError,
    TooltapeUsageError,
    assert_merge,
    draw_lanes,
    reference_merge,
    stream_plan,
)

PLAN = Plan(
    calls=[{"name": "get_weather", "args": {"city": "Paris"}}, {"name": "add", "args": {"a": 1}}]
)


def test_passes_for_lossless_stream_and_returns_the_result():
    result = assert_merge(stream_plan(PLAN, ["interleave_calls"], seed=1), PLAN)
    assert result.calls() == PLAN.expected_calls()


def test_accepts_dict_lists_messages_and_reference_results():
    stream = stream_plan(PLAN)
    assert_merge(stream.deltas(), PLAN.expected_calls())
    assert_merge(stream, reference_merge(stream))
    message = AIMessage(
        content="", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_0"}]
    )
    assert_merge(message, [PLAN.expected_calls()[0]])


def test_mismatch_message_has_diff_lanes_and_quirks():
    stream = stream_plan(PLAN, ["repeat_name"], seed=1)
    with pytest.raises(MergeMismatch) as error:
        assert_merge(stream, PLAN, allow_hazards=True)
    text = str(error.value)
    assert text.startswith("tooltape: merged tool calls differ")
    assert '-{"args": {"city": "Paris"}, "id": "call_0", "name": "get_weather"}' in text
    assert "get_weatherget_weather" in text
    assert "plan quirks: repeat_name (seed 1)" in text
    assert "msg │ index 0" in text and "index 1" in text
    assert isinstance(error.value, AssertionError) and isinstance(
        error.value, TooltapeAssertionError
    )


def test_hazards_fail_unless_allowed():
    stream = stream_plan(PLAN, ["missing_id"])
    expected = [{**c, "id": None} for c in PLAN.expected_calls()]
    with pytest.raises(HazardFound, match="missing_id at call 0"):
        assert_merge(stream, expected)
    assert_merge(stream, expected, allow_hazards=["missing_id"])
    assert_merge(stream, expected, allow_hazards=True)
    with pytest.raises(HazardFound):
        assert_merge(stream, expected, allow_hazards=["repeated_name"])


def test_ignore_ids():
    result = reference_merge(stream_plan(PLAN, ["changing_id"]))
    names_and_args = [{"name": c["name"], "args": c["args"]} for c in result.calls()]
    assert_merge(result, names_and_args, ignore_ids=True, allow_hazards=True)
    with pytest.raises(MergeMismatch):
        assert_merge(result, names_and_args, allow_hazards=True)


def test_expected_must_be_call_like():
    with pytest.raises(TooltapeUsageError, match="call 0: expected a mapping"):
        assert_merge(stream_plan(PLAN), ["get_weather"])


def test_lanes_mark_and_elide():
    long_plan = Plan(calls=[{"name": "write", "args": {"text": "x" * 200}}])
    deltas = stream_plan(long_plan, [{"kind": "split_args", "pieces": 100}]).deltas()
    drawing = draw_lanes(deltas, mark=30, note="here", max_rows=10)
    assert ">" in drawing and "← here" in drawing
    assert "message(s) not shown" in drawing
    assert draw_lanes([]).startswith("msg │ no index")


def _message(*ids: str | None) -> AIMessage:
    calls = PLAN.expected_calls()
    return AIMessage(
        content="",
        tool_calls=[{**c, "id": i} for c, i in zip(calls, ids, strict=True)],  # type: ignore[typeddict-item]
    )


def test_numbered_plan_ids_match_distinct_provider_ids():
    assert_merge(_message("call_Xq9" + "a" * 21, "toolu_01" + "b" * 22), PLAN)


@pytest.mark.parametrize("ids", [("same", "same"), ("x", None), ("", "y")])
def test_numbered_plan_ids_refuse_repeated_or_missing_ids(ids):
    with pytest.raises(MergeMismatch, match="call_"):
        assert_merge(_message(*ids), PLAN)


def test_given_plan_ids_are_compared_exactly():
    plan = Plan(calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "mine"}])
    message = AIMessage(
        content="", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "other"}]
    )
    with pytest.raises(MergeMismatch, match="mine"):
        assert_merge(message, plan)
    with pytest.raises(MergeMismatch, match="call_0"):  # a list of dicts is exact too
        assert_merge(_message("a", "b"), PLAN.expected_calls())


def test_a_numbered_id_cannot_take_an_id_the_plan_gave_another_call():
    plan = Plan(
        calls=[
            {"name": "get_weather", "args": {"city": "Paris"}},
            {"name": "add", "args": {"a": 1}, "id": "b"},
        ]
    )
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "b"},
            {"name": "add", "args": {"a": 1}, "id": "c"},
        ],
    )
    with pytest.raises(MergeMismatch):
        assert_merge(message, plan)


# --- a hand-written merger's own output as the subject ----------------------------------


def test_accepts_the_call_list_a_hand_written_merger_returns():
    from _mergers import correct, keyed_by_index_only

    stream = stream_plan(PLAN, ["interleave_calls"], seed=1)
    result = assert_merge(correct(stream.deltas()), PLAN)
    assert result.calls() == correct(stream.deltas())
    # the plan's numbered ids stand for any distinct ids, as for any subject
    renamed = [{**c, "id": f"toolu_{n}"} for n, c in enumerate(correct(stream.deltas()))]
    assert_merge(renamed, PLAN)
    with pytest.raises(MergeMismatch) as error:  # a buggy merger fails with the diff
        assert_merge(keyed_by_index_only(stream_plan(PLAN, ["shared_index"]).deltas()), PLAN)
    assert str(error.value).startswith("tooltape: merged tool calls differ")
    assert '-{"args": {"a": 1}, "id": "call_1", "name": "add"}' in str(error.value)


def test_a_call_list_is_compared_like_a_merged_message():
    calls = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_0"}]
    twice = [*calls, {"name": "add", "args": {"a": 1}, "id": "call_0"}]
    with pytest.raises(HazardFound, match="duplicate_id at call 1"):
        assert_merge(twice, twice)
    with pytest.raises(MergeMismatch, match="duplicate_id"):  # one id binds one numbered call
        assert_merge(twice, PLAN)
    with pytest.raises(MergeMismatch, match=r"invalid_tool_calls: 'add' args='\{\"a\": 1'"):
        assert_merge([*calls, {"name": "add", "args": '{"a": 1', "id": "call_1"}], PLAN)
    with pytest.raises(TooltapeUsageError, match=r"call 0 of the subject: expected a dict"):
        assert_merge([{"args": {}}], PLAN)
