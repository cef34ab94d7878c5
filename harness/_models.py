"""The data tooltape talks about: plans, merge results and hazards.

A :class:`Plan` is the ground truth a scenario starts from: the tool calls (and
text) the model *meant* to send. Quirks distort it on the way to the wire; the
reference merge says what langchain-core makes of the distorted stream; a
:class:`MergeResult` holds that answer together with the :class:`Hazard` s a
user must see even when langchain-core calls the result valid.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

from langchain_core.messages import InvalidToolCall, ToolCall, ToolCallChunk
from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

__all__ = [
    "Delta",
    "Deltas",
    "Finish",
    "Hazard",
    "HazardKind",
    "MergeResult",
    "Plan",
    "PlannedCall",
    "ToolCallDict",
]

Delta: TypeAlias = list[ToolCallChunk]
"""The tool-call chunks of one streamed message (one ``AIMessageChunk``)."""

Deltas: TypeAlias = list[Delta]
"""A whole stream: one :data:`Delta` per streamed message, in arrival order."""

ToolCallDict: TypeAlias = dict[str, Any]
"""A tool call as ``{"name": ..., "args": {...}, "id": ...}``."""

Finish = Literal["tool_calls", "stop", "length", "content_filter", "eof", "error"]
"""How a turn ends on the wire.

``tool_calls``: the normal terminal event for a turn with calls. ``stop``: the
turn ends as if no tool was called (OpenAI with a named ``tool_choice``,
https://github.com/vllm-project/vllm/pull/25054). ``length``: the output-token
limit cut the turn (https://github.com/mrwogu/factory-droid-openai/pull/33).
``content_filter``: Azure's filter ended it
(https://github.com/microsoft/semantic-kernel/issues/5240). ``eof``: the
connection closed with no terminal event at all
(https://github.com/2389-research/tracker/issues/544). ``error``: an error event
arrived inside the 200 stream (https://github.com/apache/rocketmq-dashboard/issues/2178).
"""

HazardKind = Literal[
    "args_repaired",
    "repeated_name",
    "id_changed",
    "orphan_fragment",
    "shared_index",
    "missing_id",
    "duplicate_id",
    "invalid_call",
]
"""The kinds of :class:`Hazard` a merge can show (see ``docs/behaviour.md``)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlannedCall(_Frozen):
    """One tool call the model meant to make."""

    name: str = Field(min_length=1)
    """The tool's name, e.g. ``get_weather``."""
    args: dict[str, JsonValue] = Field(default_factory=dict)
    """The arguments as a JSON object."""
    id: str | None = None
    """The call id; :class:`Plan` fills ``call_<n>`` in when it is left out."""

    def __init__(
        self,
        name: str,
        args: Mapping[str, JsonValue] | None = None,
        id: str | None = None,
        **data: Any,
    ) -> None:
        """Take the fields positionally or by keyword: ``PlannedCall("f", {"x": 1}, "id_1")``.

        Only the fields given count as set, so an id left out stays
        :attr:`id_given` False.
        """
        given: dict[str, Any] = {"name": name}
        if args is not None:
            given["args"] = args
        if id is not None:
            given["id"] = id
        super().__init__(**given, **data)

    @property
    def id_given(self) -> bool:
        """False when :class:`Plan` numbered the call (``call_<n>``) because no id was given."""
        return "id" in self.model_fields_set

    def as_dict(self) -> ToolCallDict:
        """Return the call as ``{"name", "args", "id"}``, the shape merges are compared in."""
        return {"name": self.name, "args": self.args, "id": self.id}


class Plan(_Frozen):
    """The ground truth of one assistant turn: the calls and text the model meant to send.

    The turn streams, in this order: ``reasoning`` (on dialects that carry it),
    ``text_before``, the ``calls``, ``text_after``, then the ``finish`` event.

    Example:
        >>> Plan(
        ...     calls=[PlannedCall(name="get_weather", args={"city": "Paris"})],
        ...     text_before="Let me check.",
        ... )

    A call without an id gets ``call_<n>`` (its position). When several plans are
    scripted as turns of one conversation (``fake_openai.stream(a).then(b)``,
    ``FakeToolStreamingModel(turns=[...])``), each later turn's numbered ids move on
    past the ids earlier turns used (:meth:`with_fresh_ids`), so three turns of one
    call each stream ``call_0``, ``call_1``, ``call_2``; an id you give is kept as is.
    """

    calls: tuple[PlannedCall, ...] = ()
    """The tool calls, in the order the model emits them (an id left out becomes ``call_<n>``)."""
    text_before: str = ""
    """Assistant text streamed before the first call (after ``reasoning``)."""
    text_after: str = ""
    """Assistant text streamed after the last call, before the finish event."""
    reasoning: str = ""
    """Reasoning or thinking text streamed before everything else (dialects without a
    reasoning channel leave it out)."""
    finish: Finish | None = None
    """How the turn ends (see :data:`Finish`); ``None`` means ``tool_calls`` when there
    are calls, else ``stop``."""

    @field_validator("calls")
    @classmethod
    def _number_calls(cls, calls: tuple[PlannedCall, ...]) -> tuple[PlannedCall, ...]:
        numbered = tuple(
            call if call.id is not None else _numbered(call, f"call_{n}")
            for n, call in enumerate(calls)
        )
        seen: set[str | None] = set()
        for call in numbered:
            if call.id in seen:
                raise ValueError(
                    f"two calls share the id {call.id!r}; give each call its own id "
                    "(use the duplicate-id quirk to put a duplicate on the wire)"
                )
            seen.add(call.id)
        return numbered

    def with_fresh_ids(self, taken: Iterable[str | None], first_free: int = 0) -> Plan:
        """This plan with its numbered ids moved past ``taken`` (the ids earlier turns used).

        Only ids the plan filled in (``call_<n>``, see :attr:`PlannedCall.id_given`)
        change, and only when one of them collides: then each becomes, in order, the
        first ``call_<m>`` that neither ``taken`` nor the plan's given ids hold.

        A caller that hands out numbered ids in order (a fake provider serving turn
        after turn) passes ``first_free`` instead of every id it handed out: each
        ``call_<m>`` with ``m`` below it counts as taken, and fresh ids start there,
        so a turn costs the same however many turns came before it. ``taken`` then
        holds the given ids only; a set is read as it is, not copied.
        """
        used = taken if isinstance(taken, set | frozenset) else set(taken)

        def is_taken(call_id: str | None) -> bool:
            number = _numbered_id(call_id)
            return call_id in used or (number is not None and number < first_free)

        if not any(not c.id_given and is_taken(c.id) for c in self.calls):
            return self
        claimed = {c.id for c in self.calls if c.id_given}
        fresh_numbers = itertools.count(first_free)
        calls = []
        for call in self.calls:
            if not call.id_given:
                fresh = next(
                    f"call_{m}"
                    for m in fresh_numbers
                    if f"call_{m}" not in used and f"call_{m}" not in claimed
                )
                call = _numbered(call, fresh)
            calls.append(call)
        return self.model_copy(update={"calls": tuple(calls)})

    def first_free_after(self, first_free: int = 0) -> int:
        """The ``first_free`` for the turn after this one (see :meth:`with_fresh_ids`).

        Past every ``call_<m>`` this plan numbered, and never below ``first_free``.
        """
        numbers = (_numbered_id(c.id) for c in self.calls if not c.id_given)
        return max([first_free, *(n + 1 for n in numbers if n is not None)])

    @property
    def effective_finish(self) -> Finish:
        """The finish reason with the default filled in."""
        if self.finish is not None:
            return self.finish
        return "tool_calls" if self.calls else "stop"

    def expected_calls(self) -> list[ToolCallDict]:
        """The calls as ``{"name", "args", "id"}`` dicts, as a lossless stream merges to."""
        return [call.as_dict() for call in self.calls]


_NUMBERED = re.compile(r"call_(0|[1-9][0-9]{0,17})")


def _numbered_id(call_id: str | None) -> int | None:
    """``m`` for an id of the form ``call_<m>`` (the form a plan numbers its calls in)."""
    match = _NUMBERED.fullmatch(call_id) if call_id else None
    return int(match.group(1)) if match else None


def _numbered(call: PlannedCall, call_id: str) -> PlannedCall:
    """A copy of ``call`` with an id the plan chose (so ``id_given`` stays False)."""
    return type(call).model_construct(
        call.model_fields_set - {"id"}, **{**dict(call), "id": call_id}
    )


class Hazard(_Frozen):
    """A finding about a merge that a user must see even when langchain-core calls it valid."""

    kind: HazardKind
    """What went wrong; see :func:`tooltape.harness.find_hazards` for each kind."""
    position: int | None = None
    """Position of the merged chunk (the call) it concerns, if any."""
    call_id: str | None = None
    """The id of the call it concerns, if it has one."""
    detail: str = ""
    """One sentence saying what was seen."""

    def __str__(self) -> str:
        where = f" at call {self.position}" if self.position is not None else ""
        return f"{self.kind}{where}: {self.detail}"


class MergeResult(_Frozen):
    """What the reference merge made of a stream."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunks: list[ToolCallChunk]
    """The merged tool-call chunks (one per call langchain-core sees)."""
    tool_calls: list[ToolCall]
    """The valid calls, as langchain-core built them."""
    invalid_tool_calls: list[InvalidToolCall]
    """The calls whose args are not a JSON object."""
    hazards: tuple[Hazard, ...] = ()
    """Findings a user must see; empty when the stream is clean."""

    def calls(self) -> list[ToolCallDict]:
        """The valid calls as ``{"name", "args", "id"}`` dicts (no ``type`` key)."""
        return [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in self.tool_calls]

    def hazard_kinds(self) -> set[HazardKind]:
        """The kinds of hazard present."""
        return {hazard.kind for hazard in self.hazards}
