import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.harness import (
    MergeMismatch,
    Plan,
    Scenario,
    check_merger,
    find_hazards,
    is_repeated_name,
    merge_result_from_message,
    reference_merge,
    stream_plan,
)
from tooltape.harness._hazards import _Lanes, _validity
from tooltape.harness._index_routing import guessed_joins, shares_an_index
from tooltape.harness.strategies import planned_streams, plans

# Hazard checks run langchain-core's quadratic n-ary merge: without the size-setting kinds.
_STREAMS = planned_streams(plans(exclude_value_kinds=("long_strings", "many_keys", "deep_nesting")))

PLAN = Plan(
    calls=[{"name": "get_weather", "args": {"city": "Paris"}}, {"name": "add", "args": {"a": 1}}]
)


@pytest.mark.parametrize(
    ("quirks", "kind"),
    [
        (["truncate_args"], "args_repaired"),
        ([{"kind": "malformed_args", "variant": "concatenated"}], "args_repaired"),
        (["repeat_name"], "repeated_name"),
        (["changing_id"], "id_changed"),
        (["no_index"], "orphan_fragment"),
        (["missing_id"], "missing_id"),
        (["duplicate_ids"], "duplicate_id"),
        (["non_object_args"], "invalid_call"),
    ],
)
def test_each_hazard_kind_is_found(quirks, kind):
    result = reference_merge(stream_plan(PLAN, quirks, seed=1))
    assert kind in result.hazard_kinds()
    hazard = next(h for h in result.hazards if h.kind == kind)
    assert hazard.detail and hazard.position is not None


def test_clean_stream_has_no_hazards():
    assert (
        reference_merge(
            stream_plan(PLAN, ["interleave_calls", "id_on_every_chunk"], seed=2)
        ).hazards
        == ()
    )


def test_truncation_hazard_quotes_the_tail():
    result = reference_merge(stream_plan(PLAN, [{"kind": "truncate_args", "call": 0}]))
    (hazard,) = [h for h in result.hazards if h.kind == "args_repaired"]
    assert hazard.call_id == "call_0" and '\'{"city": "Pa\'' in hazard.detail


@pytest.mark.parametrize(
    ("name", "known", "base"),
    [
        ("get_weatherget_weather", (), "get_weather"),
        ("addaddadd", (), "add"),
        ("aa", (), None),  # too short to call a repetition
        ("get_weather", (), None),
        ("abcabc", ("abcabc",), None),  # a real tool with that name
        ("abcabc", ("xyz",), None),  # its base is no known tool
        ("abcabc", ("abc",), "abc"),
    ],
)
def test_repeated_name_detection(name, known, base):
    assert is_repeated_name(name, known) == base


def test_known_names_suppress_false_repetitions():
    chunk = tool_call_chunk(name="byebye", args="{}", id="c", index=0)
    assert [h.kind for h in find_hazards([chunk])] == ["repeated_name"]
    assert find_hazards([chunk], known_names=["byebye"]) == []


def test_hazards_of_a_finished_message():
    message = AIMessage(
        content="",
        tool_calls=[{"name": "f", "args": {}, "id": None}, {"name": "g", "args": {}, "id": "x"}],
        invalid_tool_calls=[{"name": "h", "args": "{oops", "id": "y", "error": None}],
    )
    result = merge_result_from_message(message)
    assert [h.kind for h in result.hazards] == ["missing_id", "invalid_call"]


def _quadratic_sibling_id(chunks, position):
    """The scan find_hazards used to run for every nameless chunk, kept as the slow oracle."""
    chunk = chunks[position]
    sibling = next(
        (
            other
            for other in chunks[:position]
            if other.get("index") is not None
            and other.get("index") == chunk.get("index")
            and other.get("id")
            and other.get("id") != chunk.get("id")
        ),
        None,
    )
    return None if sibling is None else sibling.get("id")


_drawn_chunks = st.lists(
    st.builds(
        tool_call_chunk,
        name=st.sampled_from([None, "", "f"]),
        args=st.sampled_from([None, "", "{}", '{"a": 1}', '{"a"']),
        id=st.sampled_from([None, "", "a", "b", "c"]),
        index=st.sampled_from([None, 0, 1, 2, "lc_0"]),
    ),
    max_size=12,
)


@given(_drawn_chunks)
def test_running_lanes_find_the_sibling_the_quadratic_scan_found(chunks):
    lanes = _Lanes()
    for position, chunk in enumerate(chunks):
        expected = _quadratic_sibling_id(chunks, position)
        assert lanes.sibling_id(chunk.get("index"), chunk.get("id")) == expected
        lanes.add(chunk)


@given(_STREAMS)
def test_hazards_of_drawn_streams_name_the_sibling_the_quadratic_scan_found(stream):
    chunks = reference_merge(stream).chunks
    for hazard in find_hazards(chunks):
        if hazard.kind == "id_changed" and chunks[hazard.position].get("name"):
            assert "before call" in hazard.detail  # a repeated name under a new id
        elif hazard.kind == "id_changed":
            sibling = _quadratic_sibling_id(chunks, hazard.position)
            assert f"changed id from {sibling!r}" in hazard.detail
        elif hazard.kind == "orphan_fragment":
            assert not (_quadratic_sibling_id(chunks, hazard.position) and hazard.call_id)


def test_hazards_on_thousands_of_calls_finish():
    # 8,000 nameless fragments on distinct indices: the old scan was quadratic here.
    chunks = [tool_call_chunk(name="f", args="{}", id="c0", index=0)] + [
        tool_call_chunk(name=None, args="{}", id=f"c{n}", index=n) for n in range(1, 8_000)
    ]
    hazards = find_hazards(chunks)
    assert sum(h.kind == "orphan_fragment" for h in hazards) == 7_999


@given(_drawn_chunks)
def test_validity_in_one_message_is_each_chunks_own(chunks):
    chunks = [c for c in chunks if not isinstance(c["index"], str)]  # langchain-core rejects them
    alone = [bool(AIMessageChunk(content="", tool_call_chunks=[c]).tool_calls) for c in chunks]
    assert _validity(chunks) == alone


# --- shared_index: two calls on one index -----------------------------------------------

_SWAP_QUIRKS = ["whole_call", "late_name", "shared_index", "pack_fragments"]


def test_names_swapped_on_a_shared_index_are_a_hazard():
    # Each message holds [args + id, late name without id], all on index 0. Message 1's
    # chunk with id call_1 joins the first id-less chunk on index 0 (call_0's name), and its
    # id-less name chunk joins the first chunk there: call_0 is named "add", call_1
    # "get_weather".
    result = reference_merge(stream_plan(PLAN, _SWAP_QUIRKS))
    assert [c["name"] for c in result.calls()] == ["add", "get_weather"]
    assert [c["name"] for c in PLAN.expected_calls()] == ["get_weather", "add"]
    assert [(h.kind, h.position, h.call_id) for h in result.hazards] == [
        ("shared_index", 0, "call_0"),
        ("shared_index", 1, "call_1"),
    ]
    assert "index 0 held 2 calls when message 1 sent a chunk" in result.hazards[0].detail
    rows = stream_plan(PLAN, _SWAP_QUIRKS).deltas()
    assert find_hazards(result.chunks, stream=rows) == list(result.hazards)
    assert find_hazards(result.chunks) == []  # the merged chunks alone cannot show it


@pytest.mark.parametrize(
    ("quirks", "found"),
    [
        # ids on every chunk keep calls on one index apart: no guess (SGLang's shape)
        (["shared_index", "id_on_every_chunk"], False),
        (["shared_index", "whole_call"], False),
        (["shared_index"], True),  # id-less continuations of call 1 join call 0
        (["interleave_calls"], False),
    ],
)
def test_shared_index_only_where_langchain_core_guessed(quirks, found):
    result = reference_merge(stream_plan(PLAN, quirks, seed=1))
    assert ("shared_index" in result.hazard_kinds()) is found


def test_guessed_joins_stay_linear_on_one_index():
    # 8,000 calls on index 0, every continuation without an id: each joins the first call.
    rows = [[tool_call_chunk(name="f", args="", id=f"c{n}", index=0)] for n in range(8_000)]
    rows += [[tool_call_chunk(name=None, args="{}", id=None, index=0)]] * 8_000
    guesses = guessed_joins(rows)
    assert list(guesses) == [0] and guesses[0].calls == 8_000


def test_a_call_whose_id_changed_under_a_repeated_name_is_split():
    quirks = ["whole_args", "changing_id", "repeat_name"]
    result = reference_merge(stream_plan(PLAN, quirks, seed=1))
    assert len(result.calls()) == 4  # each call split: {} under the first id, args under the new
    changed = [h for h in result.hazards if h.kind == "id_changed"]
    assert [h.call_id for h in changed] == ["call_0_b", "call_1_b"]
    assert "before call 'call_0' had arguments" in changed[0].detail


def test_check_merger_labels_the_swap_as_langchain_cores_hazard():
    # A merger that recovers the plan differs from langchain-core only where it has the
    # hazard: the finding is ambiguous, and the plan policy accepts the merger.
    swap = Scenario(name="swap", description="d", plan=PLAN, quirks=_SWAP_QUIRKS)

    def planned(deltas):
        return PLAN.expected_calls()

    options = {
        "scenarios": [swap],
        "plans_strategy": st.just(PLAN),
        "quirks_strategy": st.just(list(_SWAP_QUIRKS)),
        "max_examples": 5,
    }
    with pytest.raises(MergeMismatch) as error:
        check_merger(planned, **options)
    first_line = str(error.value).splitlines()[0]
    assert "where langchain-core joins id-less chunks to the first of two calls" in first_line
    assert "(shared_index)" in first_line
    check_merger(planned, on_reference_hazard="plan", **options)


def _wire_view(calls, stream):
    """Calls in a canonical order, with only the planned ids the stream carries.

    ``late_id`` with ``changing_id`` can send only the changed id: no merge can
    return the planned one (a split call still shows in the count and the args).
    ``interleave_calls`` with id-less headers on a shared index can make a later
    call arrive whole first: the calls are intact, in wire order. Neither is a
    merge hazard.
    """
    on_wire = {chunk.get("id") for message in stream.deltas() for chunk in message}
    kept = on_wire & {call["id"] for call in stream.plan.expected_calls()}
    shown = [{**call, "id": call["id"] if call["id"] in kept else None} for call in calls]
    return sorted(shown, key=lambda call: json.dumps(call, sort_keys=True, default=str))


@given(_STREAMS)
def test_a_merge_that_misses_the_plan_always_has_a_hazard(stream):
    kinds = {quirk.kind for quirk in stream.quirks}
    # Known gap: a call whose fragments carry a name (repeated or split) and a new id can
    # merge into one valid call per fragment (with no index, or once the first part has
    # arguments, as under whole_call), which nothing in the chunks tells from separate calls.
    assume(not ("changing_id" in kinds and kinds & {"repeat_name", "split_name"}))
    # Not langchain-core's: malformed_args' extra brace can close cumulative_args' repeated
    # prefix ('{"a":' + '{"a": 1}}'), so the wire carries other, valid arguments.
    assume(not {"cumulative_args", "malformed_args"} <= kinds)
    # Not langchain-core's either: channel_in_name's wire names another tool.
    assume("channel_in_name" not in kinds)
    result = reference_merge(stream)
    if _wire_view(result.calls(), stream) != _wire_view(stream.plan.expected_calls(), stream):
        assert result.hazards


@given(_STREAMS)
def test_guesses_need_an_index_two_merged_calls_hold(stream):
    rows = stream.deltas()
    chunks = reference_merge(stream).chunks
    if not shares_an_index(chunks):
        assert guessed_joins(rows) == {}


def _glued_by_index_alone() -> tuple[list, list]:
    """Two calls on index 0 with different ids, merged as langchain-core 1.2 merged them.

    Before langchain-core 1.3, ``merge_lists`` joined chunks by index alone; this is
    its output for the two messages below (the names, args and ids concatenated).
    """
    stream = [
        [tool_call_chunk(name="get_weather", args='{"city": "Paris"}', id="call_a", index=0)],
        [tool_call_chunk(name="get_weather", args='{"city": "Oslo"}', id="call_b", index=0)],
    ]
    merged = [
        tool_call_chunk(
            name="get_weatherget_weather",
            args='{"city": "Paris"}{"city": "Oslo"}',
            id="call_acall_b",
            index=0,
        )
    ]
    return merged, stream


def test_calls_with_different_ids_merged_into_one_are_shared_index_not_repeated_name():
    merged, stream = _glued_by_index_alone()

    hazards = find_hazards(merged, stream=stream)

    kinds = [h.kind for h in hazards]
    assert "repeated_name" not in kinds
    assert kinds.count("shared_index") == 1
    glued = next(h for h in hazards if h.kind == "shared_index")
    assert "'call_a', 'call_b'" in glued.detail
    assert "merged them into one call 'get_weatherget_weather'" in glued.detail


def test_without_the_stream_a_glued_name_still_reads_as_repeated():
    merged, _stream = _glued_by_index_alone()

    assert "repeated_name" in {h.kind for h in find_hazards(merged)}


def test_the_current_merge_keeps_calls_with_different_ids_apart_and_reports_nothing_glued():
    _merged, stream = _glued_by_index_alone()

    result = reference_merge(stream)

    assert [c["id"] for c in result.tool_calls] == ["call_a", "call_b"]
    assert not result.hazard_kinds() & {"shared_index", "repeated_name"}
