"""Checks dialects share to refuse tool-chunk quirks their wire cannot say."""

from __future__ import annotations

from collections.abc import Mapping

from tooltape.harness import PlannedStream
from tooltape.harness._errors import TooltapeUsageError

__all__ = ["refuse_inexpressible", "require_header_fields"]


def refuse_inexpressible(stream: PlannedStream, reasons: Mapping[str, str], dialect: str) -> None:
    """Raise for the first of the stream's quirks that ``reasons`` says the wire cannot say."""
    for quirk in stream.quirks:
        reason = reasons.get(getattr(quirk, "kind", ""))
        if reason:
            raise TooltapeUsageError(
                f"quirk {quirk} cannot be rendered by dialect {dialect}: {reason}"
            )


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
