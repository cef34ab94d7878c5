"""A turn as the matrix compares it: the calls, the visible text and the order of parts.

Every subject's result is normalised to a :class:`Turn`. The calls are compared
as before; the text (reasoning excluded) and the order of parts (kinds collapsed
to runs, ``("text", "call", "text")``) are compared where the subject reports
them (``None``: it cannot say, and is not judged on it). The plan's text is
``text_before`` then ``text_after`` around the calls; the reference's is what the
wire carries, read by the dialect (:meth:`Dialect.event_pieces`), so a text the
stream itself lost is lost for the reference too and a subject that shares the
loss is as the reference.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooltape.fake_providers.raw_turns import part_runs
from tooltape.harness.json_text import loads

if TYPE_CHECKING:
    from tooltape.fake_providers import Dialect, Wire
    from tooltape.harness import Plan

__all__ = ["Text", "Turn", "keeps_plan", "plan_text", "text_lines", "text_verdict", "wire_text"]

Merged = tuple[list[dict[str, Any]], list[dict[str, Any]]]


@dataclass(frozen=True)
class Turn:
    """What a subject made of one turn."""

    valid: list[dict[str, Any]]
    """The valid calls ``{name, args, id}`` (args a JSON object), in order."""
    invalid: list[dict[str, Any]]
    """The calls whose arguments are not a JSON object."""
    text: str | None = None
    """The assistant's visible text, reasoning excluded (``None``: not reported)."""
    parts: tuple[str, ...] | None = None
    """The kinds of its parts in order, runs collapsed (``None``: the subject keeps no order)."""

    @property
    def calls(self) -> Merged:
        """``(valid, invalid)``."""
        return self.valid, self.invalid

    @classmethod
    def of(
        cls,
        calls: Iterable[Mapping[str, Any]],
        *,
        text: str | None = None,
        parts: Iterable[str] | None = None,
    ) -> Turn:
        """A turn from its calls ``{name, args, id}`` in order, its text and its parts.

        ``args`` a dict, or text that parses to a JSON object, make a valid call;
        anything else an invalid one. ``parts``: the kinds in order (``text``,
        ``call``), collapsed to runs; leave it out when the consumer keeps no order,
        and ``text`` when it keeps no text.
        """
        valid: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []
        for call in calls:
            args = call.get("args")
            if isinstance(args, str):
                with contextlib.suppress(ValueError):
                    args = loads(args or "{}")
            entry = {"name": call.get("name"), "args": args, "id": call.get("id")}
            (valid if isinstance(args, dict) else invalid).append(entry)
        return cls(valid, invalid, text, None if parts is None else part_runs(parts))


@dataclass(frozen=True)
class Text:
    """A turn's text and the order of its parts, as the plan or the wire says them."""

    text: str
    parts: tuple[str, ...] | None


def plan_text(plan: Plan) -> Text:
    """The plan's text (``text_before`` + ``text_after``) and its order around the calls."""
    return Text(plan.text_before + plan.text_after, _plan_parts(plan))


def _plan_parts(plan: Plan) -> tuple[str, ...]:
    kinds = []
    if plan.text_before:
        kinds.append("text")
    if plan.calls:
        kinds.append("call")
    if plan.text_after:
        kinds.append("text")
    return part_runs(kinds)


def wire_text(dialect: Dialect, wire: Wire) -> Text | None:
    """The text the wire carries and its order, as ``dialect`` reads its events.

    ``None`` when the body cannot be read as events (a malformed event): the
    reference then has no text, and no subject is judged on it.
    """
    from tooltape.cassettes import CassetteError
    from tooltape.cassettes.body_events import read_events
    from tooltape.cassettes.body_framing import framing_of

    try:
        events = read_events(wire.body, framing_of(wire.content_type), aborted=True)
    except (CassetteError, ValueError):
        return None
    texts: list[str] = []
    kinds: list[str] = []
    for event in events:
        for kind, piece in dialect.event_pieces(event.data):
            if kind == "text":
                texts.append(piece)
                kinds.append("text")
            elif kind == "tool":
                kinds.append("call")
    return Text("".join(texts), part_runs(kinds))


def _aspects(turn: Turn) -> Iterable[tuple[str, Any]]:
    if turn.text is not None:
        yield "text", turn.text
    if turn.parts is not None:
        yield "parts", turn.parts


def keeps_plan(got: Turn, plan: Text) -> bool:
    """True when every aspect ``got`` reports (text, parts) is the plan's."""
    text, parts = got.text, got.parts
    return (text is None or text == plan.text) and (parts is None or parts == plan.parts)


def text_verdict(got: Turn, reference: Text | None, plan: Text) -> tuple[int, str]:
    """How the subject's text and order compare with the reference's.

    ``(0, "")`` as the reference, ``(1, why)`` better (it matches the plan where
    the reference does not), ``(-1, why)`` worse.
    """
    if reference is None:
        return 0, ""
    better = []
    for aspect, value in _aspects(got):
        want = getattr(reference, aspect)
        if want is None or value == want:
            continue
        if value == getattr(plan, aspect):
            better.append(aspect)
            continue
        theirs, ours = _show(aspect, want), _show(aspect, value)
        return -1, f"{aspect}: the reference has {theirs}, the subject {ours}"
    if better:
        return 1, "better than the reference: keeps the planned " + " and ".join(better)
    return 0, ""


def _show(aspect: str, value: Any) -> str:
    if aspect == "parts":
        return "(" + ", ".join(value) + ")"
    return json.dumps(value, ensure_ascii=False)


def text_lines(got: Turn, text: Text | None) -> list[str]:
    """Diff lines of ``text`` in the aspects ``got`` reports (``got``'s own: ``text`` None)."""
    lines = []
    for aspect, value in _aspects(got):
        shown = value if text is None else getattr(text, aspect)
        if shown is not None:
            lines.append(f"{aspect} {_show(aspect, shown)}")
    return lines
