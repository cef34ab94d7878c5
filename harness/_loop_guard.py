"""The loop guard: run an agent graph step by step and stop it when its calls never resolve."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from tooltape.harness._agent_checks import (
    AgentLoopDetected,
    DiagnosisKind,
    _messages,
    assert_agent_run_healthy,
)
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._pairing import pending_tool_calls

__all__ = ["arun_with_loop_guard", "run_with_loop_guard"]


class _Guard:
    """Checks each state a graph streams; raises as soon as the run goes wrong."""

    def __init__(self, max_turns: int, tools: Any, check: bool, allow: Any) -> None:
        if max_turns < 1:
            raise TooltapeUsageError(f"max_turns must be at least 1, got {max_turns!r}")
        self.max_turns, self.check = max_turns, check
        self.options: dict[str, Any] = {"tools": tools, "allow": tuple(allow)}
        self.start: int | None = None
        self.messages: list[BaseMessage] = []
        self.state: Any = None

    def see(self, state: Any) -> None:
        self.state = state
        if not isinstance(state, Mapping) or "messages" not in state:
            return
        self.messages = _messages(state)
        ai = [m for m in self.messages if isinstance(m, AIMessage)]
        self.start = len(ai) if self.start is None else self.start
        if self.check:
            assert_agent_run_healthy(self.messages, finished=False, **self.options)
        if len(ai) - self.start >= self.max_turns and ai and ai[-1].tool_calls:
            raise self.loop_error()

    def finish(self) -> Any:
        if self.check and self.messages:
            assert_agent_run_healthy(self.messages, finished=True, **self.options)
        return self.state

    def loop_error(self, cause: Exception | None = None) -> AgentLoopDetected:
        messages = self.messages
        turns = sum(isinstance(m, AIMessage) for m in messages) - (self.start or 0)
        results = [m for m in messages if isinstance(m, ToolMessage)]
        failed = {m.tool_call_id for m in results} - {
            m.tool_call_id for m in results if m.status != "error"
        }
        pending = [call["id"] for call in pending_tool_calls(messages)]
        counts = Counter(
            c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
        )
        calls = ", ".join(f"{name} x{count}" for name, count in counts.most_common(3))
        suffix = f" (LangGraph: {cause})" if cause is not None else ""
        return AgentLoopDetected(
            f"the agent run made {turns} model turn(s) and still asks for tools "
            f"(max_turns={self.max_turns}); pending: {pending or 'none'}; answered only with "
            f"errors: {sorted(failed) or 'none'}; calls so far: {calls}{suffix}",
            turns=turns,
            pending=[*pending, *sorted(failed - set(pending))],
        )


def run_with_loop_guard(
    graph: Any,
    inputs: Any,
    *,
    max_turns: int = 10,
    tools: Iterable[Any] | None = None,
    config: Mapping[str, Any] | None = None,
    check: bool = True,
    allow: Iterable[DiagnosisKind] = (),
) -> Any:
    """Run a compiled LangGraph graph, stopping it at the first fault or loop.

    The graph runs through ``graph.stream(inputs, config, stream_mode="values")``,
    which executes one step per state pulled, so a failed check stops the run
    before the next node (the tool node, or a model call the provider would
    reject) runs.

    Args:
        graph: A compiled graph (``create_agent(...)``, ``StateGraph(...).compile()``)
            whose state holds ``messages``.
        inputs: The graph input, e.g. ``{"messages": [...]}``.
        max_turns: The most model turns the run may take, its final answer included:
            a run still asking for tools at that turn is stopped before its tools run.
        tools: The registered tools, for name and argument checks.
        config: A LangGraph config (``recursion_limit``, ``configurable`` ...).
        check: Diagnose every state (:func:`diagnose_agent_run`); ``False`` keeps
            only the turn budget.
        allow: Diagnosis kinds the test accepts.

    Returns:
        The final state.

    Raises:
        AgentRunUnhealthy: A state holds a fault; raised before the next step runs.
        AgentLoopDetected: The run's ``max_turns``-th model turn still asks for tools,
            or LangGraph's recursion limit was hit; names the ids left pending.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    guard = _Guard(max_turns, tools, check, allow)
    states = graph.stream(inputs, dict(config or {}), stream_mode="values")
    try:
        for state in states:
            guard.see(state)
    except Exception as error:
        if type(error).__name__ == "GraphRecursionError":
            raise guard.loop_error(error) from error
        raise
    finally:
        states.close()
    return guard.finish()


async def arun_with_loop_guard(
    graph: Any,
    inputs: Any,
    *,
    max_turns: int = 10,
    tools: Iterable[Any] | None = None,
    config: Mapping[str, Any] | None = None,
    check: bool = True,
    allow: Iterable[DiagnosisKind] = (),
) -> Any:
    """:func:`run_with_loop_guard` for async code, through ``graph.astream``."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    guard = _Guard(max_turns, tools, check, allow)
    states = graph.astream(inputs, dict(config or {}), stream_mode="values")
    try:
        async for state in states:
            guard.see(state)
    except Exception as error:
        if type(error).__name__ == "GraphRecursionError":
            raise guard.loop_error(error) from error
        raise
    finally:
        await states.aclose()
    return guard.finish()
