"""merger_property and tooltape's fixtures under HypoFuzz's own command, ``hypothesis fuzz``.

Each test starts ``hypothesis fuzz`` on one property in a pytester project, stops it
after a budget, then replays the example database with plain pytest (the reuse
phase only): HypoFuzz saves a shrunk failure under the test's own database key
(hypofuzz/database/database.py, ``_failure_postfix``), so the replay fails with it.
pytest-recording stays on, as in a user's environment: its autouse ``vcr`` fixture
reads ``request.node.fspath``, which pytest takes away before HypoFuzz sets up the
fixtures, and tooltape's plugin stands in for the fixture that reads it
(plugin/_recording_folder.py).
"""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FUZZ_SECONDS = 15

USER_MODULE = """
    from pathlib import Path

    import pytest
    from hypothesis import HealthCheck, given, settings, strategies as st

    from tooltape.harness import Plan, PlannedCall, assert_merge, merger_property, reference_merge


    def good_merge(deltas):
        return reference_merge(deltas).calls()


    def forgets_everything(deltas):
        return []


    test_good_merger = merger_property(good_merge)
    test_bad_merger = merger_property(forgets_everything)


    @pytest.mark.vcr  # pytest-recording's fixture, set up by HypoFuzz
    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(city=st.text(min_size=1, max_size=12))
    def test_chat_model_over_the_fake(fake_openai, vcr, city):
        plan = Plan(calls=[PlannedCall("get_weather", {"city": city})])
        fake_openai.stream(plan, quirks=["split_args"])
        message = None
        for chunk in fake_openai.chat_model().stream("Weather?"):
            message = chunk if message is None else message + chunk
        assert_merge(message, plan)
        Path("fixtures_ran").touch()
"""

# The replay only reads the database: it fails only if HypoFuzz saved a failure, and
# Hypothesis skips it when there is nothing to reuse.
CONFTEST = """
    import os

    from hypothesis import Phase, settings

    if os.environ.get("REPLAY_ONLY"):
        settings.register_profile("replay", phases=[Phase.explicit, Phase.reuse])
        settings.load_profile("replay")
"""


@pytest.fixture
def project(pytester):
    pytester.makeconftest(textwrap.dedent(CONFTEST))
    pytester.makepyfile(test_merges=textwrap.dedent(USER_MODULE))
    return pytester


def _environment():
    # Under CI=true Hypothesis loads its "ci" profile (derandomize), which HypoFuzz refuses.
    return {k: v for k, v in os.environ.items() if k not in {"CI", "REPLAY_ONLY"}}


def _fuzz(project, test, *, seconds=FUZZ_SECONDS, stop_at=None):
    """HypoFuzz's output after ``seconds``, or as soon as a line holds ``stop_at``."""
    hypothesis = Path(sys.executable).parent / "hypothesis"  # the CLI HypoFuzz extends
    command = [str(hypothesis), "fuzz", "-n", "1", "--no-dashboard"]
    command += ["--", f"test_merges.py::{test}", "-p", "no:cacheprovider"]
    process = subprocess.Popen(
        command,
        cwd=project.path,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the hub and its worker: stopped together below
    )
    assert process.stdout is not None
    lines = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([process.stdout], [], [], left)
        line = process.stdout.readline() if ready else ""
        if ready and not line:
            break  # HypoFuzz exited
        lines.append(line)
        if stop_at is not None and stop_at in line:
            break
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    process.communicate()
    return "".join(lines)


def _replay(project, test):
    return subprocess.run(
        [sys.executable, "-m", "pytest", f"test_merges.py::{test}", "-p", "no:cacheprovider"],
        cwd=project.path,
        env=_environment() | {"REPLAY_ONLY": "1"},
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_correct_merger_stays_green_under_hypothesis_fuzz(project):
    output = _fuzz(project, "test_good_merger")
    assert "using 1 process to fuzz 1 test" in output, output
    assert "Traceback" not in output, output
    assert (project.path / ".hypothesis" / "examples").is_dir(), output  # it fuzzed
    replay = _replay(project, "test_good_merger")
    # Nothing saved under the test's key: the reuse-only replay has nothing to run.
    assert replay.returncode == 0, replay.stdout
    assert "1 skipped" in replay.stdout, replay.stdout


def test_tooltape_and_pytest_recording_fixtures_work_under_hypothesis_fuzz(project):
    # Without tooltape's stand-in, pytest-recording's vcr fixture raises on the first
    # example and HypoFuzz reports "Found a failing input for every test!".
    output = _fuzz(project, "test_chat_model_over_the_fake", stop_at="Found a failing input")
    assert "Found a failing input" not in output, output
    assert "Traceback" not in output, output
    assert (project.path / "fixtures_ran").exists(), output  # fake_openai served examples
    replay = _replay(project, "test_chat_model_over_the_fake")
    assert replay.returncode == 0, replay.stdout
    assert "1 skipped" in replay.stdout, replay.stdout


UPSTREAM_CRASH = "'ConjectureResult' object has no attribute 'slice_comments'"


def test_a_buggy_merger_is_found_shrunk_and_replayed(project):
    # Found in seconds; the budget is for collection and shrinking on a loaded machine.
    output = _fuzz(project, "test_bad_merger", seconds=90, stop_at=UPSTREAM_CRASH)
    if UPSTREAM_CRASH in output:
        pytest.xfail(
            "HypoFuzz 25.11.1 shrinks a failure with `data.slice_comments = "
            "shrinker.shrink_target.slice_comments` (hypofuzz/hypofuzz.py, FuzzTarget.run_one); "
            "Hypothesis 6.170's ConjectureResult has no slice_comments, so the worker dies "
            "with AttributeError before it saves the shrunk failure"
        )
    replay = _replay(project, "test_bad_merger")
    assert replay.returncode == 1, output + replay.stdout
    assert "MergeMismatch: tooltape: the merger disagrees" in replay.stdout
    assert "is missing from the merger's calls" in replay.stdout
