"""A default draw stays cheap: bounded streams, long text only where it is explicit, short reprs."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tooltape.harness import Plan, PlannedCall, reference_merge, stream_plan
from tooltape.harness._extreme_examples import extreme_examples
from tooltape.harness.strategies import (
    _allowed_kinds,
    _repeated_text,
    planned_streams,
    value_kinds,
)

LONG = Plan(calls=[PlannedCall("write_file", {"content": "x = 1\n" * 2_000}, "call_0")])


def test_a_long_argument_sent_cumulatively_in_160_pieces_is_kept_in_budget():
    heavy = stream_plan(LONG, [{"kind": "split_args", "pieces": 160}, "cumulative_args"])
    assert _repeated_text(heavy) > 60_000  # what the budget is there to avoid

    @settings(max_examples=1, database=None)
    @given(
        planned_streams(
            st.just(LONG), st.just([{"kind": "split_args", "pieces": 160}, "cumulative_args"])
        )
    )
    def check(stream):
        assert len(stream.fragments) <= 400
        assert _repeated_text(stream) <= 60_000
        assert "cumulative_args" not in {q.kind for q in stream.quirks}
        assert reference_merge(stream.deltas()).calls()[0]["args"] == LONG.calls[0].args

    check()


def test_a_stream_in_budget_is_left_as_drawn():
    quirks = [{"kind": "split_args", "pieces": 3}, "cumulative_args"]

    @settings(max_examples=1, database=None)
    @given(planned_streams(st.just(LONG), st.just(quirks)))
    def check(stream):
        assert [q.kind for q in stream.quirks] == ["split_args", "cumulative_args"]
        assert stream.quirks[0].pieces == 3

    check()


def test_drawn_long_strings_stay_under_12000_characters():
    @settings(max_examples=40, database=None)
    @given(planned_streams())
    def check(stream):
        longest = max(
            (len(v) for c in stream.plan.calls for v in c.args.values() if isinstance(v, str)),
            default=0,
        )
        assert longest <= 12_000

    check()


def test_the_110000_character_example_prints_in_one_short_line():
    (huge,) = [
        e for e in extreme_examples(_allowed_kinds(None, ()), value_kinds()) if "110,000" in e.label
    ]
    text = repr(huge.stream)
    assert len(text) < 600
    assert "<110,000 characters>" in text
    assert "messages=<3 messages, 3 fragments>" in text  # the header, two pieces
    assert "\n" not in text
