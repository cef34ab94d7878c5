import itertools
import json

import pytest

from tooltape.harness import (
    Plan,
    TooltapeUsageError,
    parse_quirk,
    quirk_kinds,
    reference_merge,
    stream_plan,
)
from tooltape.harness._quirks import _REGISTRY, Stage

PLAN = Plan(
    calls=[
        {"name": "get_weather", "args": {"city": "Paris", "days": 12}},
        {"name": "add", "args": {"a": 1, "b": 2}},
    ]
)
UNICODE = Plan(calls=[{"name": "say", "args": {"text": "café 北京 😀"}}])


def wire(stream):
    """(index, id, name, args) per fragment, one list per message."""
    return [[(f.index, f.id, f.name, f.args) for f in message] for message in stream.messages]


def fragments_of(stream, call):
    return [f for f in stream.fragments if f.call == call]


def test_default_shape_is_openai_like():
    stream = stream_plan(PLAN, seed=1)
    first = fragments_of(stream, 0)
    assert (first[0].index, first[0].id, first[0].name, first[0].args) == (
        0,
        "call_0",
        "get_weather",
        "",
    )
    assert all(f.id is None and f.name is None for f in first[1:])
    assert "".join(f.args for f in first) == json.dumps(PLAN.calls[0].args, ensure_ascii=False)
    assert all(len(m) == 1 for m in stream.messages)
    assert reference_merge(stream).calls() == PLAN.expected_calls()
    assert stream.lossless and stream.finish == "tool_calls"


def test_same_seed_same_stream_and_other_seed_other_cuts():
    assert wire(stream_plan(PLAN, seed=7)) == wire(stream_plan(PLAN, seed=7))
    assert wire(stream_plan(PLAN, seed=7)) != wire(stream_plan(PLAN, seed=8))


def test_every_registered_tool_chunk_quirk_is_documented():
    for kind, cls in _REGISTRY.items():
        if cls.stage >= Stage.EVENTS:
            continue
        assert cls.__doc__ and cls.cites, kind
        assert parse_quirk(kind).kind == kind


@pytest.mark.parametrize(
    ("quirks", "lossless"),
    [
        (["split_args"], True),
        ([{"kind": "split_args", "pieces": 3}], True),
        (["whole_args"], True),
        (["whole_call"], True),
        (["split_name"], True),
        (["late_name"], True),
        (["id_on_every_chunk"], True),
        (["late_id"], True),
        (["interleave_calls"], True),
        ([{"kind": "index_offset", "by": 2}], True),
        (["empty_string_continuations"], True),
        (["ascii_escapes", "split_inside_escapes"], True),
        (
            ["interleave_calls", "id_on_every_chunk", "split_name", "empty_string_continuations"],
            True,
        ),
    ],
)
def test_lossless_quirks_merge_back_to_the_plan(quirks, lossless):
    for plan in (PLAN, UNICODE):
        stream = stream_plan(plan, quirks, seed=3)
        assert stream.lossless is lossless
        assert reference_merge(stream).calls() == plan.expected_calls()


def test_split_args_pieces():
    stream = stream_plan(PLAN, [{"kind": "split_args", "pieces": 3}], seed=0)
    assert len(fragments_of(stream, 0)) == 1 + 3


def test_whole_call_puts_everything_in_one_chunk():
    stream = stream_plan(PLAN, ["whole_call"])
    assert wire(stream) == [
        [(0, "call_0", "get_weather", '{"city": "Paris", "days": 12}')],
        [(1, "call_1", "add", '{"a": 1, "b": 2}')],
    ]


def test_split_name_spreads_the_name():
    stream = stream_plan(PLAN, [{"kind": "split_name", "parts": 3}], seed=2)
    names = [f.name for f in fragments_of(stream, 0) if f.name is not None]
    assert len(names) == 3 and "".join(names) == "get_weather"


def test_repeat_name_doubles_in_langchain():
    stream = stream_plan(PLAN, ["repeat_name", {"kind": "split_args", "pieces": 1}])
    assert all(f.name == "get_weather" for f in fragments_of(stream, 0))
    assert reference_merge(stream).calls()[0]["name"] == "get_weatherget_weather"


def test_id_placements():
    every = stream_plan(PLAN, ["id_on_every_chunk"])
    assert {f.id for f in fragments_of(every, 0)} == {"call_0"}
    late = fragments_of(stream_plan(PLAN, ["late_id"]), 0)
    assert late[0].id is None and late[-1].id == "call_0"
    assert {f.id for f in late[1:-1]} <= {None}
    missing = stream_plan(PLAN, ["missing_id"])
    assert {f.id for f in missing.fragments} == {None}
    assert [c["id"] for c in reference_merge(missing).tool_calls] == [None, None]


def test_changing_id_splits_the_call():
    stream = stream_plan(PLAN, ["changing_id"], seed=4)
    ids = [f.id for f in fragments_of(stream, 0) if f.id]
    assert ids == ["call_0", "call_0_b"]
    result = reference_merge(stream)
    assert [c["id"] for c in result.chunks[:2]] == ["call_0", "call_0_b"]
    assert "id_changed" in result.hazard_kinds()


def test_index_quirks():
    assert {f.index for f in stream_plan(PLAN, ["no_index"]).fragments} == {None}
    assert {f.index for f in stream_plan(PLAN, [{"kind": "index_offset", "by": 2}]).fragments} == {
        2,
        3,
    }
    shared = stream_plan(PLAN, ["shared_index", "missing_id"])
    assert {f.index for f in shared.fragments} == {0}
    merged = reference_merge(shared)
    assert merged.calls()[0]["name"] == "get_weatheradd"  # the second call glued onto the first


def test_shared_index_with_ids_on_every_chunk_stays_correct():
    stream = stream_plan(PLAN, ["shared_index", "id_on_every_chunk"])
    assert reference_merge(stream).calls() == PLAN.expected_calls()


def test_interleave_keeps_each_calls_order_and_actually_interleaves():
    stream = stream_plan(PLAN, ["interleave_calls"], seed=5)
    order = [f.call for f in stream.fragments]
    assert order != sorted(order)
    for call in (0, 1):
        pieces = [f.args for f in fragments_of(stream, call)]
        assert "".join(pieces) == json.dumps(PLAN.calls[call].args)
        assert fragments_of(stream, call)[0].name == PLAN.calls[call].name


def test_cumulative_args_repeat_the_prefix():
    stream = stream_plan(PLAN, ["cumulative_args", {"kind": "split_args", "pieces": 3}], seed=1)
    pieces = [f.args for f in fragments_of(stream, 0)][1:]
    assert all(b.startswith(a) for a, b in itertools.pairwise(pieces))
    assert pieces[-1] == json.dumps(PLAN.calls[0].args)
    assert stream.lossless is False


@pytest.mark.parametrize(("at", "tail"), [("string", '"Pa'), ("literal", ": 1")])
def test_truncate_args_cuts_inside_a_value_and_ends_the_stream(at, tail):
    plan = Plan(
        calls=[
            {"name": "add", "args": {"a": 1}},
            {"name": "get_weather", "args": {"city": "Paris", "n": 12}},
        ]
    )
    stream = stream_plan(plan, [{"kind": "truncate_args", "at": at}])
    text = "".join(f.args for f in fragments_of(stream, 1))
    assert text.endswith(tail)
    assert stream.finish == "eof" and stream.truncated_call == 1
    result = reference_merge(stream)
    assert "args_repaired" in result.hazard_kinds()


def test_truncation_drops_later_calls():
    stream = stream_plan(PLAN, [{"kind": "truncate_args", "call": 0}])
    assert stream.dropped_calls == (1,)
    assert {f.call for f in stream.fragments} == {0}


def test_truncation_with_interleaving_ends_at_the_cut_call():
    stream = stream_plan(PLAN, [{"kind": "truncate_args", "call": 1}, "interleave_calls"], seed=3)
    assert stream.fragments[-1].call == 1


@pytest.mark.parametrize(
    ("quirk", "expected_invalid"),
    [
        ({"kind": "non_object_args"}, "[1, 2]"),
        ({"kind": "malformed_args", "variant": "undefined"}, '{"a": undefined}'),
        ({"kind": "malformed_args", "variant": "extra_brace"}, '{"a": 1}}'),
        ({"kind": "malformed_args", "variant": "whitespace"}, "  "),
    ],
)
def test_corrupt_args_become_invalid_calls(quirk, expected_invalid):
    result = reference_merge(stream_plan(PLAN, [quirk, "whole_call"]))
    assert [c["args"] for c in result.invalid_tool_calls] == [expected_invalid]
    assert result.calls() == [PLAN.expected_calls()[1]]


def test_concatenated_objects_keep_the_first_silently():
    result = reference_merge(
        stream_plan(PLAN, [{"kind": "malformed_args", "variant": "concatenated"}])
    )
    assert result.calls()[0]["args"] == {"q": "A"}
    assert "args_repaired" in result.hazard_kinds()


def test_empty_args_sends_no_text_for_argless_calls():
    plan = Plan(calls=[{"name": "now"}])
    stream = stream_plan(plan, ["empty_args"])
    assert [f.args for f in stream.fragments] == [""]
    assert reference_merge(stream).calls() == plan.expected_calls()


def test_escapes_are_cut_inside():
    stream = stream_plan(UNICODE, ["ascii_escapes", "split_inside_escapes"], seed=9)
    pieces = [f.args for f in stream.fragments]
    assert "\\u" in "".join(pieces)
    assert any(p.endswith(("\\u", "\\u0", "\\u00")) or "\\u" in p[-5:] for p in pieces[:-1])


def test_pack_fragments_groups_messages():
    stream = stream_plan(PLAN, [{"kind": "pack_fragments", "size": 3}])
    assert all(len(m) == 3 for m in stream.messages[:-1])
    assert sum(len(m) for m in stream.messages) == len(stream.fragments)


def test_empty_string_continuations():
    stream = stream_plan(PLAN, ["empty_string_continuations"])
    continuation = fragments_of(stream, 0)[1]
    assert (continuation.id, continuation.name) == ("", "")
    assert reference_merge(stream).calls() == PLAN.expected_calls()


def test_duplicate_ids_hazard():
    result = reference_merge(stream_plan(PLAN, ["duplicate_ids"]))
    assert [c["id"] for c in result.tool_calls] == ["call_0", "call_0"]
    assert "duplicate_id" in result.hazard_kinds()


@pytest.mark.parametrize(
    ("quirks", "message"),
    [
        (["nope"], "unknown quirk kind 'nope'; known quirk kinds: .*ascii_escapes"),
        (["whole_call", "whole_args"], "all decide how arguments are cut"),
        (["missing_id", "missing_id"], "repeated: missing_id"),
        ([{"kind": "non_object_args", "call": 5}], "names call 5, but the plan has 2 call"),
        (["truncate_args", "cumulative_args"], "cannot be combined"),
        ([42], "a quirk must be a Quirk, a kind name or a mapping"),
    ],
)
def test_bad_quirks_are_usage_errors(quirks, message):
    with pytest.raises(TooltapeUsageError, match=message):
        stream_plan(PLAN, quirks)


def test_quirk_kinds_are_listed():
    kinds = quirk_kinds()
    assert kinds == sorted(kinds)
    assert {"repeat_name", "no_index", "truncate_args", "interleave_calls"} <= set(kinds)


def test_quirk_str_shows_parameters():
    assert str(parse_quirk({"kind": "pack_fragments", "size": 3})) == "pack_fragments(size=3)"
    assert str(parse_quirk("no_index")) == "no_index"
