"""Tool-execution events: each tool that starts ends, with its call's id, before the model goes on.

:class:`ToolEventLog` is the framework-neutral record (the LangChain4j streaming
model): a framework's *before-tool* hook calls :meth:`ToolEventLog.before` with
the call, its *after-tool* hook calls :meth:`ToolEventLog.after` with the call
id and the result, and the loop calls :meth:`ToolEventLog.continued` when it
sends the results back to the model. :meth:`ToolEventLog.assert_paired` then
checks the order and the pairing. :func:`assert_tool_events_paired` builds such
a log from LangChain ``astream_events`` (v2) events and checks it against the
calls the model made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AIMessage, ToolMessage

from tooltape.harness._errors import PairingError, TooltapeUsageError

__all__ = ["ToolEvent", "ToolEventLog", "assert_tool_events_paired", "call_fields"]

ToolEventKind = Literal["before", "after", "continued"]


@dataclass(frozen=True)
class ToolEvent:
    """One entry of a :class:`ToolEventLog`."""

    kind: ToolEventKind
    """``before`` a tool runs, ``after`` it returned, or ``continued`` (results sent on)."""
    call_id: str | None = None
    """The tool call's id (``None`` for ``continued``)."""
    name: str | None = None
    """The tool's name (``before``)."""
    args: Any = None
    """The arguments the tool ran with (``before``)."""
    result: Any = None
    """What the tool returned, or the error it raised (``after``)."""
    error: bool = False
    """Whether the tool failed (``after``)."""


def call_fields(call: Any) -> tuple[str | None, str | None, Any]:
    """``(id, name, args)`` of a call in any common shape.

    Accepts a LangChain ``ToolCall`` (``id``/``name``/``args``), an OpenAI tool
    call (``function.name``/``function.arguments``), an Anthropic ``tool_use``
    block (``input``), or an object with ``id``, ``name`` and ``arguments``/``args``
    attributes (LangChain4j's ``ToolExecutionRequest`` shape).
    """
    if isinstance(call, Mapping):
        function = call.get("function")
        if isinstance(function, Mapping):
            return call.get("id"), function.get("name"), function.get("arguments")
        args = call["args"] if "args" in call else call.get("input", call.get("arguments"))
        return call.get("id"), call.get("name"), args
    args = getattr(call, "args", getattr(call, "arguments", None))
    return getattr(call, "id", None), getattr(call, "name", None), args


class ToolEventLog:
    """A record of tool execution that any framework's hooks can feed.

    Example:
        >>> log = ToolEventLog()
        >>> log.before({"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}})
        >>> log.after("call_1", "mild")
        >>> log.continued()
        >>> log.assert_paired(expected=[{"id": "call_1", "name": "get_weather",
        ...                              "args": {"city": "Paris"}}])
    """

    def __init__(self) -> None:
        self.events: list[ToolEvent] = []
        """Every event, in the order the hooks reported them."""

    def before(self, call: Any) -> None:
        """Record that a tool is about to run for ``call`` (see :func:`call_fields`)."""
        call_id, name, args = call_fields(call)
        self.events.append(ToolEvent("before", call_id, name, args))

    def after(self, call_id: str | None, result: Any = None, *, error: bool = False) -> None:
        """Record that the tool for ``call_id`` returned ``result`` (or failed, with ``error``)."""
        self.events.append(ToolEvent("after", call_id, result=result, error=error))

    def continued(self) -> None:
        """Record that the conversation went on: the results were sent back to the model."""
        self.events.append(ToolEvent("continued"))

    @property
    def pending(self) -> list[str | None]:
        """Ids of the calls that started and have not finished."""
        running: list[str | None] = []
        for event in self.events:
            if event.kind == "before":
                running.append(event.call_id)
            elif event.kind == "after" and event.call_id in running:
                running.remove(event.call_id)
        return running

    def problems(self, expected: Iterable[Any] | None = None) -> list[str]:
        """Every way the log breaks the protocol, as sentences (empty when it is sound).

        Args:
            expected: The calls the model made (any shape :func:`call_fields` reads);
                each must run exactly once, with these arguments.
        """
        found: list[str] = []
        started: dict[str, ToolEvent] = {}
        running: set[str] = set()
        finished: set[str] = set()
        for number, event in enumerate(self.events):
            where = f"event {number} ({event.kind}"
            if event.kind == "before":
                found += self._check_before(where, event, started)
                if event.call_id:
                    started.setdefault(event.call_id, event)
                    running.add(event.call_id)
            elif event.kind == "after":
                call_id = event.call_id
                if not call_id or call_id not in started:
                    found.append(f"{where} {call_id!r}): a result for a call that never started")
                elif call_id in finished:
                    found.append(f"{where} {call_id!r}): a second result for the same call")
                else:
                    finished.add(call_id)
                    running.discard(call_id)
            elif running:
                found.append(
                    f"{where}): the conversation continued while {sorted(running)} had no "
                    "result yet"
                )
        found += [f"{call_id!r} started and never finished" for call_id in sorted(running)]
        if expected is not None:
            found += _against_expected(started, [call_fields(c) for c in expected])
        return found

    @staticmethod
    def _check_before(where: str, event: ToolEvent, started: Mapping[str, ToolEvent]) -> list[str]:
        if not event.call_id:
            return [f"{where} {event.name}): the call has id {event.call_id!r}; no result can pair"]
        if event.call_id in started:
            return [f"{where} {event.call_id!r}): the call started twice"]
        return []

    def assert_paired(self, expected: Iterable[Any] | None = None) -> None:
        """Assert that every started call has one result, in order, before the conversation went on.

        Args:
            expected: The calls the model made; each must run exactly once with its arguments.

        Raises:
            PairingError: Listing every problem found (see :meth:`problems`).
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        found = self.problems(expected)
        if found:
            listing = "\n".join(f"  - {problem}" for problem in found)
            raise PairingError(
                f"tool events do not pair ({len(found)} problem(s)):\n{listing}\n{self._lanes()}"
            )

    def _lanes(self) -> str:
        lines = ["events:"]
        for number, event in enumerate(self.events):
            text = f"  {number:>3} {event.kind:<9}"
            if event.kind == "before":
                text += f" {event.call_id!r} {event.name}({event.args!r})"
            elif event.kind == "after":
                text += f" {event.call_id!r}" + (" (error)" if event.error else "")
            lines.append(text)
        return "\n".join(lines)

    @classmethod
    def from_langchain_events(cls, events: Iterable[Mapping[str, Any]]) -> ToolEventLog:
        """Build a log from LangChain ``astream_events(version="v2")`` events.

        ``on_tool_start`` becomes :meth:`before`, ``on_tool_end``/``on_tool_error``
        :meth:`after` (matched by ``run_id``; the call id comes from the end event:
        the returned ``ToolMessage``'s ``tool_call_id`` or the error's
        ``data.tool_call_id``), and an ``on_chat_model_start`` after tool events
        :meth:`continued`. A start with no end is logged under ``<run ...>``.
        """
        events = list(events)
        ids = {event["run_id"]: _end_call_id(event) for event in events if _is_tool_end(event)}
        log = cls()
        tools_seen = False
        for event in events:
            kind, run_id = event.get("event"), event.get("run_id")
            if kind == "on_tool_start":
                call_id = ids.get(run_id, f"<run {str(run_id)[:8]}>")
                data = event.get("data") or {}
                log.events.append(
                    ToolEvent("before", call_id, event.get("name"), data.get("input"))
                )
                tools_seen = True
            elif _is_tool_end(event):
                data = event.get("data") or {}
                failed = kind == "on_tool_error"
                result = data.get("error") if failed else data.get("output")
                log.after(ids.get(run_id), result, error=failed)
            elif kind == "on_chat_model_start" and tools_seen:
                log.continued()
                tools_seen = False
        return log


def _is_tool_end(event: Mapping[str, Any]) -> bool:
    return event.get("event") in ("on_tool_end", "on_tool_error")


def _end_call_id(event: Mapping[str, Any]) -> str | None:
    data = event.get("data") or {}
    if event.get("event") == "on_tool_error":
        value = data.get("tool_call_id")
        return value if isinstance(value, str) else None
    output = data.get("output")
    if isinstance(output, ToolMessage):
        return output.tool_call_id
    return None


def _against_expected(
    started: Mapping[str, ToolEvent], expected: Sequence[tuple[str | None, str | None, Any]]
) -> list[str]:
    found: list[str] = []
    expected_ids = {call_id for call_id, _, _ in expected}
    for call_id, name, args in expected:
        event = started.get(call_id) if call_id else None
        if event is None:
            found.append(f"the model's call {name}(id={call_id!r}) never ran a tool")
        elif event.args != args:
            found.append(
                f"{call_id!r} ran {event.name} with {event.args!r}, but the merged call has "
                f"{args!r}"
            )
    found += [
        f"{call_id!r} ran {event.name}, a call the model did not make"
        for call_id, event in started.items()
        if call_id not in expected_ids
    ]
    return found


def assert_tool_events_paired(
    events: Iterable[Mapping[str, Any]], merged_message: AIMessage | None = None
) -> ToolEventLog:
    """Assert that LangChain ``astream_events`` (v2) tool events pair with the model's calls.

    Every ``on_tool_start`` must have its ``on_tool_end`` or ``on_tool_error``
    carrying the same ``tool_call_id``, after it; no result may arrive twice or for
    a call that never started; the model must not be called again while a tool is
    running; and each call of ``merged_message`` (default: of every
    ``on_chat_model_end`` output) must run exactly once with its merged arguments.

    Returns:
        The event log, for further checks.

    Raises:
        PairingError: Listing every problem and the events.
        TooltapeUsageError: ``events`` holds no dicts.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    events = list(events)
    if any(not isinstance(event, Mapping) for event in events):
        raise TooltapeUsageError("expected the dict events of astream_events(version='v2')")
    if merged_message is not None:
        expected: list[Any] = list(merged_message.tool_calls)
    else:
        outputs = [
            (event.get("data") or {}).get("output")
            for event in events
            if event.get("event") == "on_chat_model_end"
        ]
        expected = [c for out in outputs if isinstance(out, AIMessage) for c in out.tool_calls]
    log = ToolEventLog.from_langchain_events(events)
    log.assert_paired(expected)
    return log
