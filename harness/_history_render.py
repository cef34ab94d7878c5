"""Write a list of tool-call turns as a history in one of the four supported shapes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

__all__ = ["render_history"]

Turn = list[tuple[str, str]]
"""One assistant turn: ``(call id, tool name)`` pairs."""


def _apply_faults(turns: Sequence[Turn], faults: Sequence[str]) -> tuple[list[Turn], list[Turn]]:
    """The calls and results per turn, each fault on its own call of the first turn.

    The first turn needs three calls when faults are asked for, so that no fault
    hides another: the third call loses its result, the second is repeated with
    its id, the first is answered twice.
    """
    calls = [list(turn) for turn in turns]
    results = [list(turn) for turn in turns]
    first = calls[0]
    if "drop_result" in faults:
        results[0].remove(first[2])
    if "duplicate_call_id" in faults:
        calls[0].append(first[1])
        results[0].append(first[1])
    if "duplicate_result" in faults:
        results[0].append(first[0])
    if "empty_id" in faults:
        calls[0].append(("", first[0][1]))
        results[0].append(("", first[0][1]))
    if "orphan_result" in faults:
        results[0].append(("call_orphan", "ghost"))
    return calls, results


def render_history(shape: str, turns: Sequence[Turn], faults: Sequence[str] = ()) -> list[Any]:
    """The history of ``turns`` (each answered right after) in ``shape``, faults applied."""
    calls, results = _apply_faults(turns, faults)
    writer = {
        "langchain": _langchain,
        "openai_chat": _openai_chat,
        "openai_responses": _responses,
        "anthropic": _anthropic,
    }[shape]
    history: list[Any] = []
    for turn_calls, turn_results in zip(calls, results, strict=True):
        history += writer(turn_calls, turn_results)
    return history


def _langchain(calls: Turn, results: Turn) -> list[Any]:
    ai = AIMessage(
        "", tool_calls=[{"name": n, "args": {}, "id": i, "type": "tool_call"} for i, n in calls]
    )
    return [
        HumanMessage("go"),
        ai,
        *(ToolMessage("ok", tool_call_id=i, name=n) for i, n in results),
    ]


def _openai_chat(calls: Turn, results: Turn) -> list[Any]:
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n in calls
        ],
    }
    tools = [{"role": "tool", "tool_call_id": i, "content": "ok"} for i, _ in results]
    return [{"role": "user", "content": "go"}, assistant, *tools]


def _responses(calls: Turn, results: Turn) -> list[Any]:
    items: list[Any] = [{"role": "user", "content": "go"}]
    items += [
        {"type": "function_call", "call_id": i, "name": n, "arguments": "{}"} for i, n in calls
    ]
    items += [{"type": "function_call_output", "call_id": i, "output": "ok"} for i, _ in results]
    return items


def _anthropic(calls: Turn, results: Turn) -> list[Any]:
    uses = [{"type": "tool_use", "id": i, "name": n, "input": {}} for i, n in calls]
    outputs = [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i, _ in results]
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": outputs},
    ]
