from tooltape.harness import Plan, reference_merge, resolve_stream, stream_plan

PLAN = Plan(
    calls=[{"name": "get_weather", "args": {"city": "Paris"}}, {"name": "add", "args": {"a": 1}}]
)


def test_sequential_calls_complete_when_their_json_closes():
    stream = stream_plan(PLAN, seed=1)
    resolution = resolve_stream(stream)
    first, second = resolution.calls
    last_of_first = max(n for n, m in enumerate(stream.messages) if m[0].call == 0)
    assert (first.completed_at, first.reason) == (last_of_first, "complete_json")
    assert second.reason == "complete_json" and second.completed_at == len(stream.messages) - 1
    assert resolution.open_calls == [] and resolution.reopened_calls == []
    assert [c.name for c in resolution.calls] == ["get_weather", "add"]


def test_truncated_stream_leaves_the_cut_call_open():
    resolution = resolve_stream(stream_plan(PLAN, ["truncate_args"]))
    (open_call,) = resolution.open_calls
    assert open_call.name == "add" and open_call.reason == "stream_end"
    assert not open_call.json_complete


def test_incomplete_call_counts_as_done_when_the_next_call_starts():
    plan = Plan(calls=[{"name": "a", "args": {"x": 1}}, {"name": "b", "args": {"y": 2}}])
    resolution = resolve_stream(stream_plan(plan, [{"kind": "truncate_args", "call": 0}], seed=1))
    assert [c.name for c in resolution.open_calls] == ["a"]


def test_interleaved_calls_reopen_after_looking_complete():
    resolution = resolve_stream(stream_plan(PLAN, ["interleave_calls"], seed=5))
    assert resolution.reopened_calls, "an early executor would have run a call too soon"
    assert all(c.json_complete for c in resolution.calls)


def test_resolution_agrees_with_the_reference_on_the_calls():
    stream = stream_plan(PLAN, ["changing_id", "interleave_calls"], seed=3)
    resolution = resolve_stream(stream)
    reference = reference_merge(stream)
    assert [(c.id, c.name, c.args) for c in resolution.calls] == [
        (c.get("id"), c.get("name"), c.get("args")) for c in reference.chunks
    ]
