"""Whether a dialect can express a quirk: the one check every dialect goes through.

A dialect declares (see :class:`~tooltape.fake_providers.Dialect`):

- ``expresses``: the tool-chunk quirk kinds its wire can say;
- ``cannot_express``: kinds it refuses, each with the reason (tool-chunk kinds, and
  other dialects' EVENTS kinds it wants to explain);
- ``event_quirks``: the EVENTS quirk classes it renders (subclasses included).

Anything else is refused: a new quirk kind is not rendered until a dialect says it
can be. Every refusal reads ``quirk Q cannot be rendered by dialect D: <reason>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tooltape.harness import PlannedStream, Quirk, Stage
from tooltape.harness._errors import TooltapeUsageError

__all__ = [
    "ARGUMENT_TEXT_QUIRKS",
    "FUZZING_ONLY",
    "event_quirk_kinds",
    "refusal",
    "require_header_fields",
]

ARGUMENT_TEXT_QUIRKS = frozenset(
    {
        "ascii_escapes",
        "cumulative_args",
        "duplicate_ids",
        "empty_args",
        "interleave_calls",
        "malformed_args",
        "non_object_args",
        "split_args",
        "split_inside_escapes",
        "truncate_args",
        "whole_args",
        "whole_call",
    }
)
"""The tool-chunk quirks every wire that sends a call's id and name once, then its
argument text, can say (Anthropic, Bedrock, Cohere; Responses adds missing_id): those that
touch only the text."""

FUZZING_ONLY = {
    "idle_messages": "a stream shape check_merger draws; the fakes do not render it yet",
    "respell_args": "an argument spelling check_merger draws; the fakes do not render it yet",
}
"""Tool-chunk quirks only the merge fuzzer draws (harness/_stream_shapes.py); every
dialect refuses them with this reason until its wire renders them."""

UNDECLARED = "the dialect does not declare it among the tool-chunk quirks its wire can express"


def refusal(
    dialect: str,
    expresses: frozenset[str],
    cannot_express: Mapping[str, str],
    event_quirks: Sequence[type[Quirk]],
    quirks: Iterable[Quirk],
) -> str | None:
    """The refusal message for the first quirk the dialect cannot render, or ``None``."""
    for quirk in quirks:
        if quirk.kind in cannot_express:
            reason = cannot_express[quirk.kind]
        elif quirk.stage is Stage.EVENTS:
            if isinstance(quirk, tuple(event_quirks)):
                continue
            own = ", ".join(event_quirk_kinds(event_quirks))
            renders = f"only these EVENTS quirks: {own}" if own else "no EVENTS quirks"
            reason = f"it belongs to another dialect; {dialect} renders {renders}"
        elif quirk.stage is Stage.WIRE or quirk.kind in expresses:
            continue
        else:
            reason = UNDECLARED
        return f"quirk {quirk} cannot be rendered by dialect {dialect}: {reason}"
    return None


def event_quirk_kinds(classes: Iterable[type[Quirk]]) -> list[str]:
    """The kinds of the given EVENTS quirk classes and all their subclasses, sorted."""
    kinds: set[str] = set()
    pending = list(classes)
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        kind = cls.model_fields["kind"].default
        if isinstance(kind, str):
            kinds.add(kind)
    return sorted(kinds)


def require_header_fields(
    stream: PlannedStream, dialect: str, where: str = "on its first chunk"
) -> None:
    """Raise unless each call's id and name travel once, together, on its first fragment.

    Wires such as Anthropic's ``content_block_start`` or Cohere's ``tool-call-start``
    carry them once per call; a quirk combination that moves them cannot be said.
    """
    seen: set[int] = set()
    for fragment in stream.fragments:
        header = fragment.call not in seen
        seen.add(fragment.call)
        if header != (fragment.id is not None) or header != (fragment.name is not None):
            kinds = ", ".join(str(q) for q in stream.quirks) or "none"
            raise TooltapeUsageError(
                f"dialect {dialect} sends a call's id and name once, {where}; "
                f"call {fragment.call} has {fragment!r} (quirks: {kinds})"
            )
