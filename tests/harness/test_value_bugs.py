"""Bugs in what real tool calls carry are caught by check_merger's defaults, on every run.

The slow sweep (tests/harness/test_buggy_mergers.py) repeats this 20 times per
merger with fresh random databases; here a few seeds keep CI fast.
"""

import pytest
from _mergers import CORRECT, VALUE_AND_SHAPE_BUGGY
from hypothesis.database import InMemoryExampleDatabase

from tooltape.harness import MergeMismatch, TooltapeUsageError, check_merger
from tooltape.harness._check_merger import _Judge
from tooltape.harness._extreme_examples import extreme_examples
from tooltape.harness.strategies import _allowed_kinds, value_kinds


@pytest.fixture
def fresh_profile(hypothesis_profile):
    """A fresh in-memory database and random draws: what a new user's first run has."""
    hypothesis_profile("tooltape-value-bugs", database=InMemoryExampleDatabase(), derandomize=False)


def test_there_are_at_least_twelve_value_and_shape_bugs():
    assert len(VALUE_AND_SHAPE_BUGGY) >= 12


@pytest.mark.parametrize("merger", VALUE_AND_SHAPE_BUGGY, ids=lambda fn: fn.__name__)
def test_default_settings_catch_each_bug_on_fresh_runs(merger, fresh_profile):
    for _ in range(3):
        with pytest.raises(MergeMismatch) as error:
            check_merger(merger)
        assert "so the difference is the merger's" in str(error.value).splitlines()[0]


@pytest.mark.parametrize("merger", VALUE_AND_SHAPE_BUGGY, ids=lambda fn: fn.__name__)
def test_an_extreme_example_catches_each_bug(merger):
    judge = _Judge(merger, False, "require")
    examples = extreme_examples(_allowed_kinds(None, ()), value_kinds())
    assert any(judge(e.stream, e.deltas, e.reference, e.label) for e in examples)


@pytest.mark.parametrize("merger", CORRECT, ids=lambda fn: fn.__name__)
def test_correct_mergers_pass_every_extreme_example(merger):
    judge = _Judge(merger, False, "require")
    for example in extreme_examples(_allowed_kinds(None, ()), value_kinds()):
        assert judge(example.stream, example.deltas, example.reference, example.label) is None


def test_excluded_value_kinds_leave_the_examples_and_the_draws():
    from _mergers import cuts_long_strings

    check_merger(cuts_long_strings, exclude_value_kinds=["long_strings"], max_examples=30)
    examples = extreme_examples(_allowed_kinds(None, ()), ("plain",))
    assert examples and all("character string" not in e.label for e in examples)


def test_unknown_value_kinds_name_the_closest():
    with pytest.raises(TooltapeUsageError, match=r"did you mean 'floats'"):
        check_merger(CORRECT[0], value_kinds=["flaots"])
