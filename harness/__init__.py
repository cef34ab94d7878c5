"""tooltape.harness: the protocol core.

Plans and quirks describe what a model meant and how a provider distorts it;
:func:`stream_plan` turns them into deltas; :func:`reference_merge` runs
langchain-core on them; the assertions compare a subject with the reference,
and the pairing helpers check tool-call histories. Nothing here speaks HTTP.

Names load on first use (PEP 562): importing the package imports neither
langchain-core (whose messages module pulls in ``requests``) nor Hypothesis.
"""

import typing as _typing

from tooltape.harness._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from tooltape.harness._agent_checks import (
        AgentLoopDetected,
        AgentRunUnhealthy,
        Diagnosis,
        DiagnosisKind,
        assert_agent_run_healthy,
        diagnose_agent_run,
    )
    from tooltape.harness._assertions import (
        ExpectedCalls,
        SubjectLike,
        assert_merge,
        first_divergence,
        normalize_calls,
    )
    from tooltape.harness._check_merger import check_merger, check_rechunking, merger_property
    from tooltape.harness._counterexample import (
        Counterexample,
        HazardPolicy,
        MergerFn,
        describe_counterexample,
    )
    from tooltape.harness._engine import stream_plan
    from tooltape.harness._errors import (
        HazardFound,
        MergeMismatch,
        PairingError,
        PendingToolCalls,
        TooltapeAssertionError,
        TooltapeError,
        TooltapeUsageError,
    )
    from tooltape.harness._fragments import Fragment, PlannedStream
    from tooltape.harness._hazards import find_hazards, is_repeated_name
    from tooltape.harness._history import (
        CallEntry,
        History,
        HistoryShape,
        ResultEntry,
        read_history,
    )
    from tooltape.harness._lanes import draw_lanes
    from tooltape.harness._loop_guard import arun_with_loop_guard, run_with_loop_guard
    from tooltape.harness._models import (
        Delta,
        Deltas,
        Finish,
        Hazard,
        HazardKind,
        MergeResult,
        Plan,
        PlannedCall,
        ToolCallDict,
    )
    from tooltape.harness._pairing import (
        PairingProblem,
        PairingProblemKind,
        assert_no_pending,
        assert_tool_messages_paired,
        find_pairing_problems,
        pending_tool_calls,
    )
    from tooltape.harness._quirks import (
        CAPABILITIES,
        Quirk,
        Stage,
        evidence,
        parse_quirk,
        quirk_kinds,
    )
    from tooltape.harness._reference import (
        DeltasLike,
        merge_result_from_message,
        pairwise_merge,
        reference_merge,
        to_message_chunks,
    )
    from tooltape.harness._resolution import CallResolution, StreamResolution, resolve_stream
    from tooltape.harness._scenarios import (
        Scenario,
        ScenarioFileError,
        load_scenarios,
        select_scenarios,
    )
    from tooltape.harness._tool_events import (
        ToolEvent,
        ToolEventLog,
        assert_tool_events_paired,
        call_fields,
    )

__all__ = [
    "AgentLoopDetected",
    "AgentRunUnhealthy",
    "CAPABILITIES",
    "CallEntry",
    "CallResolution",
    "Counterexample",
    "Delta",
    "Deltas",
    "DeltasLike",
    "Diagnosis",
    "DiagnosisKind",
    "ExpectedCalls",
    "Finish",
    "Fragment",
    "Hazard",
    "HazardFound",
    "HazardKind",
    "HazardPolicy",
    "History",
    "HistoryShape",
    "MergeMismatch",
    "MergeResult",
    "MergerFn",
    "PairingError",
    "PairingProblem",
    "PairingProblemKind",
    "PendingToolCalls",
    "Plan",
    "PlannedCall",
    "PlannedStream",
    "Quirk",
    "ResultEntry",
    "Scenario",
    "ScenarioFileError",
    "Stage",
    "StreamResolution",
    "SubjectLike",
    "ToolCallDict",
    "ToolEvent",
    "ToolEventLog",
    "TooltapeAssertionError",
    "TooltapeError",
    "TooltapeUsageError",
    "arun_with_loop_guard",
    "assert_agent_run_healthy",
    "assert_merge",
    "assert_no_pending",
    "assert_tool_events_paired",
    "assert_tool_messages_paired",
    "call_fields",
    "check_merger",
    "check_rechunking",
    "describe_counterexample",
    "diagnose_agent_run",
    "draw_lanes",
    "evidence",
    "find_hazards",
    "find_pairing_problems",
    "first_divergence",
    "is_repeated_name",
    "load_scenarios",
    "merge_result_from_message",
    "merger_property",
    "normalize_calls",
    "pairwise_merge",
    "parse_quirk",
    "pending_tool_calls",
    "quirk_kinds",
    "read_history",
    "reference_merge",
    "resolve_stream",
    "run_with_loop_guard",
    "select_scenarios",
    "stream_plan",
    "to_message_chunks",
]

_LAZY: dict[str, str] = {
    "AgentLoopDetected": "_agent_checks",
    "AgentRunUnhealthy": "_agent_checks",
    "Diagnosis": "_agent_checks",
    "DiagnosisKind": "_agent_checks",
    "assert_agent_run_healthy": "_agent_checks",
    "diagnose_agent_run": "_agent_checks",
    "ExpectedCalls": "_assertions",
    "SubjectLike": "_assertions",
    "assert_merge": "_assertions",
    "first_divergence": "_assertions",
    "normalize_calls": "_assertions",
    "check_merger": "_check_merger",
    "check_rechunking": "_check_merger",
    "merger_property": "_check_merger",
    "Counterexample": "_counterexample",
    "HazardPolicy": "_counterexample",
    "MergerFn": "_counterexample",
    "describe_counterexample": "_counterexample",
    "stream_plan": "_engine",
    "HazardFound": "_errors",
    "MergeMismatch": "_errors",
    "PairingError": "_errors",
    "PendingToolCalls": "_errors",
    "TooltapeAssertionError": "_errors",
    "TooltapeError": "_errors",
    "TooltapeUsageError": "_errors",
    "Fragment": "_fragments",
    "PlannedStream": "_fragments",
    "find_hazards": "_hazards",
    "is_repeated_name": "_hazards",
    "CallEntry": "_history",
    "History": "_history",
    "HistoryShape": "_history",
    "ResultEntry": "_history",
    "read_history": "_history",
    "draw_lanes": "_lanes",
    "arun_with_loop_guard": "_loop_guard",
    "run_with_loop_guard": "_loop_guard",
    "Delta": "_models",
    "Deltas": "_models",
    "Finish": "_models",
    "Hazard": "_models",
    "HazardKind": "_models",
    "MergeResult": "_models",
    "Plan": "_models",
    "PlannedCall": "_models",
    "ToolCallDict": "_models",
    "PairingProblem": "_pairing",
    "PairingProblemKind": "_pairing",
    "assert_no_pending": "_pairing",
    "assert_tool_messages_paired": "_pairing",
    "find_pairing_problems": "_pairing",
    "pending_tool_calls": "_pairing",
    "CAPABILITIES": "_quirks",
    "Quirk": "_quirks",
    "Stage": "_quirks",
    "evidence": "_quirks",
    "parse_quirk": "_quirks",
    "quirk_kinds": "_quirks",
    "DeltasLike": "_reference",
    "merge_result_from_message": "_reference",
    "pairwise_merge": "_reference",
    "reference_merge": "_reference",
    "to_message_chunks": "_reference",
    "CallResolution": "_resolution",
    "StreamResolution": "_resolution",
    "resolve_stream": "_resolution",
    "Scenario": "_scenarios",
    "ScenarioFileError": "_scenarios",
    "load_scenarios": "_scenarios",
    "select_scenarios": "_scenarios",
    "ToolEvent": "_tool_events",
    "ToolEventLog": "_tool_events",
    "assert_tool_events_paired": "_tool_events",
    "call_fields": "_tool_events",
}
"""Which private module defines each public name."""

if not _typing.TYPE_CHECKING:  # mypy reads the imports above; a typo stays an error
    __getattr__, __dir__ = _lazy_exports(__name__, _LAZY, globals())
