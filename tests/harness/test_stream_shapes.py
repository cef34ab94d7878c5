"""idle_messages and respell_args: lossless, and what they say they do."""

import json

import pytest

from tooltape.harness import Plan, reference_merge, stream_plan
from tooltape.harness._json_compare import json_equal

PLAN = Plan(
    calls=[
        {"name": "f", "args": {"x": 1, "z": -0.0, "pi": 3.141592653589793, "s": "é😀\n"}},
        {"name": "g", "args": {"n": [1, {"deep": None}], "t": True}},
    ]
)
STYLES = ["compact", "newlines", "reversed_keys", "exponents", "duplicate_key"]


def _text(stream, call):
    return "".join(f.args or "" for f in stream.fragments if f.call == call)


@pytest.mark.parametrize("ascii_escapes", [False, True])
@pytest.mark.parametrize("style", STYLES)
def test_every_spelling_merges_back_to_the_plan(style, ascii_escapes):
    quirks = [{"kind": "respell_args", "style": style}, {"kind": "split_args", "pieces": 7}]
    quirks += ["ascii_escapes"] if ascii_escapes else []
    stream = stream_plan(PLAN, quirks, seed=3)
    assert json_equal(reference_merge(stream).calls(), PLAN.expected_calls())
    text = _text(stream, 0)
    assert text != json.dumps(PLAN.calls[0].args, ensure_ascii=ascii_escapes)
    assert text.isascii() == ascii_escapes


def test_the_spellings_are_the_ones_named():
    def spelled(style):
        return _text(stream_plan(PLAN, [{"kind": "respell_args", "style": style}]), 0)

    assert spelled("compact").startswith('{"x":1,"z":-0.0,')
    assert ",\n" in spelled("newlines")
    assert spelled("reversed_keys").startswith('{"s": ')
    assert "3.1415926535897931E+00" in spelled("exponents")
    assert spelled("duplicate_key").startswith('{"x": "(overwritten)", "x": 1')


def test_args_another_quirk_replaced_are_left_alone():
    quirks = [{"kind": "respell_args"}, {"kind": "non_object_args", "call": 0}]
    assert _text(stream_plan(PLAN, quirks), 0) == _text(stream_plan(PLAN, quirks[1:]), 0)


def test_idle_messages_carry_no_chunk_and_change_nothing():
    plain = stream_plan(PLAN, ["interleave_calls"], seed=1)
    idle = stream_plan(PLAN, ["interleave_calls", {"kind": "idle_messages", "count": 5}], seed=1)
    assert len(idle.messages) == len(plain.messages) + 5
    assert sum(1 for m in idle.messages if not m) == 5
    assert [f for m in idle.messages for f in m] == [f for m in plain.messages for f in m]
    assert json_equal(reference_merge(idle).calls(), reference_merge(plain).calls())
