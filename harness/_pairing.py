"""Pending calls and call/result pairing over conversation histories.

The pending rule is LangChain's agent loop rule (``langchain.agents`` routes to
the tool node on it): the valid tool calls of the *last* assistant turn whose
ids no *later* tool result answers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from tooltape.harness._errors import PairingError, PendingToolCalls
from tooltape.harness._history import CallEntry, History, read_history

__all__ = [
    "PairingProblem",
    "PairingProblemKind",
    "assert_no_pending",
    "assert_tool_messages_paired",
    "find_pairing_problems",
    "pending_tool_calls",
]

PairingProblemKind = Literal[
    "call_without_result",
    "result_without_call",
    "duplicate_result",
    "result_before_call",
    "empty_id",
    "duplicate_call_id",
    "name_mismatch",
    "invalid_call_unanswered",
    "result_not_adjacent",
    "result_not_first",
]
"""What :class:`PairingProblem` found wrong between a tool call and its result."""


@dataclass(frozen=True)
class PairingProblem:
    """One way a history's calls and results fail to pair."""

    kind: PairingProblemKind
    message: int
    """Position of the message or item where the problem shows."""
    call_id: str | None
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} at message {self.message}: {self.detail}"


def _pending(history: History) -> list[CallEntry]:
    last = history.last_turn()
    if last is None:
        return []
    start = history.turn_ends[last]
    answered = {r.id for r in history.results if r.message > start}
    return [c for c in history.calls if c.turn == last and c.valid and c.id not in answered]


def pending_tool_calls(history: Any) -> list[dict[str, Any]]:
    """The calls of the last assistant turn that no later tool result answers.

    Args:
        history: LangChain messages, an OpenAI Chat ``messages`` list, an
            OpenAI Responses ``input`` list, an Anthropic ``messages`` list, or a
            request body holding one of them.

    Returns:
        The pending calls as ``{"name", "args", "id"}`` dicts, in call order.
    """
    return [call.as_dict() for call in _pending(read_history(history))]


def assert_no_pending(history: Any) -> None:
    """Assert that the last assistant turn's calls are all answered.

    Raises:
        PendingToolCalls: Naming each pending call's id and name.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    pending = pending_tool_calls(history)
    if pending:
        listing = ", ".join(f"{c['name']}(id={c['id']!r})" for c in pending)
        raise PendingToolCalls(
            f"{len(pending)} tool call(s) of the last assistant turn have no result: {listing}"
        )


def find_pairing_problems(history: Any, *, allow_pending: bool = False) -> list[PairingProblem]:
    """Every way the history's calls and results fail to pair one to one.

    Args:
        history: Any supported history shape (see :func:`pending_tool_calls`).
        allow_pending: Accept calls of the last turn that have no result yet
            (the history is waiting for tools to run).
    """
    history = read_history(history)
    problems: list[PairingProblem] = []
    problems += _id_problems(history)
    problems += _result_problems(history)
    problems += _unanswered(history, allow_pending)
    return sorted(problems, key=lambda p: p.message)


def _id_problems(history: History) -> list[PairingProblem]:
    problems = []
    counts = Counter(c.id for c in history.calls if c.id)
    reported: set[str] = set()
    for call in history.calls:
        if not call.id:
            problems.append(
                PairingProblem("empty_id", call.message, call.id, f"{call.name} has id {call.id!r}")
            )
        elif counts[call.id] > 1 and call.id not in reported:
            reported.add(call.id)
            problems.append(
                PairingProblem(
                    "duplicate_call_id",
                    call.message,
                    call.id,
                    f"{counts[call.id]} calls share the id {call.id!r}",
                )
            )
    for result in history.results:
        if not result.id:
            problems.append(
                PairingProblem(
                    "empty_id", result.message, result.id, f"a result has id {result.id!r}"
                )
            )
    return problems


def _result_problems(history: History) -> list[PairingProblem]:
    problems = []
    calls_by_id = {c.id: c for c in history.calls if c.id}
    answered: Counter[str] = Counter()
    for result in history.results:
        if not result.id:
            continue
        call = calls_by_id.get(result.id)
        if call is None:
            problems.append(
                PairingProblem(
                    "result_without_call",
                    result.message,
                    result.id,
                    f"no call has id {result.id!r}",
                )
            )
            continue
        if call.message > result.message:
            problems.append(
                PairingProblem(
                    "result_before_call",
                    result.message,
                    result.id,
                    f"the result for {result.id!r} comes before its call (message {call.message})",
                )
            )
            continue
        answered[result.id] += 1
        if answered[result.id] == 2:
            problems.append(
                PairingProblem(
                    "duplicate_result",
                    result.message,
                    result.id,
                    f"{result.id!r} is answered twice",
                )
            )
        if result.name and call.name and result.name != call.name:
            problems.append(
                PairingProblem(
                    "name_mismatch",
                    result.message,
                    result.id,
                    f"the result names {result.name!r}, its call named {call.name!r}",
                )
            )
        problems += _placement(history, call, result)
    return problems


def _placement(history: History, call: CallEntry, result: Any) -> list[PairingProblem]:
    problems = []
    if history.results_follow_directly:
        end = history.turn_ends[call.turn]
        between = range(end + 1, result.message)
        result_positions = {r.message for r in history.results}
        if any(position not in result_positions for position in between):
            problems.append(
                PairingProblem(
                    "result_not_adjacent",
                    result.message,
                    result.id,
                    f"the result for {result.id!r} does not directly follow its assistant turn "
                    f"(message {end})",
                )
            )
    if history.shape == "anthropic" and not result.first_in_message:
        problems.append(
            PairingProblem(
                "result_not_first",
                result.message,
                result.id,
                "tool_result blocks must come first in the user message",
            )
        )
    return problems


def _unanswered(history: History, allow_pending: bool) -> list[PairingProblem]:
    last = history.last_turn()
    problems = []
    for call in history.calls:
        if not call.id or any(
            r.id == call.id and r.message > call.message for r in history.results
        ):
            continue
        if allow_pending and call.turn == last:
            continue
        kind: PairingProblemKind = (
            "call_without_result" if call.valid else "invalid_call_unanswered"
        )
        problems.append(
            PairingProblem(
                kind, call.message, call.id, f"{call.name}(id={call.id!r}) has no result"
            )
        )
    return problems


def assert_tool_messages_paired(history: Any, *, allow_pending: bool = False) -> None:
    """Assert that every tool call has exactly one result, in the right place.

    Detects calls without results, results without calls, two results for one
    call, a result before its call, empty or ``None`` ids, duplicate ids, a
    result whose name disagrees with its call, LangChain invalid calls left
    unanswered, results that do not directly follow their turn (every shape but
    Responses) and Anthropic results that are not first in their user turn.

    Args:
        history: Any supported history shape (see :func:`pending_tool_calls`).
        allow_pending: Accept unanswered calls in the last assistant turn.

    Raises:
        PairingError: Listing every problem with its message position.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    problems = find_pairing_problems(history, allow_pending=allow_pending)
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise PairingError(
            f"tool calls and results do not pair ({len(problems)} problem(s)):\n{listing}"
        )
