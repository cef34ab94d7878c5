"""Nothing hangs: a subject that spins or grows without end is reported, and the run goes on.

The subjects here are registered with the matrix as an installed adapter would
be (``adapters()`` is where the matrix finds them); one spins in a pure-Python
loop, as a LiteLLM release did on keep-alives, one allocates without end.
"""

from __future__ import annotations

import signal
import time

import pytest

from tooltape.cassettes import get_scenario
from tooltape.harness import Plan
from tooltape.plugin._cell_limits import Bounds, CellHangs, CellMemory, bounded
from tooltape.plugin._engine import run as matrix_run
from tooltape.plugin._engine.expectations import Expectations
from tooltape.plugin._engine.subjects import Adapter, Turn


def _spin(_client: object, plan: Plan) -> Turn:
    if plan.calls and plan.calls[0].name == "get_weather":
        while True:
            pass
    return Turn([], [])


def _grow(_client: object, _plan: Plan) -> Turn:
    hoard = []
    while True:
        hoard.append(bytearray(1 << 20))


def _subject(name: str, run: object) -> Adapter:
    return Adapter(name, ("openai_chat",), (), lambda _d, _u: None, run)  # type: ignore[arg-type]


def test_a_spinning_subject_hangs_in_its_cell_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(matrix_run, "adapters", lambda: (_subject("spinner", _spin),))
    scenarios = [get_scenario("openai_golden"), get_scenario("no_arg_tool_empty")]
    started = time.monotonic()

    cells = matrix_run.run_matrix(
        scenarios, ["openai_chat"], None, Expectations((), "test"), cell_timeout=0.3
    )

    assert time.monotonic() - started < 10
    spun, other = (cell.results[-1] for cell in cells)
    assert (spun.adapter, spun.status) == ("spinner", "hangs")
    assert spun.detail == "openai_golden: hangs: still running after 0.3 s (the time limit)"
    assert not spun.expected and "hangs, and test does not expect it" in spun.reason
    assert other.status != "hangs"  # the next cell ran


def test_a_subject_that_grows_without_end_is_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrix_run, "adapters", lambda: (_subject("hoarder", _grow),))

    (cell,) = matrix_run.run_matrix(
        [get_scenario("openai_golden")],
        ["openai_chat"],
        None,
        Expectations((), "test"),
        cell_timeout=20,
        cell_memory=64,
    )

    result = cell.results[-1]
    assert result.status == "memory", result.detail
    assert result.detail.startswith("openai_golden: memory: grew the process by ")
    assert "past the 64 MiB bound" in result.detail


def test_the_bounds_are_lifted_after_the_block() -> None:
    previous = signal.getsignal(signal.SIGALRM)
    with bounded(5, 512):
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is previous


def test_an_except_exception_in_the_subject_does_not_swallow_the_limit() -> None:
    def stubborn() -> None:
        while True:
            try:
                while True:
                    pass
            except Exception:  # a subject's own retry loop
                continue

    with pytest.raises(CellHangs), bounded(0.2):
        stubborn()
    assert issubclass(CellMemory, BaseException) and not issubclass(CellMemory, Exception)


def _spin_for(seconds: float) -> None:
    """Spin past the limits under test, but end: a bound that fails fails the test, not CI."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        pass


def test_one_bounds_keeps_each_block_to_its_own_limit_and_is_lifted_after() -> None:
    previous = signal.getsignal(signal.SIGALRM)
    with Bounds(0.2) as bounds:
        ticking = signal.getitimer(signal.ITIMER_REAL)
        with bounds.block():
            pass
        with pytest.raises(CellHangs), bounds.block():
            _spin_for(3.0)
        _spin_for(0.3)  # between blocks the ticks raise nothing
        with bounds.block():  # a new block has a deadline of its own
            _spin_for(0.1)
    assert ticking[0] > 0 and ticking[1] > 0  # one timer ticks for every block
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is previous


def test_a_block_runs_unbounded_once_someone_else_took_the_alarm() -> None:
    with Bounds(0.1) as bounds:
        theirs = signal.signal(signal.SIGALRM, lambda _signum, _frame: None)
        try:
            with bounds.block():
                _spin_for(0.3)
        finally:
            signal.signal(signal.SIGALRM, theirs)


def test_a_block_after_a_subject_disarmed_the_timer_is_bounded_again() -> None:
    with Bounds(0.2) as bounds:
        with bounds.block():
            signal.setitimer(signal.ITIMER_REAL, 0)  # a subject's own use of the timer
        _spin_for(0.15)  # no tick comes now
        with pytest.raises(CellHangs), bounds.block():
            _spin_for(3.0)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
