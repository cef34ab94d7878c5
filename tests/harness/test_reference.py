import functools
import json
import operator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.messages.tool import tool_call_chunk

from tooltape.harness import Plan, TooltapeUsageError, find_hazards, reference_merge, stream_plan
from tooltape.harness._lane_merge import merge_by_lane, validity
from tooltape.harness._reference import pairwise_merge, to_message_chunks
from tooltape.harness.chunk_validation import stored_chunks
from tooltape.harness.strategies import planned_streams, plans

# Without the size-setting value kinds (100,000-character strings, many keys, deep
# nesting): these properties run langchain-core's quadratic n-ary merge, some on 25 seeds
# an example. check_merger's extreme examples hold the oracle to it on those kinds.
_STREAMS = planned_streams(plans(exclude_value_kinds=("long_strings", "many_keys", "deep_nesting")))


def _chunk(name=None, args=None, id=None, index=None):
    return tool_call_chunk(name=name, args=args, id=id, index=index)


# The stream from LangChain's "how to stream tool calls" guide: Multiply and Add in
# parallel at index 0 and 1, arguments in four fragments each.
LANGCHAIN_DOCS_STREAM = [
    [_chunk("Multiply", "", "call_3aQwTP9CYlFxwOvQZPHDu6wL", 0)],
    [_chunk(None, '{"a"', None, 0)],
    [_chunk(None, ": 3, ", None, 0)],
    [_chunk(None, '"b": 1', None, 0)],
    [_chunk(None, "2}", None, 0)],
    [_chunk("Add", "", "call_SQUoSsJz2p9Kx2x73GOgN1ja", 1)],
    [_chunk(None, '{"a"', None, 1)],
    [_chunk(None, ": 11,", None, 1)],
    [_chunk(None, ' "b": ', None, 1)],
    [_chunk(None, "49}", None, 1)],
]


def test_langchain_docs_parallel_stream_merges_to_two_calls():
    result = reference_merge(LANGCHAIN_DOCS_STREAM)
    assert result.calls() == [
        {"name": "Multiply", "args": {"a": 3, "b": 12}, "id": "call_3aQwTP9CYlFxwOvQZPHDu6wL"},
        {"name": "Add", "args": {"a": 11, "b": 49}, "id": "call_SQUoSsJz2p9Kx2x73GOgN1ja"},
    ]
    assert result.invalid_tool_calls == []
    assert result.hazards == ()


def test_accepts_message_chunks_and_planned_streams_alike():
    messages = [AIMessageChunk(content="", tool_call_chunks=d) for d in LANGCHAIN_DOCS_STREAM]
    assert reference_merge(messages) == reference_merge(LANGCHAIN_DOCS_STREAM)
    plan = Plan(calls=[{"name": "f", "args": {"x": 1}}])
    stream = stream_plan(plan)
    assert reference_merge(stream) == reference_merge(stream.deltas())


def test_empty_stream_merges_to_nothing():
    result = reference_merge([])
    assert (result.chunks, result.tool_calls, result.invalid_tool_calls) == ([], [], [])


def test_first_message_chunks_are_not_merged_with_each_other():
    # Same chunks, once packed into the first message and once in the second.
    head, tail = _chunk("f", '{"a": ', "c1", 0), _chunk(None, "1}", None, 0)
    assert reference_merge([[head, tail]]).calls() == [
        {"name": "f", "args": {}, "id": "c1"},
    ]
    assert reference_merge([[head, tail]]).invalid_tool_calls[0]["args"] == "1}"
    assert reference_merge([[], [head, tail]]).calls() == [
        {"name": "f", "args": {"a": 1}, "id": "c1"}
    ]


def test_finalises_with_a_last_chunk():
    merged = pairwise_merge(LANGCHAIN_DOCS_STREAM)
    assert merged is not None and merged.chunk_position == "last"


@given(_STREAMS)
def test_reference_equals_pairwise_addition(stream):
    nary = reference_merge(stream)
    pairwise = pairwise_merge(stream)
    assert pairwise is not None
    assert nary.chunks == pairwise.tool_call_chunks
    assert nary.tool_calls == pairwise.tool_calls
    assert nary.invalid_tool_calls == pairwise.invalid_tool_calls


def test_long_argument_merges_in_one_pass():
    # 128,000 characters in 8-character deltas: pairwise `+` is quadratic here
    # (bench/ measures it); the n-ary reference must handle it whole.
    text = "x" * 128_000
    args = json.dumps({"text": text})
    deltas = [[_chunk("write", "", "c1", 0)]] + [
        [_chunk(None, args[i : i + 8], None, 0)] for i in range(0, len(args), 8)
    ]
    assert len(deltas) > 16_000
    result = reference_merge(deltas)
    assert result.tool_calls[0]["args"] == {"text": text}


def test_nary_form_is_langchain_core_itself():
    messages = to_message_chunks(LANGCHAIN_DOCS_STREAM)
    summed = functools.reduce(operator.add, messages)
    assert reference_merge(messages).tool_calls == summed.tool_calls


@pytest.mark.parametrize(
    ("deltas", "message"),
    [
        ("not a list", "deltas must be a list"),
        ([["oops"]], "delta 0, chunk 0: expected a ToolCallChunk dict"),
        (
            [[], [{"name": "f", "arguments": "{}"}]],
            r"delta 1, chunk 0: unknown key\(s\) \['arguments'\]",
        ),
        ([{"name": "f"}], "delta 0: expected an AIMessageChunk or a list"),
        ([[{"name": 3}]], "delta 0: langchain-core rejects its chunks"),
    ],
)
def test_bad_deltas_get_an_error_naming_the_delta(deltas, message):
    with pytest.raises(TooltapeUsageError, match=message):
        reference_merge(deltas)


def test_string_index_is_coerced_like_langchain_core():
    result = reference_merge([[_chunk("f", "", "c", 0)], [{"args": "{}", "index": "0"}]])
    assert result.calls() == [{"name": "f", "args": {}, "id": "c"}]


# reference_merge builds no message for a streamed message whose chunks validation would
# store unchanged, and validates only the final one; these prove it merges exactly as
# validated messages and one n-ary add_ai_message_chunks call do.

_SEEDS = 25
"""Streams per drawn example: its plan and quirks under as many seeds, so the profile's
budget (60 examples in CI, 100 in dev) checks thousands of streams."""


def _validated_merge(deltas):
    """langchain-core's normal path: validated messages, one n-ary merge, the last chunk."""
    messages = to_message_chunks(deltas)
    if not messages:
        return None
    return add_ai_message_chunks(*messages, AIMessageChunk(content="", chunk_position="last"))


def _assert_same_merge(deltas):
    result = reference_merge(deltas)
    merged = _validated_merge(deltas)
    if merged is None:
        assert (result.chunks, result.tool_calls, result.invalid_tool_calls) == ([], [], [])
        return
    assert result.chunks == merged.tool_call_chunks
    assert result.tool_calls == merged.tool_calls
    assert result.invalid_tool_calls == merged.invalid_tool_calls
    rows = [m.tool_call_chunks for m in to_message_chunks(deltas)]
    assert result.hazards == tuple(find_hazards(merged.tool_call_chunks, stream=rows))


@given(_STREAMS)
def test_unvalidated_input_merges_like_validated_messages(stream):
    for seed in range(stream.seed, stream.seed + _SEEDS):
        _assert_same_merge(stream_plan(stream.plan, stream.quirks, seed=seed).deltas())


def _odd_values(key, value):
    """Values of other types than langchain-core stores, most of them equal to ``value``."""
    if key == "index":
        near = [str(value), float(value)] if isinstance(value, int) else ["0", 0.0]
        return [*near, True, False, "x", [0]]
    text = value if isinstance(value, str) else "f"
    return [text.encode(), 1, [text], {"a": 1}]


@st.composite
def _odd_deltas(draw):
    """Drawn streams where some chunks carry values of other types, or miss keys."""
    deltas = [list(message) for message in draw(_STREAMS).deltas()]
    chunks = [(n, m) for n, message in enumerate(deltas) for m in range(len(message))]
    if not chunks:
        return deltas
    for n, m in draw(st.lists(st.sampled_from(chunks), min_size=1, max_size=3)):
        chunk = dict(deltas[n][m])
        key = draw(st.sampled_from(["index", "name", "args", "id"]))
        if draw(st.booleans()):
            chunk[key] = draw(st.sampled_from(_odd_values(key, chunk.get(key))))
        else:
            chunk.pop(key, None)
        if draw(st.booleans()):
            chunk.pop("type", None)
        deltas[n][m] = chunk
    return deltas


@given(_odd_deltas())
def test_odd_types_are_coerced_or_rejected_like_validated_messages(deltas):
    try:
        expected = _validated_merge(deltas)
    except TooltapeUsageError as error:
        rejection = str(error)
    else:
        rejection = None
    if rejection is not None:
        with pytest.raises(TooltapeUsageError) as raised:
            reference_merge(deltas)
        assert str(raised.value) == rejection
        return
    result = reference_merge(deltas)
    assert expected is not None
    assert result.chunks == expected.tool_call_chunks
    assert result.tool_calls == expected.tool_calls
    assert result.invalid_tool_calls == expected.invalid_tool_calls


def test_malformed_chunk_in_a_long_stream_names_its_delta():
    deltas = [[_chunk("f", "", "c", 0)]] + [[_chunk(None, "x", None, 0)]] * 500
    deltas[300] = [{"args": "x", "index": 0, "id": 7}]
    with pytest.raises(TooltapeUsageError, match="delta 300: langchain-core rejects its chunks"):
        reference_merge(deltas)


_LANE_CHUNKS = st.lists(
    st.lists(
        st.fixed_dictionaries(
            {
                "name": st.sampled_from([None, "", "f", "g"]),
                "args": st.sampled_from([None, "", "{", '"a": 1', "}", "[1]", "{}"]),
                "id": st.sampled_from([None, "", "c1", "c2"]),
                "index": st.sampled_from([None, 0, 1, 2, 7]),
            }
        ),
        max_size=4,
    ),
    max_size=12,
)


@given(st.one_of(_LANE_CHUNKS, _STREAMS.map(lambda s: s.deltas())))
def test_lane_by_lane_merge_equals_one_nary_call(deltas):
    messages = to_message_chunks(deltas)
    if not messages:
        return
    nary = add_ai_message_chunks(messages[0], *messages[1:], AIMessageChunk(content=""))
    rows = [list(m.tool_call_chunks) for m in messages]
    assert merge_by_lane(rows) == nary.tool_call_chunks
    for delta, message in zip(deltas, messages, strict=True):
        plain = stored_chunks(delta)
        assert plain is None or [list(c.items()) for c in plain] == [
            list(c.items()) for c in message.tool_call_chunks
        ]
    whole = AIMessageChunk(content="", tool_call_chunks=merge_by_lane(rows))
    assert whole.tool_calls == nary.tool_calls
    assert whole.invalid_tool_calls == nary.invalid_tool_calls
    assert validity(nary) == [
        bool(AIMessageChunk(content="", tool_call_chunks=[c]).tool_calls)
        for c in nary.tool_call_chunks
    ]


def test_many_parallel_calls_merge_lane_by_lane_like_the_reference():
    deltas = [[_chunk("f", "", f"c{n}", n)] for n in range(200)] + [
        [_chunk(None, f'{{"n": {n}}}', None, n)] for n in range(200)
    ]
    result = reference_merge(deltas)
    merged = add_ai_message_chunks(*to_message_chunks(deltas), AIMessageChunk(content=""))
    assert result.chunks == merged.tool_call_chunks
    assert [c["args"] for c in result.tool_calls] == [{"n": n} for n in range(200)]
    assert result.hazards == ()


@given(_odd_deltas())
def test_stored_chunks_are_what_validation_stores(deltas):
    for delta in deltas:
        stored = stored_chunks(delta)
        if stored is not None:
            message = AIMessageChunk(content="", tool_call_chunks=delta)
            assert [list(c.items()) for c in stored] == [
                list(c.items()) for c in message.tool_call_chunks
            ]


def test_lane_path_coerces_odd_chunks_like_validated_messages():
    # More indexes than one n-ary call takes, some chunks with a string index or no type.
    deltas = [[_chunk("f", "", f"c{n}", n)] for n in range(40)] + [
        [{"name": None, "args": f'{{"n": {n}}}', "id": None, "index": str(n)}] for n in range(40)
    ]
    result = reference_merge(deltas)
    assert result.chunks == _validated_merge(deltas).tool_call_chunks
    assert [c["args"] for c in result.tool_calls] == [{"n": n} for n in range(40)]


@given(st.one_of(_LANE_CHUNKS, _STREAMS.map(lambda s: s.deltas()), _odd_deltas()))
def test_reference_merge_is_one_validated_nary_merge(deltas):
    # reference_merge runs merge_lists lane by lane and the merged message's own
    # validators on a message built without field validation; on any stream it gives
    # what one validated n-ary add_ai_message_chunks call (and the final chunk) gives.
    try:
        messages = to_message_chunks(deltas)
    except TooltapeUsageError:  # a chunk langchain-core rejects: rejected by both
        with pytest.raises(TooltapeUsageError):
            reference_merge(deltas)
        return
    result = reference_merge(deltas)
    if not messages:
        assert result.chunks == []
        return
    last = AIMessageChunk(content="", chunk_position="last")
    nary = add_ai_message_chunks(messages[0], *messages[1:], last)
    assert [list(c.items()) for c in result.chunks] == [
        list(c.items()) for c in nary.tool_call_chunks
    ]
    assert result.tool_calls == nary.tool_calls
    assert result.invalid_tool_calls == nary.invalid_tool_calls
    rows = [list(m.tool_call_chunks) for m in messages]
    assert result.hazards == tuple(
        find_hazards(nary.tool_call_chunks, valid=validity(nary), stream=rows)
    )
