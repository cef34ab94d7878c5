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
from typing import Any, Self

__all__ = ["Bounds", "CellHangs", "CellMemory", "bounded"]

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
def _statm() -> int | None:
    """The process's ``statm``, opened once per process: reopening it cost half the check."""
    try:
        return os.open(f"/proc/{os.getpid()}/statm", os.O_RDONLY)
    except OSError:
        return None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_statm.cache_clear)  # a forked child reads its own


def _resident_mib() -> float | None:
    descriptor = _statm()
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


class Bounds:
    """A time limit and a memory bound for many blocks in turn (a matrix run's cells).

    While the bounds are open, one ``SIGALRM`` handler is installed and one
    interval timer ticks; a :meth:`block` only notes its deadline and the memory
    it starts from, and each tick checks the block that is running, if any.
    Arming a timer and installing a handler for every block cost a matrix cell
    six system calls, each tens of microseconds on a virtual machine; a block
    now costs one read of ``statm`` (none without a memory bound). A block that
    starts when no tick has come for two ticks' time (a subject disarmed the
    timer) arms it again, unless another timer is armed (whose alarm the handler
    takes too). The bounds are not kept (blocks run unbounded) where the module
    says, and for a block that starts after someone else took ``SIGALRM``.
    """

    def __init__(self, seconds: float | None, megabytes: float | None = None) -> None:
        """Bound each block to ``seconds`` and ``megabytes`` of growth (``None``: no such bound)."""
        self.seconds, self.megabytes = seconds, megabytes
        self._deadline: float | None = None
        self._baseline: float | None = None
        self._handler = self._alarm  # one bound method: ``getsignal`` hands back this object
        self._previous: Any = None
        self._installed = False
        self._tick = _TICK if seconds is None else min(seconds, _TICK)
        self._ticked = 0.0
        """When the last tick came (``time.monotonic()``)."""

    def __enter__(self) -> Self:
        seconds = self.seconds
        if (seconds is not None or self.megabytes is not None) and _can_alarm():
            self._previous = signal.signal(signal.SIGALRM, self._handler)
            self._arm()
            self._installed = True
        return self

    def _arm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, self._tick, self._tick)
        self._ticked = time.monotonic()

    def __exit__(self, *_exc: object) -> None:
        if self._installed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self._installed = False

    @contextmanager
    def block(self) -> Iterator[None]:
        """Run the block under the bounds.

        Raises:
            CellHangs: The block ran for more than ``seconds``.
            CellMemory: The process's resident memory grew by more than ``megabytes``.
        """
        if not self._installed or signal.getsignal(signal.SIGALRM) is not self._handler:
            yield
            return
        silent = time.monotonic() - self._ticked > 2 * self._tick
        if silent and signal.getitimer(signal.ITIMER_REAL)[0] == 0:
            self._arm()
        seconds = self.seconds
        self._baseline = _resident_mib() if self.megabytes is not None else None
        self._deadline = None if seconds is None else time.monotonic() + seconds
        try:
            yield
        finally:
            self._deadline = self._baseline = None

    def _alarm(self, _signum: int, _frame: FrameType | None) -> None:
        self._ticked = time.monotonic()
        deadline, baseline, megabytes = self._deadline, self._baseline, self.megabytes
        if deadline is not None and time.monotonic() >= deadline:
            raise CellHangs(self.seconds or 0.0)
        if baseline is not None and megabytes is not None:
            grown = (_resident_mib() or baseline) - baseline
            if grown > megabytes:
                raise CellMemory(grown, megabytes)


@contextmanager
def bounded(seconds: float | None, megabytes: float | None = None) -> Iterator[None]:
    """Run the block under a time limit and a memory bound (``None``: no such bound).

    One :class:`Bounds` around one block.

    Raises:
        CellHangs: The block ran for more than ``seconds``.
        CellMemory: The process's resident memory grew by more than ``megabytes``.
    """
    with Bounds(seconds, megabytes) as bounds, bounds.block():
        yield
