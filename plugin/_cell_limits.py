"""A time limit and a memory bound for code that runs in-process and may spin or grow.

A thread cannot be killed, so the bounds are kept by ``SIGALRM``: an interval
timer (``signal.setitimer``) calls a handler in the main thread, which raises
:class:`CellHangs` once the time is up, or :class:`CellMemory` once the
process's resident memory has grown by more than the bound since the block
began (read from ``/proc/self/statm`` each tick). The exception unwinds the
spinning code like a ``KeyboardInterrupt``: it is a ``BaseException``, so an
``except Exception`` in the subject does not swallow it. Pure-Python loops are
stopped within a tick; code blocked in C without releasing to the interpreter is
stopped when it returns. Off the main thread, or where ``SIGALRM`` does not
exist (Windows), or while another timer is armed (pytest-timeout's), the block
runs unbounded.
"""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["CellHangs", "CellMemory", "bounded"]

_TICK = 0.05
"""Seconds between memory readings (the time limit alone needs a single alarm)."""


class CellHangs(BaseException):
    """The block ran past its time limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"hangs: still running after {seconds:g} s (the time limit)")
        self.seconds = seconds


class CellMemory(BaseException):
    """The block grew the process's memory past its bound."""

    def __init__(self, megabytes: float, bound: float) -> None:
        super().__init__(
            f"memory: grew the process by {megabytes:,.0f} MiB, past the {bound:g} MiB bound"
        )
        self.megabytes = megabytes


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@functools.cache
def _statm(pid: int) -> int | None:
    """The process's ``statm``, opened once per process: reopening it cost half the check."""
    try:
        return os.open(f"/proc/{pid}/statm", os.O_RDONLY)
    except OSError:
        return None


def _resident_mib() -> float | None:
    descriptor = _statm(os.getpid())  # a forked child reads its own
    if descriptor is None:
        return None
    try:
        return int(os.pread(descriptor, 256, 0).split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        return None


def _can_alarm() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )


@contextmanager
def bounded(seconds: float | None, megabytes: float | None = None) -> Iterator[None]:
    """Run the block under a time limit and a memory bound (``None``: no such bound).

    Raises:
        CellHangs: The block ran for more than ``seconds``.
        CellMemory: The process's resident memory grew by more than ``megabytes``.
    """
    baseline = _resident_mib() if megabytes is not None else None
    if (seconds is None and baseline is None) or not _can_alarm():
        yield
        return
    deadline = None if seconds is None else time.monotonic() + seconds

    def alarm(_signum: int, _frame: FrameType | None) -> None:
        if deadline is not None and time.monotonic() >= deadline:
            raise CellHangs(seconds or 0.0)
        if baseline is not None and megabytes is not None:
            grown = (_resident_mib() or baseline) - baseline
            if grown > megabytes:
                raise CellMemory(grown, megabytes)

    previous = signal.signal(signal.SIGALRM, alarm)
    if baseline is None:
        assert seconds is not None
        signal.setitimer(signal.ITIMER_REAL, seconds, _TICK)
    else:
        first = _TICK if seconds is None else min(seconds, _TICK)
        signal.setitimer(signal.ITIMER_REAL, first, _TICK)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
