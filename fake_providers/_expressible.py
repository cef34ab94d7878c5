"""Whether a dialect can express a quirk: the one check every dialect goes through.

A tool-chunk quirk says what it ``needs`` from a wire (:data:`tooltape.harness.CAPABILITIES`:
name fragments, an index field, argument pieces ...); a dialect declares (see
:class:`~tooltape.fake_providers.Dialect`):

- ``carries``: the capabilities its wire has; a quirk renders when it needs no other;
- ``lacks``: why it lacks a capability (optional; a generic reason otherwise);
- ``cannot_express``: kinds refused whatever they need, each with the reason (other
  dialects' EVENTS kinds it wants to explain);
- ``event_quirks``: the EVENTS quirk classes it renders (subclasses included).

So a new tool-chunk quirk is rendered, or refused with each dialect's reason, without
touching a dialect; one that declares no ``needs`` is refused everywhere. Every
refusal reads ``quirk Q cannot be rendered by dialect D: <reason>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from tooltape.harness import (
    CAPABILITIES,
    PlannedStream,
    Quirk,
    Stage,
    TooltapeUsageError,
    quirk_kinds,
)
from tooltape.harness.name_checks import check_names
from tooltape.harness.quirk_registry import quirk_class

if TYPE_CHECKING:
    from tooltape.fake_providers._dialect import Dialect

__all__ = [
    "check_capabilities",
    "event_quirk_kinds",
    "expressed_kinds",
    "missing_capability",
    "refusal",
    "require_header_fields",
]

UNDECLARED = (
    "the quirk declares no `needs`, so the dialect does not know whether its wire can say it"
)


def check_capabilities(
    dialect: str, carries: frozenset[str], lacks: Mapping[str, str], sets_expresses: bool
) -> None:
    """Raise ``TypeError`` for an unknown capability, or one both carried and lacked."""
    if sets_expresses:
        raise TypeError(
            f"{dialect} sets `expresses`, which is derived now: declare the capabilities its "
            f"wire `carries` ({', '.join(CAPABILITIES)})"
        )
    check_names(
        "capability", [*carries, *lacks], CAPABILITIES, error=TypeError, prefix=dialect + ": "
    )
    both = carries & set(lacks)
    if both:
        raise TypeError(f"{dialect} both carries and lacks {sorted(both)}")


def missing_capability(
    carries: frozenset[str], lacks: Mapping[str, str], quirk: type[Quirk] | Quirk
) -> str | None:
    """Why a wire that ``carries`` these capabilities cannot say a tool-chunk quirk, or ``None``."""
    if quirk.needs is None:
        return UNDECLARED
    missing = [name for name in CAPABILITIES if name in quirk.needs and name not in carries]
    if not missing:
        return None
    return lacks.get(missing[0]) or f"its wire has no {missing[0]} ({CAPABILITIES[missing[0]]})"


def expressed_kinds(carries: frozenset[str], cannot_express: Mapping[str, str]) -> frozenset[str]:
    """The registered tool-chunk kinds a wire that ``carries`` these capabilities can say."""
    return frozenset(
        kind
        for kind in quirk_kinds()
        if quirk_class(kind).stage < Stage.EVENTS
        and kind not in cannot_express
        and missing_capability(carries, {}, quirk_class(kind)) is None
    )


def refusal(dialect: Dialect, quirks: Iterable[Quirk]) -> str | None:
    """The refusal message for the first quirk the dialect cannot render, or ``None``."""
    for quirk in quirks:
        if quirk.kind in dialect.cannot_express:
            reason: str | None = dialect.cannot_express[quirk.kind]
        elif quirk.stage is Stage.EVENTS:
            if isinstance(quirk, tuple(dialect.event_quirks)):
                continue
            own = ", ".join(event_quirk_kinds(dialect.event_quirks))
            renders = f"only these EVENTS quirks: {own}" if own else "no EVENTS quirks"
            reason = f"it belongs to another dialect; {dialect.name} renders {renders}"
        elif quirk.stage is Stage.WIRE:
            continue
        else:
            reason = missing_capability(dialect.carries, dialect.lacks, quirk)
        if reason is not None:
            return f"quirk {quirk} cannot be rendered by dialect {dialect.name}: {reason}"
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
