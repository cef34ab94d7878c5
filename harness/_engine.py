"""The quirk engine: a plan plus quirks becomes a deterministic stream of fragments."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._fragments import Fragment, PlannedStream
from tooltape.harness._models import Finish, Plan
from tooltape.harness._quirks import Quirk, SplitArgs, Stage, parse_quirk

__all__ = ["Draft", "stream_plan"]

QuirkLike = Quirk | str | dict[str, Any]

_STAGES = tuple(Stage)  # iterating the enum itself costs more than the rest of a small plan
_DEFAULT_SPLIT = SplitArgs()
"""How arguments are cut when no quirk says (quirks are frozen: one instance serves all)."""


@dataclass
class Draft:
    """The stream under construction; each quirk stage edits one of its fields."""

    plan: Plan
    texts: list[str]
    """TEXT: the argument text of each call still on the wire."""
    pieces: list[list[str]] = field(default_factory=list)
    """SPLIT/PIECES: each call's argument text cut into pieces."""
    header_carries_args: bool = False
    """SPLIT: whether the first piece rides on the header chunk (whole-call shape)."""
    calls: list[list[Fragment]] = field(default_factory=list)
    """FIELDS: each call's fragments, in the call's own order."""
    order: list[Fragment] = field(default_factory=list)
    """ORDER/INDEX: every fragment in wire order."""
    messages: list[list[Fragment]] = field(default_factory=list)
    """PACK/LATE: fragments grouped into streamed messages."""
    truncated_call: int | None = None
    dropped_calls: tuple[int, ...] = ()

    def call_position(self, call: int) -> int:
        """Resolve a (possibly negative) call number against the calls still on the wire."""
        count = len(self.texts)
        if not -count <= call < count:
            raise TooltapeUsageError(
                f"the quirk names call {call}, but the plan has {count} call(s) on the wire"
            )
        return call % count

    def truncate_after(self, position: int) -> None:
        """End the stream inside call ``position``: later calls never reach the wire."""
        self.truncated_call = position
        self.dropped_calls = tuple(range(position + 1, len(self.texts)))
        del self.texts[position + 1 :]


def _build_fragments(draft: Draft) -> None:
    calls = draft.plan.calls
    draft.calls = []
    for position, pieces in enumerate(draft.pieces):
        call = calls[position]
        if draft.header_carries_args and pieces:
            head_args, rest = pieces[0], pieces[1:]
        else:
            head_args, rest = "", pieces
        header = Fragment(position, position, call.id, call.name, head_args)
        continuations = [Fragment(position, position, None, None, piece) for piece in rest]
        draft.calls.append([header, *continuations])


def _seal(draft: Draft, quirks: Sequence[Quirk], seed: int, finish: Finish) -> PlannedStream:
    messages = draft.messages
    if draft.truncated_call is not None:
        last = max(
            (
                n
                for n, message in enumerate(messages)
                for f in message
                if f.call == draft.truncated_call
            ),
            default=len(messages) - 1,
        )
        messages = messages[: last + 1]
    return PlannedStream(
        plan=draft.plan,
        quirks=tuple(quirks),
        seed=seed,
        messages=tuple(tuple(message) for message in messages),
        finish=finish,
        truncated_call=draft.truncated_call,
        dropped_calls=draft.dropped_calls,
    )


def _check_quirks(quirks: Sequence[Quirk]) -> None:
    kinds = [q.kind for q in quirks]
    repeated = sorted({k for k in kinds if kinds.count(k) > 1})
    if repeated:
        raise TooltapeUsageError(f"each quirk may appear once; repeated: {', '.join(repeated)}")
    splitters = [q.kind for q in quirks if q.stage is Stage.SPLIT]
    if len(splitters) > 1:
        raise TooltapeUsageError(
            f"quirks {', '.join(splitters)} all decide how arguments are cut; pick one"
        )
    truncations = [q for q in quirks if q.kind == "truncate_args"]
    if truncations and any(q.kind == "cumulative_args" for q in quirks):
        # Both are fine on their own; together the cut lands in a repeated prefix,
        # which no provider has been seen to send.
        raise TooltapeUsageError("truncate_args and cumulative_args cannot be combined")


def stream_plan(
    plan: Plan,
    quirks: Iterable[QuirkLike] = (),
    *,
    seed: int = 0,
) -> PlannedStream:
    """Turn a plan into the stream a quirky provider would send.

    Args:
        plan: The ground truth.
        quirks: Quirks, quirk kind names or ``{"kind": ..., **params}`` mappings.
        seed: Fixes every random choice (cut points, interleaving); the same
            plan, quirks and seed always give the same stream.

    Returns:
        The fragments grouped into messages; ``.deltas()`` gives the
        ``ToolCallChunk`` lists that :func:`reference_merge` takes.

    Raises:
        TooltapeUsageError: A quirk is unknown, repeated, or names a call the
            plan does not have.
    """
    parsed = [parse_quirk(q) for q in quirks]
    _check_quirks(parsed)
    staged = sorted(parsed, key=lambda q: (q.stage, q.priority))

    def rng(quirk: Quirk) -> Random:
        return Random(f"{seed}:{quirk.kind}")

    draft = Draft(plan=plan, texts=[json.dumps(c.args, ensure_ascii=False) for c in plan.calls])
    by_stage: dict[Stage, list[Quirk]] = {}
    for quirk in staged:
        by_stage.setdefault(quirk.stage, []).append(quirk)
    by_stage.setdefault(Stage.SPLIT, [_DEFAULT_SPLIT])
    for stage in _STAGES:
        for quirk in by_stage.get(stage, ()):
            quirk.apply(draft, rng(quirk))
        if stage is Stage.PIECES:
            _build_fragments(draft)
        elif stage is Stage.FIELDS:
            draft.order = [f for fragments in draft.calls for f in fragments]
        elif stage is Stage.INDEX:
            draft.messages = [[f] for f in draft.order]
    finish = plan.effective_finish
    if draft.truncated_call is not None and plan.finish is None:
        finish = "eof"
    return _seal(draft, parsed, seed, finish)
