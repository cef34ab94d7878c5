"""tooltape.harness: the protocol core.

Plans and quirks describe what a model meant and how a provider distorts it;
:func:`stream_plan` turns them into deltas; :func:`reference_merge` runs
langchain-core on them; the assertions compare a subject with the reference,
and the pairing helpers check tool-call histories. Nothing here speaks HTTP.

Names load on first use (PEP 562): importing the package imports neither
langchain-core (whose messages module pulls in ``requests``) nor Hypothesis.
"""

import typing as _typing

from tooltape.harness.lazy_facades import lazy_exports as _lazy_exports

if not _typing.TYPE_CHECKING:  # the imports below say where each name lives
    __getattr__, __dir__ = _lazy_exports(__name__, globals())

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
        History,
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
        reference_merge,
    )
    from tooltape.harness._resolution import StreamResolution, resolve_stream
    from tooltape.harness._scenarios import (
        Scenario,
        ScenarioFileError,
        load_scenarios,
        select_scenarios,
    )
    from tooltape.harness._tool_events import (
        ToolEventLog,
        assert_tool_events_paired,
    )

__all__ = [
    "AgentLoopDetected",
    "AgentRunUnhealthy",
    "CAPABILITIES",
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
    "MergeMismatch",
    "MergeResult",
    "MergerFn",
    "PairingError",
    "PairingProblem",
    "PendingToolCalls",
    "Plan",
    "PlannedCall",
    "PlannedStream",
    "Quirk",
    "Scenario",
    "ScenarioFileError",
    "Stage",
    "StreamResolution",
    "SubjectLike",
    "ToolCallDict",
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
    "parse_quirk",
    "pending_tool_calls",
    "quirk_kinds",
    "read_history",
    "reference_merge",
    "resolve_stream",
    "run_with_loop_guard",
    "select_scenarios",
    "stream_plan",
]
