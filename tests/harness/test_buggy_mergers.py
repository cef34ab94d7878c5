"""Every realistic buggy merger is caught on every run; correct mergers never are."""

import pytest
from _mergers import BUGGY, CORRECT

from tooltape.harness import MergeMismatch, check_merger
from tooltape.harness._check_merger import _Judge
from tooltape.harness._extreme_examples import extreme_examples
from tooltape.harness._merger_examples import library_examples
from tooltape.harness.strategies import _allowed_kinds, value_kinds

pytestmark = pytest.mark.slow

RUNS = 20


@pytest.fixture
def fresh_random_profile(hypothesis_profile):
    """No example database and no derandomisation: every run starts from nothing."""
    hypothesis_profile("tooltape-fresh", database=None, derandomize=False, deadline=None)


def test_there_are_at_least_twenty_buggy_mergers():
    assert len(BUGGY) >= 20
    assert len({fn.__name__ for fn in BUGGY}) == len(BUGGY)


@pytest.mark.parametrize("merger", BUGGY, ids=lambda fn: fn.__name__)
def test_the_explicit_examples_alone_catch_every_buggy_merger(merger):
    # The explicit examples are the same streams on every run: this is why no run misses.
    judge = _Judge(merger, False, "require")
    allowed = _allowed_kinds(None, ())
    examples = library_examples(None, allowed) + extreme_examples(allowed, value_kinds())
    assert any(judge(e.stream, e.deltas, e.reference, e.label) for e in examples)


@pytest.mark.parametrize("merger", BUGGY, ids=lambda fn: fn.__name__)
def test_each_buggy_merger_is_caught_on_twenty_consecutive_fresh_runs(merger, fresh_random_profile):
    caught = 0
    for _ in range(RUNS):
        with pytest.raises(MergeMismatch):
            check_merger(merger, max_examples=5)
        caught += 1
    assert caught == RUNS


@pytest.mark.parametrize("merger", CORRECT, ids=lambda fn: fn.__name__)
def test_correct_mergers_are_never_flagged(merger, fresh_random_profile):
    for _ in range(RUNS):
        check_merger(merger, max_examples=10)


@pytest.mark.parametrize("merger", CORRECT, ids=lambda fn: fn.__name__)
def test_correct_mergers_pass_a_long_fuzz(merger):
    check_merger(merger, max_examples=150, scenarios=[])
