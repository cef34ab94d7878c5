"""One way to say a typed name is unknown: the closest known names first, then the rest.

Every place that reads a name a user typed (scenario, tag, dialect, profile,
quirk kind, marker argument, option value, adapter, matcher, record mode) builds
its error here, so every such error reads the same and suggests the close name.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from tooltape.harness._errors import TooltapeUsageError

__all__ = ["check_names", "unknown_name", "unknown_name_message"]

_SHOWN = 40
"""How many known names a message lists before it says how many more there are."""


_LONGEST = 60
"""A typed name is shown up to this many characters (it may come from a file)."""


def _shown(name: object) -> str:
    text = repr(name)
    return text if len(text) <= _LONGEST else text[: _LONGEST - 5] + "...'"


def _suggestion(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:  # 'mode' for 'record_mode', 'OpenAI_Chat' for 'openai_chat'
        typed = name.lower()
        close = [k for k in known if len(typed) >= 3 and (typed in k.lower() or k.lower() in typed)]
        close = close[:3]
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def unknown_name_message(
    kind: str, names: str | Iterable[str], known: Iterable[str], *, plural: str = ""
) -> str:
    """``unknown <kind> 'x' (did you mean 'y'?); known <kind>s: ...`` on one line.

    Args:
        kind: What the name names, singular (``"tag"``, ``"dialect"``).
        names: The unknown name, or several of them.
        known: Every name that would have been accepted.
        plural: ``kind``'s plural when it is not ``kind + "s"``.
    """
    choices = sorted(set(known))
    typed = [names] if isinstance(names, str) else list(names)
    parts = []
    for name in typed:
        hint = _suggestion(str(name)[:200], choices)
        parts.append(f"{_shown(name)} ({hint})" if hint else _shown(name))
    listed = ", ".join(choices[:_SHOWN]) or "none"
    if len(choices) > _SHOWN:
        listed += f" and {len(choices) - _SHOWN} more"
    return f"unknown {kind} {', '.join(parts)}; known {plural or kind + 's'}: {listed}"


def unknown_name(
    kind: str,
    names: str | Iterable[str],
    known: Iterable[str],
    *,
    error: type[Exception] = TooltapeUsageError,
    prefix: str = "",
    plural: str = "",
) -> Exception:
    """The error to raise for an unknown name, built by :func:`unknown_name_message`.

    Args:
        kind: What the name names, singular.
        names: The unknown name, or several of them.
        known: Every name that would have been accepted.
        error: The exception class (the caller's package's usage error).
        prefix: Put before the message (``"tooltape: "``, a file name).
        plural: ``kind``'s plural when it is not ``kind + "s"``.
    """
    return error(prefix + unknown_name_message(kind, names, known, plural=plural))


def check_names(
    kind: str,
    names: Iterable[str],
    known: Iterable[str],
    *,
    error: type[Exception] = TooltapeUsageError,
    prefix: str = "",
    plural: str = "",
) -> None:
    """Raise :func:`unknown_name`'s error when any of ``names`` is not in ``known``."""
    accepted = set(known)
    unknown = [n for n in names if n not in accepted]
    if unknown:
        raise unknown_name(kind, unknown, accepted, error=error, prefix=prefix, plural=plural)
