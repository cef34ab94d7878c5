"""Agent-run diagnostics: what went wrong in a tool-calling loop, said before it hangs or 400s.

:func:`diagnose_agent_run` reads a LangChain message history (an agent's state)
and names each fault real agent loops hit: calls without ids (``ToolNode``
cannot pair them), malformed calls next to valid ones (``ToolNode`` answers
only the valid ones, the provider rejects the next turn), turns with only
malformed calls (``tools_condition`` ends the graph silently), repeated or
unknown tool names, calls cut by a truncated stream, and dropped or orphan
``ToolMessage`` s. :func:`run_with_loop_guard` runs a compiled LangGraph graph
step by step with those checks, so a faulty turn fails the test with the
diagnosis before the next node runs, and a run that never resolves its calls
stops after ``max_turns`` model turns naming the ids that stayed pending.
Nothing here imports LangGraph: graphs are driven through ``stream``/``astream``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from tooltape.harness._errors import TooltapeAssertionError, TooltapeUsageError
from tooltape.harness._hazards import is_repeated_name
from tooltape.harness._pairing import find_pairing_problems, pending_tool_calls
from tooltape.harness.name_checks import check_names

__all__ = [
    "AgentLoopDetected",
    "AgentRunUnhealthy",
    "Diagnosis",
    "DiagnosisKind",
    "assert_agent_run_healthy",
    "diagnose_agent_run",
]

DiagnosisKind = Literal[
    "missing_id",
    "duplicate_id",
    "invalid_call",
    "invalid_only_turn",
    "repeated_name",
    "unknown_tool",
    "args_rejected",
    "truncated_turn",
    "dropped_result",
    "orphan_result",
    "duplicate_result",
    "name_mismatch",
    "pending_at_end",
    "no_final_answer",
]
"""What :class:`Diagnosis` found wrong in an agent run."""

_PAIRING_KINDS: dict[str, DiagnosisKind] = {
    "call_without_result": "dropped_result",
    "result_without_call": "orphan_result",
    "result_before_call": "orphan_result",
    "duplicate_result": "duplicate_result",
    "name_mismatch": "name_mismatch",
}
"""find_pairing_problems kinds worth a diagnosis; call-level kinds are diagnosed here."""

_STOP_KEYS = ("finish_reason", "stop_reason", "stopReason", "done_reason", "status")
_CUT_VALUES = frozenset(
    {"length", "max_tokens", "MAX_TOKENS", "content_filter", "incomplete", "SAFETY", "error"}
)


@dataclass(frozen=True)
class Diagnosis:
    """One fault found in an agent run."""

    kind: DiagnosisKind
    """What went wrong (see :func:`diagnose_agent_run`)."""
    message: int | None
    """Position of the message where it shows, if one."""
    detail: str
    """One or two sentences: what was seen and what LangChain or the provider does with it."""
    call_id: str | None = None
    """The id of the call it concerns, if any."""

    def __str__(self) -> str:
        where = f" at message {self.message}" if self.message is not None else ""
        return f"{self.kind}{where}: {self.detail}"


class AgentRunUnhealthy(TooltapeAssertionError):
    """An agent run holds faults; the message lists every diagnosis."""

    def __init__(self, diagnoses: Sequence[Diagnosis]) -> None:
        self.diagnoses = list(diagnoses)
        listing = "\n".join(f"  - {d}" for d in self.diagnoses)
        super().__init__(
            f"the agent run is unhealthy ({len(self.diagnoses)} problem(s)):\n{listing}"
        )


class AgentLoopDetected(TooltapeAssertionError):
    """An agent run kept calling tools past its turn budget; names the calls left unresolved."""

    def __init__(self, message: str, *, turns: int, pending: Sequence[str]) -> None:
        self.turns = turns
        """Model turns made before the guard stopped the run."""
        self.pending = list(pending)
        """Ids of the calls still pending or answered only with errors."""
        super().__init__(message)


# -- reading the run -----------------------------------------------------------------------


def _messages(run: Any) -> list[BaseMessage]:
    if isinstance(run, Mapping):
        run = run.get("messages")
    if run is None or isinstance(run, (str, bytes)) or not isinstance(run, Iterable):
        raise TooltapeUsageError(
            f"expected a list of LangChain messages or a state with 'messages', got {run!r}"
        )
    messages = list(run)
    strangers = [item for item in messages if not isinstance(item, BaseMessage)]
    if strangers:
        raise TooltapeUsageError(f"{strangers[0]!r} is not a LangChain message")
    return messages


def _tool_schemas(tools: Iterable[Any] | None) -> dict[str, dict[str, Any]] | None:
    """Each tool's JSON-schema parameters by name (a bare name string has none)."""
    if tools is None:
        return None
    functions: list[dict[str, Any]] = [
        {"name": t} if isinstance(t, str) else convert_to_openai_tool(t)["function"] for t in tools
    ]
    return {f["name"]: f.get("parameters") or {} for f in functions}


# -- diagnoses -----------------------------------------------------------------------------

_DETAILS: dict[DiagnosisKind, str] = {
    "truncated_turn": "{how}; its calls hold partial arguments that parse_partial_json repaired "
    "and ToolNode would execute: {calls}",
    "invalid_only_turn": "the turn holds only invalid tool calls ({calls}); tools_condition "
    "sees no tool_calls and routes to END: the run stops silently, no result, no final answer",
    "invalid_call": "{name!r} (id={id!r}) has arguments {args!r} that are not a JSON object; "
    "ToolNode runs only the valid calls beside it, and unless the loop answers it (create_agent "
    "adds an error ToolMessage) the next request carries it without a result (provider 400)",
    "missing_id": "{name}({args!r}) has id {id!r}: ToolNode cannot pair a ToolMessage with it "
    "(it raises 'Tool ... returned unexpected type') and providers reject the history",
    "repeated_name": "tool name {name!r} is {base!r} repeated: the provider sent the name on "
    "every chunk and langchain-core concatenated it; ToolNode answers 'Error: {name} is not a "
    "valid tool' and the model may retry forever",
    "unknown_tool": "{name!r} is not a registered tool (tools: {tools}); ToolNode answers with "
    "an error ToolMessage",
    "args_rejected": "{name}({args!r}) lacks required argument(s) {missing}; the tool rejects "
    "it with a validation error ('Field required')",
    "duplicate_id": "two calls share the id {id!r}; their ToolMessages cannot be told apart and "
    "providers reject the history",
}


def _diagnosis(kind: DiagnosisKind, position: int, call_id: Any, **fields: Any) -> Diagnosis:
    return Diagnosis(kind, position, _DETAILS[kind].format(id=call_id, **fields), call_id)


def _truncation(position: int, message: AIMessage) -> Diagnosis | None:
    metadata = message.response_metadata or {}
    stop = next(((k, metadata[k]) for k in _STOP_KEYS if metadata.get(k) is not None), None)
    if stop is None and metadata.get("model_provider"):
        how = "the stream ended without a finish reason (no terminal event)"
    elif stop is not None and stop[1] in _CUT_VALUES:
        how = f"the turn ended with {stop[0]}={stop[1]!r}"
    else:
        return None
    calls = ", ".join(f"{c['name']}({c['args']!r})" for c in message.tool_calls)
    return _diagnosis("truncated_turn", position, None, how=how, calls=calls)


def _call_diagnoses(
    position: int, message: AIMessage, schemas: dict[str, dict[str, Any]] | None
) -> Iterator[Diagnosis]:
    invalid = message.invalid_tool_calls
    if invalid and not message.tool_calls:
        calls = ", ".join(f"{b.get('name')!r} args={b.get('args')!r}" for b in invalid)
        yield _diagnosis("invalid_only_turn", position, invalid[0].get("id"), calls=calls)
    for bad in invalid if message.tool_calls else []:
        yield _diagnosis(
            "invalid_call", position, bad.get("id"), name=bad.get("name"), args=bad.get("args")
        )
    for call in message.tool_calls:
        yield from _single_call(position, call, schemas)
    if message.tool_calls and (truncated := _truncation(position, message)) is not None:
        yield truncated


def _single_call(
    position: int, call: Mapping[str, Any], schemas: dict[str, dict[str, Any]] | None
) -> Iterator[Diagnosis]:
    name, call_id, args = call.get("name") or "", call.get("id"), call.get("args") or {}
    if not call_id:
        yield _diagnosis("missing_id", position, call_id, name=name, args=args)
    base = is_repeated_name(name, schemas or ())
    missing = [k for k in (schemas or {}).get(name, {}).get("required", []) if k not in args]
    if base is not None:
        yield _diagnosis("repeated_name", position, call_id, name=name, base=base)
    elif schemas is not None and name not in schemas:
        tools = ", ".join(sorted(schemas))
        yield _diagnosis("unknown_tool", position, call_id, name=name, tools=tools)
    elif missing:
        fields = {"name": name, "args": args, "missing": ", ".join(missing)}
        yield _diagnosis("args_rejected", position, call_id, **fields)


def _duplicate_ids(messages: Sequence[BaseMessage]) -> Iterator[Diagnosis]:
    seen: set[str] = set()
    for position, message in enumerate(messages):
        calls = (
            [*message.tool_calls, *message.invalid_tool_calls]
            if isinstance(message, AIMessage)
            else []
        )
        for call_id in filter(None, (call.get("id") for call in calls)):
            if call_id in seen:
                yield _diagnosis("duplicate_id", position, call_id)
            seen.add(call_id)


def _pairing(messages: Sequence[BaseMessage], finished: bool) -> Iterator[Diagnosis]:
    for problem in find_pairing_problems(messages, allow_pending=True):
        mapped = _PAIRING_KINDS.get(problem.kind)
        if mapped == "dropped_result":
            detail = f"{problem.detail} though a later turn started: the provider rejects it (400)"
            yield Diagnosis(mapped, problem.message, detail, problem.call_id)
        elif mapped is not None:
            yield Diagnosis(mapped, problem.message, problem.detail, problem.call_id)
    last_ai = max((n for n, m in enumerate(messages) if isinstance(m, AIMessage)), default=None)
    if last_ai is None:
        return
    pending = [call for call in pending_tool_calls(messages) if call["id"]]
    tools_ran = isinstance(messages[-1], ToolMessage)
    for call in pending if tools_ran or finished else []:
        kind: DiagnosisKind = "dropped_result" if tools_ran else "pending_at_end"
        why = "the tool step answered other calls, not this one" if tools_ran else "the run ended"
        yield Diagnosis(
            kind,
            last_ai,
            f"{call['name']}(id={call['id']!r}) has no ToolMessage: {why}",
            call["id"],
        )
    if finished and tools_ran and not pending:
        yield Diagnosis(
            "no_final_answer",
            len(messages) - 1,
            "the run ended on a ToolMessage: the model never answered after its tools ran",
        )


def diagnose_agent_run(
    messages: Any, *, tools: Iterable[Any] | None = None, finished: bool = True
) -> list[Diagnosis]:
    """Every fault in an agent run's history, in message order.

    Kinds: ``missing_id``, ``duplicate_id``, ``invalid_call`` (a malformed call
    beside valid ones), ``invalid_only_turn`` (the graph ends silently),
    ``repeated_name`` (``get_weatherget_weather``), ``unknown_tool`` and
    ``args_rejected`` (with ``tools``), ``truncated_turn`` (a turn with calls cut
    by ``length``/``max_tokens``/``incomplete`` or with no finish reason from a
    provider adapter: its partial arguments would run), ``dropped_result``,
    ``orphan_result``, ``duplicate_result``, ``name_mismatch`` and, for a finished
    run, ``pending_at_end`` and ``no_final_answer``.

    Args:
        messages: LangChain messages, or an agent state holding them under ``messages``.
        tools: The registered tools (``BaseTool`` s, functions, OpenAI tool dicts or
            names); enables ``unknown_tool`` and ``args_rejected``.
        finished: The run is over (``False`` mid-run: the last turn may still be pending).
    """
    history = _messages(messages)
    schemas = _tool_schemas(tools)
    found: list[Diagnosis] = []
    for position, message in enumerate(history):
        if isinstance(message, AIMessage):
            found.extend(_call_diagnoses(position, message, schemas))
    found.extend(_duplicate_ids(history))
    found.extend(_pairing(history, finished))
    return sorted(found, key=lambda d: -1 if d.message is None else d.message)


def assert_agent_run_healthy(
    messages: Any,
    *,
    tools: Iterable[Any] | None = None,
    allow: Iterable[DiagnosisKind] = (),
    finished: bool = True,
) -> None:
    """Assert that an agent run has no faults (see :func:`diagnose_agent_run`).

    Args:
        messages: LangChain messages, or an agent state holding them.
        tools: The registered tools, to check names and required arguments.
        allow: Diagnosis kinds the test expects and accepts.
        finished: The run is over.

    Raises:
        AgentRunUnhealthy: Listing every diagnosis not allowed.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    allowed = set(allow)
    check_names(
        "diagnosis kind",
        allowed,
        get_args(DiagnosisKind),
        prefix="assert_agent_run_healthy(allow=...): ",
    )
    found = diagnose_agent_run(messages, tools=tools, finished=finished)
    found = [d for d in found if d.kind not in allowed]
    if found:
        raise AgentRunUnhealthy(found)
