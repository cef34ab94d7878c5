"""Exceptions raised by tooltape.

Hierarchy::

    TooltapeError                 root of everything tooltape raises on purpose
    ├── TooltapeUsageError        misconfiguration: a bad argument, plan or quirk
    └── TooltapeAssertionError    a test failure (also an AssertionError)
        ├── MergeMismatch         the subject's merged calls differ from the expectation
        ├── HazardFound           the merge carries hazards the test did not allow
        ├── PendingToolCalls      tool calls left without results
        ├── PairingError          tool calls and tool results do not pair up
        ├── AgentRunUnhealthy     an agent run holds faults (defined in _agent_checks)
        └── AgentLoopDetected     an agent loop never resolved its calls (_agent_checks)

A bug inside tooltape itself surfaces as an ordinary exception, never as one of
these, so a red test always says whether the subject or the harness is at fault.
"""

from __future__ import annotations

__all__ = [
    "HazardFound",
    "MergeMismatch",
    "PairingError",
    "PendingToolCalls",
    "TooltapeAssertionError",
    "TooltapeError",
    "TooltapeUsageError",
]

MESSAGE_PREFIX = "tooltape: "


class TooltapeError(Exception):
    """Root of every exception tooltape raises on purpose."""


class TooltapeUsageError(TooltapeError, ValueError):
    """tooltape was called with something it cannot use (a bad argument or quirk)."""


class TooltapeAssertionError(TooltapeError, AssertionError):
    """A test failure found by a tooltape assertion; the message starts with ``tooltape:``."""

    def __init__(self, message: str) -> None:
        if not message.startswith(MESSAGE_PREFIX):
            message = MESSAGE_PREFIX + message
        super().__init__(message)


class MergeMismatch(TooltapeAssertionError):
    """The merged tool calls differ from what the test expected."""


class HazardFound(TooltapeAssertionError):
    """The merge is valid to langchain-core but carries hazards the test did not allow."""


class PendingToolCalls(TooltapeAssertionError):
    """The history ends with tool calls that no tool result answers."""


class PairingError(TooltapeAssertionError):
    """Tool calls and tool results in a history do not pair one to one."""
