"""merger_property is a plain Hypothesis test: pytest, pytest-xdist and HypoFuzz run it."""

import sys
import textwrap

import pytest
from _mergers import correct

from tooltape.harness import MergeMismatch, merger_property

pytestmark = pytest.mark.slow

USER_MODULE = """
    from tooltape.harness import merger_property, reference_merge


    def good_merge(deltas):
        return reference_merge(deltas).calls()


    def forgets_everything(deltas):
        return []


    test_good_merger = merger_property(good_merge)
    test_bad_merger = merger_property(forgets_everything)
"""

CONFTEST = """
    from hypothesis import settings

    settings.register_profile("user", max_examples=5, database=None)
    settings.load_profile("user")
"""


@pytest.fixture
def user_project(pytester):
    pytester.makeconftest(textwrap.dedent(CONFTEST))
    pytester.makepyfile(test_merges=textwrap.dedent(USER_MODULE))
    return pytester


def test_pytest_collects_and_runs_it(user_project):
    result = user_project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*MergeMismatch: tooltape: the merger disagrees*"])


def test_pytest_xdist_runs_it_on_two_workers(user_project):
    result = user_project.runpytest_subprocess("-p", "xdist", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


def test_hypofuzz_collects_it(user_project, monkeypatch):
    # Under CI=true Hypothesis loads its built-in "ci" profile (derandomize), and HypoFuzz
    # refuses derandomized tests: collect as a fuzzing campaign runs, outside CI.
    monkeypatch.delenv("CI", raising=False)
    script = textwrap.dedent(
        """
        from hypofuzz.collection import collect_tests

        found = collect_tests(["test_merges.py", "-p", "no:cacheprovider"])
        print("FUZZ TARGETS:", sorted(t.nodeid for t in found.fuzz_targets))
        """
    )
    result = user_project.run(sys.executable, "-c", script)
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(
        ["FUZZ TARGETS: ['test_merges.py::test_bad_merger', 'test_merges.py::test_good_merger']"]
    )


def test_the_profile_governs_the_budget_unless_passed(hypothesis_profile):
    seen = []

    def counting(deltas):
        seen.append(1)
        return correct(deltas)

    hypothesis_profile("tooltape-9", max_examples=9, database=None, derandomize=True)
    merger_property(counting)()
    from_profile = len(seen)
    seen.clear()
    merger_property(counting, max_examples=4)()
    assert from_profile == 9 and len(seen) == 4


def test_a_failure_is_a_merge_mismatch_with_a_reproduction():
    def forgets_everything(deltas):
        return []

    # Both kinds fail here, so Hypothesis reports each, shrunk among its own kind.
    with pytest.raises(ExceptionGroup) as error:
        merger_property(forgets_everything, max_examples=50)()
    assert all(isinstance(e, MergeMismatch) for e in error.value.exceptions)
    texts = [str(e) for e in error.value.exceptions]
    assert any("has no hazard" in t for t in texts)
    assert any("your merger differs from langchain-core: " in t.splitlines()[0] for t in texts)
    assert all("reproduce:" in t for t in texts)
