"""Merge assertions: compare what a subject made of a stream with what it should have."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias, cast, get_args

from langchain_core.messages import AIMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call

from tooltape.harness._errors import HazardFound, MergeMismatch, TooltapeUsageError
from tooltape.harness._fragments import PlannedStream
from tooltape.harness._json_compare import json_equal, type_differences
from tooltape.harness._lanes import draw_lanes
from tooltape.harness._models import HazardKind, MergeResult, Plan, ToolCallDict
from tooltape.harness._reference import DeltasLike, merge_result_from_message, reference_merge
from tooltape.harness.name_checks import check_names
from tooltape.harness.served_streams import served_stream

__all__ = [
    "ExpectedCalls",
    "SubjectLike",
    "assert_merge",
    "bind_numbered_ids",
    "describe_calls_diff",
    "first_divergence",
    "normalize_calls",
]

ExpectedCalls: TypeAlias = Plan | MergeResult | Sequence[Mapping[str, Any]]
"""A plan, a reference result, or a list of ``{name, args, id}`` dicts."""

SubjectLike: TypeAlias = DeltasLike | AIMessage | MergeResult | Sequence[Mapping[str, Any]]
"""A stream (merged by the reference), an already merged message, a merge result, or
the ``[{name, args, id}]`` list a hand-written merger returns."""


def normalize_calls(
    calls: ExpectedCalls | Sequence[Any], *, ignore_ids: bool = False
) -> list[ToolCallDict]:
    """Reduce any description of tool calls to ``[{name, args, id}]`` for comparison."""
    if isinstance(calls, Plan):
        raw: Sequence[Any] = calls.expected_calls()
    elif isinstance(calls, MergeResult):
        raw = calls.calls()
    elif isinstance(calls, AIMessage):
        raw = calls.tool_calls
    else:
        raw = calls
    normalized = []
    for n, call in enumerate(raw):
        if not isinstance(call, Mapping) or "name" not in call:
            raise TooltapeUsageError(
                f"call {n}: expected a mapping with at least 'name' and 'args', got {call!r}"
            )
        entry: ToolCallDict = {"name": call["name"], "args": call.get("args", {})}
        if not ignore_ids:
            entry["id"] = call.get("id")
        normalized.append(entry)
    return normalized


def bind_numbered_ids(
    plan: Plan, want: list[ToolCallDict], got: list[ToolCallDict]
) -> list[ToolCallDict]:
    """``want`` (the plan's normalized calls) with each numbered id bound to the subject's.

    A call whose id the plan filled in (``call_<n>``, :attr:`PlannedCall.id_given`
    false) takes the id ``got`` carries at the same position, provided that id
    is a non-empty string, carried by no other call of ``got``, and not an id the
    plan gave another call: provider-shaped ids match, consistently and
    distinctly. Every other id (given ones, and numbered ones that cannot be
    bound) stays as planned, so a comparison still fails on it.
    """
    given = {c.id for c in plan.calls if c.id_given}
    got_ids = [c.get("id") for c in got]
    bound = []
    for n, (call, planned) in enumerate(zip(want, plan.calls, strict=False)):
        theirs = got_ids[n] if n < len(got_ids) else None
        free = (
            "id" in call
            and not planned.id_given
            and isinstance(theirs, str)
            and theirs != ""
            and got_ids.count(theirs) == 1
            and theirs not in given
        )
        bound.append({**call, "id": theirs} if free else call)
    return bound


def _is_call_list(subject: object) -> bool:
    """A non-empty list of mappings: merged calls (a stream's elements are lists or messages)."""
    return (
        isinstance(subject, Sequence)
        and not isinstance(subject, (str, bytes))
        and len(subject) > 0
        and all(isinstance(call, Mapping) for call in subject)
    )


def _calls_result(calls: Sequence[Mapping[str, Any]]) -> MergeResult:
    """Merged ``{name, args, id}`` calls as the result of a message that carries them.

    A call whose ``args`` is not a mapping (a merger that left them as a JSON string)
    is an invalid tool call, as langchain-core files a call whose args do not parse.
    """
    valid, invalid = [], []
    for n, call in enumerate(calls):
        if not isinstance(call.get("name"), str):
            raise TooltapeUsageError(
                f"assert_merge: call {n} of the subject: expected a dict with a 'name' string, "
                f"'args' and 'id', got {dict(call)!r}"
            )
        args, call_id = call.get("args", {}), call.get("id")
        if isinstance(args, Mapping):
            valid.append(tool_call(name=call["name"], args=dict(args), id=call_id))
        else:
            invalid.append(
                invalid_tool_call(name=call["name"], args=str(args), id=call_id, error=None)
            )
    message = AIMessage(content="", tool_calls=valid, invalid_tool_calls=invalid)
    return merge_result_from_message(message)


def _subject_result(subject: SubjectLike) -> tuple[MergeResult, DeltasLike | None]:
    if isinstance(subject, MergeResult):
        return subject, None
    if isinstance(subject, AIMessage):  # a fake's message: draw the stream it served
        return merge_result_from_message(subject), served_stream(subject)
    if _is_call_list(subject):
        return _calls_result(cast("Sequence[Mapping[str, Any]]", subject)), None
    deltas = cast("DeltasLike", subject)
    return reference_merge(deltas), deltas


def _dump(call: ToolCallDict) -> str:
    return json.dumps(call, sort_keys=True, ensure_ascii=False)


def describe_calls_diff(expected: list[ToolCallDict], actual: list[ToolCallDict]) -> str:
    """A compact unified diff of two call lists, one call per line."""
    lines = difflib.unified_diff(
        [_dump(c) for c in expected],
        [_dump(c) for c in actual],
        fromfile="expected",
        tofile="merged",
        lineterm="",
        n=1,
    )
    return "\n".join(lines)


def _allowed(allow_hazards: bool | Iterable[HazardKind]) -> Callable[[HazardKind], bool]:
    if allow_hazards is True:
        return lambda kind: True
    if allow_hazards is False:
        return lambda kind: False
    kinds = set(allow_hazards)
    check_names(
        "hazard kind", kinds, get_args(HazardKind), prefix="assert_merge(allow_hazards=...): "
    )
    return lambda kind: kind in kinds


def assert_merge(
    subject: SubjectLike,
    expected: ExpectedCalls,
    *,
    allow_hazards: bool | Iterable[HazardKind] = False,
    ignore_ids: bool = False,
) -> MergeResult:
    """Assert that a stream (or a merged message) yields exactly the expected tool calls.

    Args:
        subject: Deltas (merged here by the reference), a :class:`PlannedStream`,
            an ``AIMessage``/``AIMessageChunk`` the subject produced, a
            :class:`MergeResult`, or the list of ``{name, args, id}`` dicts a
            hand-written merger returns (``args`` a dict; anything else counts as an
            invalid call, as langchain-core files args that do not parse). A message
            merged from a stream a tooltape fake served (matched by its tool-call
            ids) fails with that stream's lanes.
        expected: A :class:`Plan`, a :class:`MergeResult` (e.g. the reference's),
            or a list of ``{name, args, id}`` dicts.
        allow_hazards: ``True`` to accept any hazard, or the hazard kinds to accept.
        ignore_ids: Compare names and args only.

    Ids: an id you gave the plan is compared exactly. An id the plan numbered
    itself (``call_<n>``, no ``id=`` given) stands for whatever id the provider
    mints: it matches the subject's id at that position when that id is a
    non-empty string that no other call of the subject carries (a fake sends
    ``call_`` + 24 characters for OpenAI, ``toolu_01...`` for Anthropic, and so
    on), each such id bound once, so two numbered calls never match one id.
    When ``expected`` is a list of dicts or a merge result, every id is compared
    exactly.

    Returns:
        The subject's merge result, for further checks.

    Raises:
        MergeMismatch: The calls differ; the message shows a diff and the lanes.
        HazardFound: The calls match but carry hazards that were not allowed.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    result, stream = _subject_result(subject)
    want = normalize_calls(expected, ignore_ids=ignore_ids)
    got = normalize_calls(result, ignore_ids=ignore_ids)
    if isinstance(expected, Plan) and not ignore_ids:
        want = bind_numbered_ids(expected, want, got)
    if not json_equal(got, want):
        raise MergeMismatch(_mismatch_message(want, got, result, stream, subject))
    allowed = _allowed(allow_hazards)
    found = [h for h in result.hazards if not allowed(h.kind)]
    if found:
        listing = "\n".join(f"  - {h}" for h in found)
        lanes = f"\n\n{_lanes(stream, subject)}" if stream is not None else ""
        raise HazardFound(
            f"the calls match, but the merge carries {len(found)} hazard(s):\n{listing}\n"
            "Pass allow_hazards=[...] with these kinds if the test expects them." + lanes
        )
    return result


def _mismatch_message(
    want: list[ToolCallDict],
    got: list[ToolCallDict],
    result: MergeResult,
    stream: DeltasLike | None,
    subject: SubjectLike,
) -> str:
    parts = [
        f"merged tool calls differ from the expected calls (expected {len(want)}, got {len(got)})",
        describe_calls_diff(want, got),
        *type_differences(want, got),
    ]
    if result.invalid_tool_calls:
        parts.append(
            "invalid_tool_calls: "
            + ", ".join(
                f"{c.get('name')!r} args={c.get('args')!r}" for c in result.invalid_tool_calls
            )
        )
    if result.hazards:
        parts.append("hazards:\n" + "\n".join(f"  - {h}" for h in result.hazards))
    if isinstance(stream, PlannedStream):
        parts.append(
            f"plan quirks: {', '.join(map(str, stream.quirks)) or 'none'} (seed {stream.seed})"
        )
    if stream is not None:
        parts.append(_lanes(stream, subject))
    return "\n".join(parts)


def _lanes(stream: DeltasLike, subject: SubjectLike) -> str:
    if isinstance(subject, AIMessage):
        return "the stream the tooltape fake served for this message:\n" + draw_lanes(stream)
    return draw_lanes(stream)


def first_divergence(
    subject: Callable[[Any], Any], deltas: DeltasLike, *, ignore_ids: bool = False
) -> int | None:
    """The first message after which ``subject`` and the reference disagree on the calls.

    Runs both on every prefix of the stream; returns ``None`` when they agree
    on every prefix. A subject that raises on a prefix disagrees there.
    """
    messages: list[Any] = deltas.deltas() if isinstance(deltas, PlannedStream) else list(deltas)
    for end in range(1, len(messages) + 1):
        prefix = messages[:end]
        want = normalize_calls(reference_merge(prefix), ignore_ids=ignore_ids)
        try:
            got = normalize_calls(subject(_copy(prefix)), ignore_ids=ignore_ids)
        except Exception:
            return end - 1
        if not json_equal(got, want):
            return end - 1
    return None


def _copy(deltas: Sequence[Any]) -> list[Any]:
    return [list(map(_copy_chunk, delta)) if isinstance(delta, list) else delta for delta in deltas]


def _copy_chunk(chunk: Any) -> Any:
    return dict(chunk) if isinstance(chunk, dict) else chunk
