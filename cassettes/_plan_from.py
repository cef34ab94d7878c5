"""Recover the plan behind a recording: the calls the reference merge finds, and the text.

The calls come from langchain-core's merge of the dialect's parse (names, ids
and arguments as the reference reads them, so a truncated stream gives the
repaired arguments). The text, reasoning and finish come from the events
themselves, read by the recording's dialect (:meth:`Dialect.event_pieces` and
:meth:`Dialect.event_finish`, each with its provider's field names); text seen
before the first tool event is ``text_before``, the rest ``text_after``. An
``error`` event, or a payload with an ``error`` member, finishes with ``error``
in every dialect. Envelope fields (response ids, model, timestamps, usage) are
not part of a plan: a dialect renders them afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes.body_events import BodyEvent
from tooltape.fake_providers import Dialect
from tooltape.harness import Deltas, Finish, Plan, PlannedCall, reference_merge

__all__ = ["plan_from_recording"]


def _finish(dialect: Dialect, events: Sequence[BodyEvent], aborted: bool) -> Finish | None:
    if aborted:
        return "eof"
    for event in events:
        data = event.data
        if event.kind in ("error", "response.failed") or (
            isinstance(data, dict) and ("error" in data or _carries_error(data))
        ):
            return "error"
        finish = dialect.event_finish(data)
        if finish is not None:
            return finish
    return None


def _carries_error(data: dict[str, Any]) -> bool:
    carried = data.get("bytes")  # a Bedrock InvokeModel chunk carries the model's event
    return isinstance(carried, dict) and "error" in carried


def _recorded_id(call_id: str | None, haystack: bytes) -> str | None:
    """The id, unless the adapter made it up (not in the bytes): the plan then numbers it."""
    if call_id == "":
        return call_id  # an empty id is what the provider sent (Gemini's OpenAI endpoint)
    return call_id if call_id and call_id.encode() in haystack else None


def plan_from_recording(
    dialect: Dialect,
    deltas: Deltas,
    events: Sequence[BodyEvent],
    haystack: bytes,
    *,
    aborted: bool = False,
    path: Any = None,
    interaction: int | None = None,
) -> Plan:
    """The plan a recording plays: merged calls, text around them, reasoning and finish.

    Raises:
        CassetteError: The recording holds invalid calls (arguments that are not a
            JSON object) or calls no plan can hold (no name, a repeated id).
    """
    merged = reference_merge(deltas)
    if merged.invalid_tool_calls:
        bad = merged.invalid_tool_calls[0]
        raise CassetteError(
            f"{where(path, interaction)}: the recording holds {len(merged.invalid_tool_calls)} "
            f"invalid call(s) (first: {bad.get('name')!r} with {bad.get('args')!r}); a plan "
            "needs calls whose arguments are JSON objects"
        )
    before: list[str] = []
    after: list[str] = []
    reasoning: list[str] = []
    seen_tool = False
    for event in events:
        for kind, text in dialect.event_pieces(event.data):
            if kind == "tool":
                seen_tool = True
            elif kind == "reasoning":
                reasoning.append(text)
            else:
                (after if seen_tool else before).append(text)
    try:
        return Plan(
            calls=tuple(
                PlannedCall(name=c["name"], args=c["args"], id=_recorded_id(c.get("id"), haystack))
                for c in merged.tool_calls
            ),
            text_before="".join(before),
            text_after="".join(after),
            reasoning="".join(reasoning),
            finish=_finish(dialect, events, aborted),
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise CassetteError(
            f"{where(path, interaction)}: the recorded calls make no plan: {first['msg']}"
        ) from None
