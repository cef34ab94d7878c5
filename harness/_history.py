"""Read conversation histories of four shapes into one list of calls and results.

Shapes: LangChain messages (``AIMessage.tool_calls`` / ``ToolMessage``), OpenAI
Chat ``messages`` (assistant ``tool_calls`` / ``role: tool``), OpenAI Responses
``input`` items (``function_call`` / ``function_call_output`` by ``call_id``) and
Anthropic ``messages`` (``tool_use`` / ``tool_result`` blocks). A request body
(``{"messages": [...]}`` or ``{"input": [...]}``) is accepted as well.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness.json_text import loads

__all__ = ["CallEntry", "History", "HistoryShape", "ResultEntry", "read_history"]

HistoryShape = Literal["langchain", "openai_chat", "openai_responses", "anthropic"]
"""The history formats :func:`read_history` reads: LangChain messages or a provider's own."""


@dataclass(frozen=True)
class CallEntry:
    """A tool call found in the history."""

    id: str | None
    name: str | None
    args: Any
    message: int
    """Position of the message (or Responses item) that holds it."""
    turn: int
    """Number of the assistant turn that made it (0 for the first)."""
    valid: bool = True
    """False for LangChain ``invalid_tool_calls``."""

    def as_dict(self) -> dict[str, Any]:
        """The call as ``{"name", "args", "id"}``."""
        return {"name": self.name, "args": self.args, "id": self.id}


@dataclass(frozen=True)
class ResultEntry:
    """A tool result found in the history."""

    id: str | None
    name: str | None
    message: int
    """Position of the message (or Responses item) that holds it."""
    block: int = 0
    """Position inside the message's content (Anthropic), else 0."""
    first_in_message: bool = True
    """False when another kind of content precedes it in its message (Anthropic)."""


@dataclass
class History:
    """A history reduced to its assistant turns, calls and results, in order."""

    shape: HistoryShape
    length: int
    calls: list[CallEntry] = field(default_factory=list)
    results: list[ResultEntry] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    """The message position where each assistant turn starts."""
    turn_ends: list[int] = field(default_factory=list)
    """The message position where each assistant turn ends (inclusive)."""
    results_follow_directly: bool = True
    """Whether the provider requires results right after their turn (all but Responses)."""

    def last_turn(self) -> int | None:
        """The number of the last assistant turn, if any."""
        return len(self.turns) - 1 if self.turns else None


def _unwrap(history: Any) -> Sequence[Any]:
    if isinstance(history, Mapping):
        for key in ("messages", "input"):
            if isinstance(history.get(key), list):
                return list(history[key])
        raise TooltapeUsageError(
            f"a history mapping must hold a 'messages' or 'input' list; got keys {sorted(history)}"
        )
    if isinstance(history, (str, bytes)) or not isinstance(history, Iterable):
        raise TooltapeUsageError(f"a history is a list of messages or items, got {history!r}")
    return list(history)


def _detect(items: Sequence[Any]) -> HistoryShape:
    if any(isinstance(item, BaseMessage) for item in items):
        return "langchain"
    for item in items:
        if not isinstance(item, Mapping):
            raise TooltapeUsageError(
                f"history item {item!r} is neither a LangChain message nor a dict"
            )
    if any(item.get("type") in ("function_call", "function_call_output") for item in items):
        return "openai_responses"
    for item in items:
        content = item.get("content")
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return "anthropic"
    return "openai_chat"


def read_history(history: Any) -> History:
    """Reduce a history of any supported shape to calls, results and turns.

    Raises:
        TooltapeUsageError: The history is not one of the supported shapes.
    """
    items = _unwrap(history)
    shape = _detect(items)
    reader = {
        "langchain": _read_langchain,
        "openai_chat": _read_openai_chat,
        "openai_responses": _read_responses,
        "anthropic": _read_anthropic,
    }[shape]
    out = History(
        shape=shape, length=len(items), results_follow_directly=shape != "openai_responses"
    )
    reader(items, out)
    return out


def _start_turn(out: History, position: int) -> int:
    out.turns.append(position)
    out.turn_ends.append(position)
    return len(out.turns) - 1


def _read_langchain(items: Sequence[Any], out: History) -> None:
    for position, message in enumerate(items):
        if isinstance(message, AIMessage):
            turn = _start_turn(out, position)
            for call in message.tool_calls:
                out.calls.append(
                    CallEntry(call.get("id"), call.get("name"), call.get("args"), position, turn)
                )
            for bad in message.invalid_tool_calls:
                out.calls.append(
                    CallEntry(
                        bad.get("id"), bad.get("name"), bad.get("args"), position, turn, False
                    )
                )
        elif isinstance(message, ToolMessage):
            out.results.append(ResultEntry(message.tool_call_id, message.name, position))


def _parse_args(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return loads(arguments) if arguments else {}
        except json.JSONDecodeError:
            return arguments
    return arguments


def _read_openai_chat(items: Sequence[Any], out: History) -> None:
    for position, message in enumerate(items):
        role = message.get("role")
        if role == "assistant":
            turn = _start_turn(out, position)
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                out.calls.append(
                    CallEntry(
                        call.get("id"),
                        function.get("name"),
                        _parse_args(function.get("arguments")),
                        position,
                        turn,
                    )
                )
        elif role == "tool":
            out.results.append(
                ResultEntry(message.get("tool_call_id"), message.get("name"), position)
            )


_ASSISTANT_ITEMS = ("function_call", "reasoning")


def _read_responses(items: Sequence[Any], out: History) -> None:
    in_turn = False
    for position, item in enumerate(items):
        kind = item.get("type") or ("message" if "role" in item else None)
        assistant = kind in _ASSISTANT_ITEMS or (
            kind == "message" and item.get("role") == "assistant"
        )
        if assistant and not in_turn:
            _start_turn(out, position)
        if assistant:
            out.turn_ends[-1] = position
        in_turn = assistant
        if kind == "function_call":
            out.calls.append(
                CallEntry(
                    item.get("call_id"),
                    item.get("name"),
                    _parse_args(item.get("arguments")),
                    position,
                    len(out.turns) - 1,
                )
            )
        elif kind == "function_call_output":
            out.results.append(ResultEntry(item.get("call_id"), None, position))


def _read_anthropic(items: Sequence[Any], out: History) -> None:
    for position, message in enumerate(items):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if message.get("role") == "assistant":
            turn = _start_turn(out, position)
            for block in blocks:
                if isinstance(block, Mapping) and block.get("type") == "tool_use":
                    out.calls.append(
                        CallEntry(
                            block.get("id"), block.get("name"), block.get("input"), position, turn
                        )
                    )
            continue
        seen_other = False
        for number, block in enumerate(blocks):
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                out.results.append(
                    ResultEntry(block.get("tool_use_id"), None, position, number, not seen_other)
                )
            else:
                seen_other = True
